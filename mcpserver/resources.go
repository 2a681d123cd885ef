package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resources agents can subscribe to instead of polling.
const (
	InboxURI       = "baton://inbox"
	issuePrefix    = "baton://issues/"
	issuesTemplate = "baton://issues/{id}"
)

// addResources gives a server (one per principal) the inbox of its
// principal and every work item, both subscribable.
func (f *Factory) addResources(s *mcp.Server, p baton.Principal) {
	s.AddResource(&mcp.Resource{URI: InboxURI, Name: "inbox", MIMEType: "application/json",
		Description: "Messages to you, newest 50, oldest first. Subscribe to be told when one arrives."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			var msgs []*baton.Message
			err := f.Env.Store.View(ctx, func(tx baton.Tx) (err error) {
				msgs, err = tx.ReadMessages(ctx, "", baton.MessageFilter{To: p.Agent, Limit: 50})
				return err
			})
			if err != nil {
				return nil, err
			}
			type view struct {
				ID, AgentID, Role, Body, DeliveryStatus, ThreadID, CreatedAt string
			}
			out := make([]view, 0, len(msgs))
			for _, m := range msgs {
				out = append(out, view{m.ID, m.AgentID, m.Role, m.Body, m.DeliveryStatus, m.ThreadID, baton.Timestamp(m.CreatedAt)})
			}
			return jsonResource(req.Params.URI, map[string]any{"agent": p.Agent, "messages": out})
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: issuesTemplate, Name: "issue", MIMEType: "application/json",
		Description: "A work item (task, issue or bead) by id. Subscribe to be told when it changes."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimPrefix(req.Params.URI, issuePrefix)
			var it *baton.Item
			if err := f.Env.Store.View(ctx, func(tx baton.Tx) (err error) {
				it, err = tx.Item(ctx, id)
				return err
			}); err != nil {
				if baton.ErrorCode(err) == baton.ErrTaskNotFound {
					return nil, mcp.ResourceNotFoundError(req.Params.URI)
				}
				return nil, err
			}
			return jsonResource(req.Params.URI, map[string]any{"id": it.ID, "project": it.Project, "title": it.Title,
				"description": it.Description, "kind": it.Kind, "status": it.Status, "priority": it.Priority,
				"labels": it.Labels, "assignee": it.Assignee, "parent_id": it.ParentID, "progress": it.Progress,
				"updated_at": baton.Timestamp(it.UpdatedAt), "updated_by": it.UpdatedBy})
		})
}

func jsonResource(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// subscribe accepts subscriptions to the inbox and to existing items.
func (f *Factory) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if uri == InboxURI {
		return nil
	}
	if id, ok := strings.CutPrefix(uri, issuePrefix); ok && id != "" {
		return f.Env.Store.View(ctx, func(tx baton.Tx) error {
			_, err := tx.Item(ctx, id)
			if err != nil {
				return mcp.ResourceNotFoundError(uri)
			}
			return nil
		})
	}
	return mcp.ResourceNotFoundError(uri)
}

// Watching is closed once Watch has taken in the events committed before
// it began: every change committed after that reaches the sessions. (A
// change committed before is history, and notifies nobody.)
func (f *Factory) Watching() <-chan struct{} { return f.watching }

// Watch turns committed events into resource-update notifications for
// subscribed sessions until ctx ends: message events update every inbox,
// an event about a work item updates baton://issues/{id}, and an
// access.changed event recomputes every session's tools (Rescope). It reads the
// events from the store, so changes made by other processes on the same
// database are noticed too (within a second).
func (f *Factory) Watch(ctx context.Context) {
	cursors := map[string]int64{}
	// History before the watch begins notifies nobody: take it in first,
	// then subscribe, so nothing committed in between is missed (it lies
	// past the cursors) or taken for history.
	f.drain(ctx, cursors)
	var wake <-chan struct{}
	if f.Env.Bus != nil {
		ch, stop := f.Env.Bus.Subscribe("")
		defer stop()
		wake = ch
	}
	f.began.Do(func() { close(f.watching) })
	poll := time.NewTicker(f.Env.PollEvery())
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-poll.C:
		}
		fresh := f.drain(ctx, cursors)
		// A profile, bundle or token changed: sessions whose tools
		// changed are told so (listchanged.go).
		if accessChanged(fresh) {
			f.Rescope(ctx)
			f.endRevoked(ctx, fresh)
		}
		for _, e := range fresh {
			f.notify(ctx, e)
		}
	}
}

// drain returns every project's events past the cursors and moves them on.
func (f *Factory) drain(ctx context.Context, cursors map[string]int64) []*baton.Event {
	var fresh []*baton.Event
	_ = f.Env.Store.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.Projects(ctx)
		if err != nil {
			return err
		}
		slugs := []string{""}
		for _, p := range ps {
			slugs = append(slugs, p.Slug)
		}
		for _, slug := range slugs {
			for {
				evs, err := tx.Events(ctx, slug, cursors[slug], 500)
				if err != nil {
					return err
				}
				if len(evs) == 0 {
					break
				}
				cursors[slug] = evs[len(evs)-1].Seq
				fresh = append(fresh, evs...)
			}
		}
		return nil
	})
	return fresh
}

func (f *Factory) notify(ctx context.Context, e *baton.Event) {
	var uris []string
	if strings.HasPrefix(e.Type, "message.") || e.Type == "announcement" {
		uris = append(uris, InboxURI)
	}
	if e.Subject != "" {
		uris = append(uris, issuePrefix+e.Subject)
	}
	f.mu.Lock()
	servers := make([]*mcp.Server, 0, len(f.servers))
	for _, s := range f.servers {
		servers = append(servers, s)
	}
	f.mu.Unlock()
	for _, s := range servers {
		for _, u := range uris {
			_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u})
		}
	}
}
