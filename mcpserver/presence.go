package mcpserver

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baton-dev/baton"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// presence tracks this process's live MCP sessions in the store, where
// every process on the database (and list_agents) sees them.
type presence struct {
	mu       sync.Mutex
	sessions map[any]*baton.SessionPresence // by *mcp.ServerSession, or a sessionless HTTP caller's state
	counter  atomic.Int64
	// writes are the sessions whose presence is still being recorded
	// (sessionUp): ServeIO waits for them, so that a stdio session's
	// record and its close reach the store before baton closes it.
	writes sync.WaitGroup
}

func (f *Factory) now() time.Time {
	if f.Env.Clock != nil {
		return f.Env.Clock().UTC()
	}
	return time.Now().UTC()
}

// track records a session as present on its first request, whatever the
// protocol version (newer ones need no initialized notification).
func (f *Factory) track(p baton.Principal) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			// Sessionless HTTP calls are counted by their caller (sessionless.go).
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && !isSessionless(ctx) {
				f.presence.mu.Lock()
				_, known := f.presence.sessions[ss]
				f.presence.mu.Unlock()
				if !known {
					f.sessionUp(ss, p)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// sessionUp records a session, in the background, and, when it ends,
// closes it.
func (f *Factory) sessionUp(ss *mcp.ServerSession, p baton.Principal) {
	id := ss.ID()
	if id == "" {
		// stdio sessions have no id on the wire; the process names them.
		id = fmt.Sprintf("stdio-%d-%d", os.Getpid(), f.presence.counter.Add(1))
	}
	now := f.now()
	s := &baton.SessionPresence{ID: id, Agent: p.Agent, ConnectedAt: now, LastSeen: now}
	f.presence.mu.Lock()
	if f.presence.sessions == nil {
		f.presence.sessions = map[any]*baton.SessionPresence{}
	}
	if _, dup := f.presence.sessions[ss]; dup {
		f.presence.mu.Unlock()
		return
	}
	f.presence.sessions[ss] = s
	f.presence.mu.Unlock()
	f.presence.writes.Add(1)
	go func() {
		defer f.presence.writes.Done()
		// Recorded beside the session's first request, not before it:
		// the store may still be opening (baton mcp answers initialize
		// without it), and presence is no part of any answer.
		f.touch(context.Background(), s)
		_ = ss.Wait()
		f.presence.mu.Lock()
		delete(f.presence.sessions, ss)
		f.presence.mu.Unlock()
		_ = f.Env.Store.Update(context.Background(), func(tx baton.Tx) error {
			return tx.CloseSession(context.Background(), s.ID, f.now())
		})
	}()
}

func (f *Factory) touch(ctx context.Context, s *baton.SessionPresence) {
	if err := f.Env.Store.Update(ctx, func(tx baton.Tx) error { return tx.TouchSession(ctx, s) }); err != nil && f.Log != nil {
		f.Log.Warn("recording presence", "session", s.ID, "err", err)
	}
}

// Heartbeat keeps this process's live sessions present until ctx ends; a
// process that dies stops beating, and its agents drop out within
// baton.PresenceWindow.
func (f *Factory) Heartbeat(ctx context.Context) {
	t := time.NewTicker(baton.PresenceWindow / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f.presence.mu.Lock()
		live := make([]*baton.SessionPresence, 0, len(f.presence.sessions))
		for _, s := range f.presence.sessions {
			s.LastSeen = f.now()
			c := *s
			live = append(live, &c)
		}
		f.presence.mu.Unlock()
		for _, s := range live {
			f.touch(ctx, s)
		}
	}
}
