package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// The hub is the one reader of the event log for every open page. While
// at least one page listens it reads the new events of every project at
// most every readGap (woken by the bus, or by a poll for other processes'
// writes), keeps the latest ringSize in memory and wakes the pages, each
// of which takes what it has not seen from the ring. However many pages
// are open, the database sees one reader; with none open, none.

const (
	ringSize    = 1024
	readBatch   = 1000                   // events per project per read
	readGap     = 200 * time.Millisecond // bounds the hub's reads while agents write fast
	maxLive     = 256                    // open live streams at once
	keepAlive   = 15 * time.Second
	readTimeout = 10 * time.Second
)

// liveEvent is what a page hears about a change: enough to decide whether
// to refresh and to say what happened, never the change's data.
type liveEvent struct {
	n       int64
	Project string `json:"project"`
	Seq     int64  `json:"seq"`
	Type    string `json:"type"`
	Subject string `json:"subject,omitempty"`
	Agent   string `json:"agent,omitempty"`
	At      string `json:"at"`
}

type listener struct{ wake chan struct{} }

type hub struct {
	env   *tool.Env
	log   *slog.Logger
	epoch string // ids are EPOCH:N, so a page resuming across a restart is told to reload

	mu        sync.Mutex
	listeners map[*listener]struct{}
	ring      []liveEvent // oldest first, at most ringSize
	next      int64       // n of the next event
	floor     int64       // events after floor are all in order; a page behind it reloads
	cursors   map[string]int64
	ready     chan struct{}      // closed when the running reader has found where each log ends
	gen       int64              // counts readers started; a stopped one's late read is dropped
	quit      chan struct{}      // closed by close: pages waiting for ready give up
	stop      context.CancelFunc // stops the reader; nil when none runs
	done      chan struct{}
	closed    bool
}

func newHub(env *tool.Env, log *slog.Logger) *hub {
	return &hub{env: env, log: log, epoch: strconv.FormatInt(time.Now().UnixNano()%1e9, 36),
		listeners: map[*listener]struct{}{}, next: 1, quit: make(chan struct{})}
}

// join adds a listener, starting the reader for the first. It returns
// the n of the newest event the listener may take as already seen and a
// channel closed once the reader knows where the logs end. A reader that
// starts forgets the previous one's events: nobody listened meanwhile, so
// a page resuming from before must reload.
func (h *hub) join() (*listener, int64, <-chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.listeners) >= maxLive {
		return nil, 0, nil, false
	}
	l := &listener{wake: make(chan struct{}, 1)}
	h.listeners[l] = struct{}{}
	if h.stop == nil {
		ctx, cancel := context.WithCancel(context.Background())
		h.stop, h.done, h.ready = cancel, make(chan struct{}), make(chan struct{})
		// One id is skipped: it stands for whatever came while nobody
		// listened, so a page that saw the id before it is behind.
		h.ring, h.cursors, h.floor = nil, nil, h.next
		h.next++
		h.gen++
		go h.read(ctx, h.gen, h.done, h.ready)
	}
	return l, h.next - 1, h.ready, true
}

// leave removes a listener; the last one stops the reader.
func (h *hub) leave(l *listener) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.listeners, l)
	if len(h.listeners) == 0 && h.stop != nil {
		h.stop()
		h.stop = nil
		h.gen++ // whatever the stopped reader still reads is dropped
	}
}

