package audit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tlog"
)

// The tests here run an audit.Checkpointer, as baton serve does, over a
// real store while actions are appended, and watch what it stores and
// gives its witness file. Every wait has a deadline; none is a fixed
// sleep. The checkpointer's Clock counts its calls: Run reads the clock
// once per look at the log (after reading the log's size), so a count
// that has gone up by waitLooks since a moment means Run has read the
// log's size at least once after that moment.

// waitLooks is how many clock reads after a moment guarantee a look at
// the log that began after it: one pass of Run reads the clock at most
// twice (its own read, and MakeCheckpoint's through Once).
const waitLooks = 4

// deadline bounds every wait.
const deadline = 5 * time.Second

// checkpointerLog is a store with a key, a witness file and a
// checkpointer running over them.
type checkpointerLog struct {
	ctx     context.Context
	s       baton.Store
	key     *tlog.Key
	witness string
	cp      *audit.Checkpointer
	reads   atomic.Int64 // the checkpointer's clock reads
	appends int          // actions appended so far

	mu   sync.Mutex
	now  time.Time // the checkpointer's time, when fake
	fake bool

	cancel context.CancelFunc
	done   chan struct{}
}

// newCheckpointerLog opens an empty store on b and a checkpointer over it
// (not running yet), with the given triggers; fake makes its clock stand
// still until advance moves it.
func newCheckpointerLog(t *testing.T, b backend, every time.Duration, records int, fake bool) *checkpointerLog {
	t.Helper()
	s, _, _ := b.open(t)
	l := &checkpointerLog{ctx: context.Background(), s: s, witness: filepath.Join(t.TempDir(), "witness", "checkpoints"),
		now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), fake: fake}
	path, _ := newKeyFile(t, tlog.NewOrigin())
	var err error
	if l.key, err = audit.OpenKey(l.ctx, s, path, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	l.cp = &audit.Checkpointer{Store: s, Key: l.key, Every: every, Records: records, Poll: 10 * time.Millisecond,
		Witness: tlog.Witness{File: l.witness}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Clock: func() time.Time {
			l.reads.Add(1)
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.fake {
				return l.now
			}
			return time.Now()
		}}
	return l
}

