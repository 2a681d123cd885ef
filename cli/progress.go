package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
)

// Work that can take a while (verifying or exporting the audit trail,
// migrating, reading a long queue) shows a progress line on stderr once it
// has run for progressAfter, so a person knows baton is busy, not stuck.
// Only on a terminal: a pipe or a log file gets nothing, and stdout (the
// --json document) never does.
const (
	progressAfter = time.Second
	progressEvery = 100 * time.Millisecond // at most ten redraws a second
)

// progress is one progress line, redrawn in place with \r and cleared
// when the work ends.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	term   bool
	now    func() time.Time
	start  time.Time
	last   time.Time // the last redraw
	label  string
	detail string
	width  int // characters on screen now; 0 when nothing is shown
	done   bool
	stop   chan struct{}
	wg     sync.WaitGroup
}

// newProgress is a progress line for label on w. term says whether w is a
// terminal; now is the clock. Nothing is drawn until tick or set is called
// after progressAfter.
func newProgress(w io.Writer, term bool, now func() time.Time, label string) *progress {
	return &progress{w: w, term: term, now: now, start: now(), label: label}
}

// startProgress shows label on stderr while work runs, redrawn by a
// ticker (so work with no steps still shows its time); call finish when the
// work ends, before printing its result.
func (a *App) startProgress(label string) *progress {
	p := newProgress(a.Stderr, a.stderrIsTerminal(), time.Now, label)
	p.run()
	return p
}

// run redraws the line every progressEvery until finish, on a terminal.
func (p *progress) run() {
	if !p.term {
		return
	}
	p.stop = make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
}

// stderrIsTerminal reports whether a.Stderr is a terminal that can redraw
// a line.
func (a *App) stderrIsTerminal() bool {
	if a.Getenv != nil && a.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := a.Stderr.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// set changes what the line says after the label, e.g. "1200 of 5000
// records", and redraws it when due.
func (p *progress) set(detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.detail = detail
	p.draw()
}

// tick redraws the line when due: its elapsed time moves on.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw()
}

// draw writes the line if the work has run for progressAfter and the last
// redraw is progressEvery old. p.mu is held.
func (p *progress) draw() {
	if !p.term || p.done {
		return
	}
	now := p.now()
	elapsed := now.Sub(p.start)
	if elapsed < progressAfter || (p.width > 0 && now.Sub(p.last) < progressEvery) {
		return
	}
	line := "baton: " + p.label
	if p.detail != "" {
		line += ": " + p.detail
	}
	line = fmt.Sprintf("%s (%ds)", line, int(elapsed/time.Second))
	n := utf8.RuneCountInString(line)
	pad := ""
	if n < p.width {
		pad = strings.Repeat(" ", p.width-n) // cover the longer line before
	}
	fmt.Fprint(p.w, "\r"+line+pad)
	p.width, p.last = max(n, p.width), now
}

// finish stops the line and clears it, so what the command prints next
// starts on a clean line. Calling it again does nothing.
func (p *progress) finish() {
	if p.stop != nil {
		p.mu.Lock()
		stopped := p.done
		p.mu.Unlock()
		if !stopped {
			close(p.stop)
			p.wg.Wait()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	if p.width > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.width)+"\r")
		p.width = 0
	}
}