func (h *hub) close() {
	h.mu.Lock()
	if !h.closed {
		close(h.quit)
	}
	h.closed = true
	stop, done := h.stop, h.done
	h.stop = nil
	for l := range h.listeners {
		close(l.wake)
		delete(h.listeners, l)
	}
	h.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// since returns the events after n, and false when some of them have left
// the ring (the page must reload to be sure it missed nothing).
func (h *hub) since(n int64) ([]liveEvent, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n < h.floor {
		return nil, false
	}
	if len(h.ring) == 0 || n >= h.ring[len(h.ring)-1].n {
		return nil, n < h.next
	}
	if n < h.ring[0].n-1 {
		return nil, false
	}
	i := int(n - h.ring[0].n + 1)
	return append([]liveEvent(nil), h.ring[i:]...), true
}

func (h *hub) read(ctx context.Context, gen int64, done, ready chan struct{}) {
	defer close(done)
	var wake <-chan struct{}
	if h.env.Bus != nil {
		var unsub func()
		wake, unsub = h.env.Bus.Subscribe("")
		defer unsub()
	}
	poll := time.NewTicker(h.env.PollEvery())
	defer poll.Stop()
	first := true
	for {
		err := h.readOnce(ctx, gen, first)
		if err != nil && ctx.Err() == nil {
			h.log.Warn("dashboard: reading events", "err", err)
		}
		if first && err == nil {
			close(ready)
			first = false
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(readGap):
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-poll.C:
		}
	}
}

// readOnce appends every project's new events to the ring; the first
// read only finds where each project's log ends. Events without a project
// (messages of a session that names none) are read as project "".
func (h *hub) readOnce(ctx context.Context, gen int64, first bool) error {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	h.mu.Lock()
	cursors := make(map[string]int64, len(h.cursors))
	for k, v := range h.cursors {
		cursors[k] = v
	}
	h.mu.Unlock()
	var got []*baton.Event
	err := h.env.Store.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.Projects(ctx)
		if err != nil {
			return err
		}
		slugs := []string{""}
		for _, p := range ps {
			slugs = append(slugs, p.Slug)
		}
		for _, slug := range slugs {
			after, known := cursors[slug]
			if !known && first {
				// Where the log ends now: what came before is on the page.
				if cursors[slug], err = tx.LastEventSeq(ctx, slug); err != nil {
					return err
				}
				continue
			}
			// A project that appears after the first read is new: all
			// its events are news. A burst past readBatch waits for the
			// next read (within readGap), so one read stays short.
			evs, err := tx.Events(ctx, slug, after, readBatch)
			if err != nil {
				return err
			}
			for _, e := range evs {
				got = append(got, e)
				after = e.Seq
			}
			cursors[slug] = after
		}
		return nil
	})
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen {
		return nil // a reader stopped meanwhile: its news belong to no one
	}
	h.cursors = cursors
	if len(got) == 0 {
		return nil
	}
	for _, e := range got {
		h.ring = append(h.ring, liveEvent{n: h.next, Project: e.Project, Seq: e.Seq, Type: e.Type, Subject: e.Subject,
			Agent: e.Agent, At: baton.Timestamp(e.At)})
		h.next++
	}
	if over := len(h.ring) - ringSize; over > 0 {
		h.ring = append(h.ring[:0:0], h.ring[over:]...)
	}
	for l := range h.listeners {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// live streams changes to a page as Server-Sent Events: "change" events
// with ids EPOCH:N, and "reset" when the page may have missed some (it
// then reloads its data). A page reconnecting with Last-Event-ID resumes
// where it was.
func (s *Server) live(w http.ResponseWriter, r *http.Request, sess *session) {
	l, pos, ready, ok := s.hub.join()
	if !ok {
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusTooManyRequests, baton.Errorf(baton.ErrRateLimited,
			"%d dashboard pages are listening already", maxLive).WithHint("close some dashboard tabs"))
		return
	}
	defer s.hub.leave(l)
	reset := false
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		epoch, n, _ := strings.Cut(last, ":")
		v, err := strconv.ParseInt(n, 10, 64)
		if epoch == s.hub.epoch && err == nil && v <= pos {
			pos = v
		} else {
			reset = true
		}
	}
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 2000\n: baton dashboard live\n\n")
	flush()
	// The page was rendered before this stream began: once the reader
	// knows where the logs end, "hello" tells the page to fetch its data
	// again (or "reset", after a gap), so nothing between is missed.
	select {
	case <-ready:
	case <-r.Context().Done():
		return
	case <-s.hub.quit:
		return
	}
	if _, whole := s.hub.since(pos); !whole {
		reset = true
	}
	kind := "hello"
	switch {
	case reset:
		kind = "reset"
		_, pos, _ = s.hub.latest()
	case r.Header.Get("Last-Event-ID") != "":
		kind = "resumed"
	}
	fmt.Fprintf(w, "id: %s:%d\nevent: %s\ndata: {}\n\n", s.hub.epoch, pos, kind)
	flush()
	ka := time.NewTicker(keepAlive)
	defer ka.Stop()
	for {
		if !s.auth.live(sess) {
			return // logged out or expired: the stream ends with the session
		}
		evs, whole := s.hub.since(pos)
		if !whole {
			_, pos, _ = s.hub.latest()
			if _, err := fmt.Fprintf(w, "id: %s:%d\nevent: reset\ndata: {}\n\n", s.hub.epoch, pos); err != nil {
				return
			}
		}
		for _, e := range evs {
			b, _ := json.Marshal(e)
			if _, err := fmt.Fprintf(w, "id: %s:%d\nevent: change\ndata: %s\n\n", s.hub.epoch, e.n, b); err != nil {
				return
			}
			pos = e.n
		}
		if len(evs) > 0 || !whole {
			flush()
		}
		select {
		case <-r.Context().Done():
			return
		case _, open := <-l.wake:
			if !open {
				return
			}
		case <-ka.C:
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			flush()
		}
	}
}

// latest is the n of the newest event.
func (h *hub) latest() (string, int64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.epoch, h.next - 1, true
}