// start runs the checkpointer until the test ends or stop.
func (l *checkpointerLog) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(l.ctx)
	done := make(chan struct{})
	l.cancel, l.done = cancel, done
	go func() {
		defer close(done)
		l.cp.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// stop cancels Run's context and wants Run to return.
func (l *checkpointerLog) stop(t *testing.T) {
	t.Helper()
	l.cancel()
	select {
	case <-l.done:
	case <-time.After(deadline):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

func (l *checkpointerLog) advance(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = l.now.Add(d)
}

// appendActions records n more actions, one transaction each.
func (l *checkpointerLog) appendActions(t *testing.T, n int) {
	t.Helper()
	for range n {
		l.appends++
		i := l.appends
		if err := l.s.Update(l.ctx, func(tx baton.Tx) error { return audit.Record(l.ctx, tx, tamperChange(i)) }); err != nil {
			t.Fatal(err)
		}
	}
}

// stored lists the stored checkpoints, the smallest first.
func (l *checkpointerLog) stored(t *testing.T) []*baton.Checkpoint {
	t.Helper()
	var cps []*baton.Checkpoint
	if err := l.s.View(l.ctx, func(tx baton.Tx) (err error) {
		cps, err = tx.Checkpoints(l.ctx, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(cps)-1; i < j; i, j = i+1, j-1 {
		cps[i], cps[j] = cps[j], cps[i]
	}
	return cps
}

func sizes(cps []*baton.Checkpoint) []int64 {
	out := make([]int64, len(cps))
	for i, c := range cps {
		out[i] = c.Size
	}
	return out
}

// waitFor polls the stored checkpoints until ok says yes, failing after
// the deadline.
func (l *checkpointerLog) waitFor(t *testing.T, what string, ok func([]*baton.Checkpoint) bool) []*baton.Checkpoint {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		cps := l.stored(t)
		if ok(cps) {
			return cps
		}
		if time.Now().After(end) {
			t.Fatalf("after %s: %s; the stored checkpoints are at sizes %v", deadline, what, sizes(cps))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settle waits until Run has looked at the log since now.
func (l *checkpointerLog) settle(t *testing.T) {
	t.Helper()
	from := l.reads.Load()
	end := time.Now().Add(deadline)
	for l.reads.Load() < from+waitLooks {
		if time.Now().After(end) {
			t.Fatalf("the checkpointer did not look at the log within %s (clock read %d times)", deadline, l.reads.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// witnessNotes are the notes in the witness file (none when it does not
// exist).
func (l *checkpointerLog) witnessNotes(t *testing.T) []string {
	t.Helper()
	notes, err := l.readWitness()
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

func (l *checkpointerLog) readWitness() ([]string, error) {
	raw, err := os.ReadFile(l.witness)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	notes, err := tlog.Split(raw)
	if err != nil {
		return nil, fmt.Errorf("the witness file does not split into notes: %v\n%s", err, raw)
	}
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = string(n)
	}
	return out, nil
}

// checkWitness wants the witness file to hold exactly the stored
// checkpoints' notes, in order, each verifying with the log's key and
// signing its size. A checkpoint is stored before it is given to the
// witness, so while Run runs the file may lag the store a moment: it is
// polled until it holds as many notes, or the deadline.
func (l *checkpointerLog) checkWitness(t *testing.T, cps []*baton.Checkpoint) {
	t.Helper()
	end := time.Now().Add(deadline)
	var notes []string
	for {
		var err error
		notes, err = l.readWitness()
		if err == nil && len(notes) == len(cps) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the witness holds %d notes (%v), the log %d checkpoints (sizes %v)", len(notes), err, len(cps), sizes(cps))
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i, c := range cps {
		if notes[i] != c.Note {
			t.Errorf("witness note %d:\n%s\nwant the stored checkpoint at size %d:\n%s", i, notes[i], c.Size, c.Note)
		}
		opened, err := tlog.Open([]byte(notes[i]), l.key.VerifierKey)
		if err != nil {
			t.Errorf("witness note %d does not verify with the log's key: %v", i, err)
		} else if opened.Size != uint64(c.Size) {
			t.Errorf("witness note %d signs size %d, want %d", i, opened.Size, c.Size)
		}
	}
}

// TestCheckpointerSignsEveryRecords: with Records 5 (and Every an hour)
// the checkpointer signs nothing over an empty log, one checkpoint once 5
// records are in, another at 10, none for the 2 after; each goes to the
// witness file; the log verifies against the witness; cancelling its
// context ends Run.
func TestCheckpointerSignsEveryRecords(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		l := newCheckpointerLog(t, b, time.Hour, 5, false)
		l.start(t)

		l.settle(t)
		if cps := l.stored(t); len(cps) != 0 {
			t.Fatalf("an empty log got checkpoints at sizes %v", sizes(cps))
		}
		if notes := l.witnessNotes(t); len(notes) != 0 {
			t.Fatalf("an empty log's witness holds %d notes", len(notes))
		}

		l.appendActions(t, 5)
		l.waitFor(t, "no checkpoint at 5 records", func(cps []*baton.Checkpoint) bool { return len(cps) == 1 })
		l.appendActions(t, 5)
		cps := l.waitFor(t, "no second checkpoint at 10 records", func(cps []*baton.Checkpoint) bool { return len(cps) == 2 })
		if cps[0].Size < 5 || cps[1].Size < 10 || cps[0].Size != 5 || cps[1].Size != 10 {
			t.Fatalf("checkpoints at sizes %v, want 5 and 10", sizes(cps))
		}
		l.appendActions(t, 2) // 12: fewer than Records new, and Every is far off
		l.settle(t)
		if cps = l.stored(t); len(cps) != 2 {
			t.Fatalf("checkpoints at sizes %v after 2 more records; want still 5 and 10", sizes(cps))
		}
		l.checkWitness(t, cps)

		given := make([]audit.Given, 0, len(cps))
		for _, n := range l.witnessNotes(t) {
			given = append(given, audit.Given{Source: "witness", Note: []byte(n)})
		}
		rep, err := audit.VerifyStoreWith(l.ctx, l.s, audit.VerifyOptions{Checkpoints: given})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.Actions != 12 {
			t.Fatalf("the log does not verify against its witness: %+v", rep)
		}
		checkCheckpoints(t, rep, append(consistent("log", 5, 10), consistent("witness", 5, 10)...))

		l.stop(t)
		// Stopped: no more checkpoints, however many records come.
		l.appendActions(t, 5)
		if cps := l.stored(t); len(cps) != 2 {
			t.Errorf("checkpoints at sizes %v after Run returned", sizes(cps))
		}
	})
}

// TestCheckpointerSignsEveryInterval: with Every 50ms and Records far
// off, a log that grew gets a checkpoint once the interval has passed.
func TestCheckpointerSignsEveryInterval(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		l := newCheckpointerLog(t, b, 50*time.Millisecond, 1000, false)
		l.start(t)
		l.settle(t) // Run has seen the empty log
		if cps := l.stored(t); len(cps) != 0 {
			t.Fatalf("an empty log got checkpoints at sizes %v", sizes(cps))
		}
		l.appendActions(t, 3)
		cps := l.waitFor(t, "no checkpoint of the 3 records after Every", func(cps []*baton.Checkpoint) bool {
			return len(cps) > 0 && cps[len(cps)-1].Size == 3
		})
		l.checkWitness(t, cps)
		l.stop(t)
	})
}

// TestCheckpointerWaitsForEvery: with the clock standing still, records
// fewer than Records get no checkpoint however often Run looks; once the
// clock passes Every they get one, and a log that did not grow gets no
// other.
func TestCheckpointerWaitsForEvery(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		l := newCheckpointerLog(t, b, time.Hour, 1000, true)
		l.start(t)
		l.settle(t)
		l.appendActions(t, 3)
		l.settle(t)
		l.settle(t)
		if cps := l.stored(t); len(cps) != 0 {
			t.Fatalf("checkpoints at sizes %v before Every passed", sizes(cps))
		}
		l.advance(59 * time.Minute)
		l.settle(t)
		if cps := l.stored(t); len(cps) != 0 {
			t.Fatalf("checkpoints at sizes %v before Every passed (59m of 1h)", sizes(cps))
		}
		l.advance(time.Minute)
		cps := l.waitFor(t, "no checkpoint once Every passed", func(cps []*baton.Checkpoint) bool { return len(cps) == 1 })
		if cps[0].Size != 3 {
			t.Fatalf("checkpoint at size %d, want 3", cps[0].Size)
		}
		// An hour more with no new record: nothing new to sign.
		l.advance(2 * time.Hour)
		l.settle(t)
		if cps := l.stored(t); len(cps) != 1 {
			t.Fatalf("checkpoints at sizes %v; the log did not grow after the one at 3", sizes(cps))
		}
		l.checkWitness(t, cps)
		l.stop(t)
	})
}

// TestCheckpointerStartsOnAGrownLog: a log that already holds records
// when Run starts gets its checkpoint at once, whatever Records and Every
// say, and a checkpoint stored already is not signed again.
func TestCheckpointerStartsOnAGrownLog(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		l := newCheckpointerLog(t, b, time.Hour, 1000, true)
		l.appendActions(t, 3)
		l.start(t)
		cps := l.waitFor(t, "no checkpoint of a log with records at start", func(cps []*baton.Checkpoint) bool { return len(cps) == 1 })
		if cps[0].Size != 3 {
			t.Fatalf("checkpoint at size %d, want 3", cps[0].Size)
		}
		l.settle(t)
		l.stop(t)
		l.checkWitness(t, l.stored(t))

		// Restarted over the same log: the checkpoint at 3 is the latest,
		// so nothing is signed and the witness gets nothing more.
		l.start(t)
		l.settle(t)
		l.stop(t)
		if cps := l.stored(t); len(cps) != 1 {
			t.Fatalf("checkpoints at sizes %v after a restart with nothing new", sizes(cps))
		}
		l.checkWitness(t, l.stored(t))
	})
}
