package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/baton-dev/baton"
)

// eventView is an event as SSE data.
type eventView struct {
	Project string          `json:"project"`
	Seq     int64           `json:"seq"`
	Type    string          `json:"type"`
	Subject string          `json:"subject,omitempty"`
	Agent   string          `json:"agent,omitempty"`
	At      string          `json:"at"`
	Data    json.RawMessage `json:"data"`
}

// serveEvents streams a project's events as Server-Sent Events. The id of
// each is its sequence number, so a client that reconnects with
// Last-Event-ID (or ?after=N) resumes after it and misses nothing still
// within the retention window; without either it starts with what comes next.
func (f *Factory) serveEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	project := r.URL.Query().Get("project")
	var after int64 = -1
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && v != "" {
			after = n
			break
		}
	}
	err := f.Env.Store.View(ctx, func(tx baton.Tx) error {
		if project == "" {
			ps, err := tx.Projects(ctx)
			if err != nil {
				return err
			}
			if len(ps) != 1 {
				return baton.Errorf(baton.ErrInvalidInput, "there are %d projects: say which with ?project=SLUG", len(ps)).
					WithDetails("field", "project", "constraint", "required")
			}
			project = ps[0].Slug
		} else if _, err := tx.Project(ctx, project); err != nil {
			return err
		}
		if after >= 0 {
			return nil
		}
		// No cursor: start after the newest event.
		var err error
		after, err = tx.LastEventSeq(ctx, project)
		return err
	})
	if err != nil {
		e := baton.AsError(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(baton.Envelope{Error: e})
		return
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, ": baton events for %s after %d\n\n", project, after)
	if flusher != nil {
		flusher.Flush()
	}
	wake, stop := f.Env.Bus.Subscribe(project)
	defer stop()
	poll := time.NewTicker(f.Env.PollEvery())
	defer poll.Stop()
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		var evs []*baton.Event
		if err := f.Env.Store.View(ctx, func(tx baton.Tx) (err error) {
			evs, err = tx.Events(ctx, project, after, 500)
			return err
		}); err != nil {
			return
		}
		for _, e := range evs {
			b, _ := json.Marshal(eventView{Project: e.Project, Seq: e.Seq, Type: e.Type, Subject: e.Subject, Agent: e.Agent,
				At: baton.Timestamp(e.At), Data: e.Data})
			if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, b); err != nil {
				return
			}
			after = e.Seq
		}
		if flusher != nil && len(evs) > 0 {
			flusher.Flush()
		}
		if len(evs) == 500 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-poll.C:
		case <-keepalive.C:
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}
