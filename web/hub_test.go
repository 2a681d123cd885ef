package web

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// sse is one open /live stream.
type sse struct {
	t      *testing.T
	res    *http.Response
	lines  chan string
	cancel context.CancelFunc
}

type sseEvent struct{ id, kind, data string }

func (d *dash) listen(lastID string) *sse {
	d.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.ts.URL+"/live", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := d.client.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		d.t.Fatalf("/live: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &sse{t: d.t, res: res, lines: make(chan string, 1024), cancel: cancel}
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	d.t.Cleanup(s.close)
	return s
}

func (s *sse) close() {
	s.cancel()
	s.res.Body.Close()
}

// next returns the next event (comments skipped) within wait.
func (s *sse) next(wait time.Duration) (sseEvent, bool) {
	var e sseEvent
	deadline := time.After(wait)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return e, false
			}
			switch {
			case l == "" && e.kind != "":
				return e, true
			case strings.HasPrefix(l, "id: "):
				e.id = l[4:]
			case strings.HasPrefix(l, "event: "):
				e.kind = l[7:]
			case strings.HasPrefix(l, "data: "):
				e.data = l[6:]
			}
		case <-deadline:
			return e, false
		}
	}
}

// until skips events until one of kind whose data holds want.
func (s *sse) until(kind, want string, wait time.Duration) sseEvent {
	s.t.Helper()
	end := time.Now().Add(wait)
	for time.Now().Before(end) {
		e, ok := s.next(time.Until(end))
		if !ok {
			break
		}
		if e.kind == kind && strings.Contains(e.data, want) {
			return e
		}
	}
	s.t.Fatalf("no %s event with %q within %s", kind, want, wait)
	return sseEvent{}
}

func TestLiveStreamCarriesChangesWithinASecondAndResumes(t *testing.T) {
	d := newDash(t)
	s := d.listen("")
	if e, ok := s.next(5 * time.Second); !ok || e.kind != "hello" {
		t.Fatalf("first event: %+v %v", e, ok)
	}
	start := time.Now()
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "one"})
	first := s.until("change", `"type":"message.sent"`, time.Second)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the change took %s to arrive", took)
	}
	if !strings.Contains(first.data, `"agent":"agent-bob"`) || strings.Contains(first.data, "one") {
		t.Fatalf("change data: %s (it names the change, never carries its text)", first.data)
	}
	s.close()
	waitNoReader(t, d)

	// Two changes while away; resuming from the first event's id gets them.
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "two"})
	d.As("agent-carol").OK("send_message", map[string]any{"to": "user", "body": "three"})
	// The reader stopped with its last page, so a page resuming from
	// before is told to reload rather than miss what came meanwhile.
	r := d.listen(first.id)
	if e, ok := r.next(5 * time.Second); !ok || e.kind != "reset" {
		t.Fatalf("resume after the reader stopped: %+v %v", e, ok)
	}
	// While another page keeps the reader running, resuming loses nothing.
	keep := d.listen("")
	keep.until("hello", "", 5*time.Second)
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "four"})
	mark := keep.until("change", `"agent":"agent-bob"`, 2*time.Second)
	r.close()
	d.As("agent-carol").OK("send_message", map[string]any{"to": "user", "body": "five"})
	keep.until("change", `"agent":"agent-carol"`, 2*time.Second)
	again := d.listen(mark.id)
	if e, ok := again.next(5 * time.Second); !ok || e.kind != "resumed" {
		t.Fatalf("resume: %+v %v", e, ok)
	}
	again.until("change", `"agent":"agent-carol"`, 2*time.Second)

	// An id of another server run (epoch) is a reset.
	other := d.listen("zzz:5")
	if e, ok := other.next(5 * time.Second); !ok || e.kind != "reset" {
		t.Fatalf("foreign id: %+v %v", e, ok)
	}
}

func TestOneReaderServesEveryPageAndStopsWithTheLast(t *testing.T) {
	d := newDash(t)
	var pages []*sse
	for range 5 {
		p := d.listen("")
		p.until("hello", "", 5*time.Second)
		pages = append(pages, p)
	}
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "all of you"})
	for _, p := range pages {
		p.until("change", "message.sent", 2*time.Second)
	}
	if n := d.Env.Bus.Len(); n != 1 {
		t.Fatalf("%d bus subscriptions for 5 pages, want the hub's one", n)
	}
	for _, p := range pages {
		p.close()
	}
	waitNoReader(t, d)
}

// waitNoReader waits for the hub's reader to stop (no page listens).
func waitNoReader(t *testing.T, d *dash) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for d.Env.Bus.Len() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the reader still runs with no page open (%d subscriptions)", d.Env.Bus.Len())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLiveNeedsALogin(t *testing.T) {
	d := newDash(t)
	st, _ := fetch(t, newClient(t), http.MethodGet, d.ts.URL+"/live", nil, map[string]string{"Accept": "text/event-stream"})
	if st != http.StatusUnauthorized {
		t.Fatalf("/live without a login: %d", st)
	}
}

// Messages of a session that names no project are events of project "":
// the live stream carries them too.
func TestLiveCarriesEventsWithoutAProject(t *testing.T) {
	d := newDash(t)
	s := d.listen("")
	s.until("hello", "", 5*time.Second)
	ctx := context.Background()
	if err := d.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.AppendEvent(ctx, &baton.Event{Type: "message.sent", Agent: "agent-nowhere"})
	}); err != nil {
		t.Fatal(err)
	}
	d.Env.Bus.Publish("")
	s.until("change", `"agent":"agent-nowhere"`, 2*time.Second)
}
