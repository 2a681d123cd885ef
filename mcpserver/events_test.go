package mcpserver_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
)

type sse struct {
	id, event, data string
}

// stream opens /events and returns a reader of events and a way to drop
// the connection.
func stream(t *testing.T, url string, lastID string) (<-chan sse, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET /events: %v %v", err, resp)
	}
	out := make(chan sse, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var cur sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if cur.id != "" {
					out <- cur
				}
				cur = sse{}
			case strings.HasPrefix(line, "id: "):
				cur.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				cur.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				cur.data = line[6:]
			}
		}
	}()
	return out, cancel
}

func next(t *testing.T, ch <-chan sse) sse {
	t.Helper()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(20 * time.Second):
		t.Fatal("no event arrived")
	}
	return sse{}
}

// TestEventsResumeAfterDrop: a subscriber that drops its connection and
// reconnects with Last-Event-ID gets exactly the events it missed, in
// order, then live ones as they commit.
func TestEventsResumeAfterDrop(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	k.Env.Bus = events.NewBus()
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	srv := httptest.NewServer(f.Handler(mcpserver.HTTPOptions{Principal: func(*http.Request) baton.Principal { return k.Principal }}))
	defer srv.Close()

	k.OK("task_create", `{"title":"one","project":"colibri"}`)
	ch, drop := stream(t, srv.URL, "0")
	if e := next(t, ch); e.id != "1" || e.event != "task.created" || !strings.Contains(e.data, `"subject":"COL-1"`) {
		t.Fatalf("first event = %+v", e)
	}
	k.OK("task_update", `{"task_id":"COL-1","status":"todo"}`)
	if e := next(t, ch); e.id != "2" || e.event != "task.updated" {
		t.Fatalf("live event = %+v", e)
	}
	drop()

	// While nobody listens, more happens.
	k.OK("task_create", `{"title":"two","project":"colibri"}`)
	k.OK("add_comment", `{"issue_id":"COL-2","content":"missed while away"}`)

	ch, drop = stream(t, srv.URL, "2")
	defer drop()
	for _, want := range []struct{ id, event string }{{"3", "task.created"}, {"4", "comment.added"}} {
		if e := next(t, ch); e.id != want.id || e.event != want.event {
			t.Fatalf("resumed event = %+v, want %+v", e, want)
		}
	}
	k.OK("task_create", `{"title":"three","project":"colibri"}`)
	if e := next(t, ch); e.id != "5" {
		t.Fatalf("event after resuming = %+v", e)
	}
}

// TestEventsWithoutCursorStartNow: a new subscriber without a cursor sees
// what happens from now on, not the history.
func TestEventsWithoutCursorStartNow(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	k.Env.Bus = events.NewBus()
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	srv := httptest.NewServer(f.Handler(mcpserver.HTTPOptions{Principal: func(*http.Request) baton.Principal { return k.Principal }}))
	defer srv.Close()
	k.OK("task_create", `{"title":"old","project":"colibri"}`)
	ch, drop := stream(t, srv.URL, "")
	defer drop()
	k.OK("task_create", `{"title":"new","project":"colibri"}`)
	if e := next(t, ch); e.id != "2" {
		t.Fatalf("first event = %+v, want the new one (2)", e)
	}
	resp, err := http.Get(srv.URL + "/events?project=nope")
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown project: %v %v", err, resp)
	}
	resp.Body.Close()
}
