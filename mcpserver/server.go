// Package mcpserver adapts baton's tool registry to the MCP go-sdk: one
// server per principal, stdio and Streamable HTTP transports, and the
// middleware that answers bad calls with baton's structured errors.
package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Instructions are sent to clients on initialize.
const Instructions = "baton is the coordination server for teams of coding agents. One work item is a task, an issue " +
	"and a bead at once; claim work before changing it (claim_next), record findings and learnings as you go. " +
	"Every failure is a result with isError and structuredContent " +
	`{"error": {code, type, message, details, next_action_hint}}; follow next_action_hint.`

// Factory builds MCP servers over one registry and environment. Servers are
// cached per principal, because a server's tool handlers run as the
// principal it was built for.
type Factory struct {
	Registry *tool.Registry
	Env      *tool.Env
	Version  string
	Log      *slog.Logger
	// RateLimit is the tool calls per second each agent may make, in
	// bursts of BurstSeconds' worth (baton serve/mcp --rate-limit); 0 means no limit.
	RateLimit float64

	limits   rateLimits
	cache    *mcp.SchemaCache
	mu       sync.Mutex
	servers  map[baton.Principal]*mcp.Server
	offered  map[baton.Principal]*offered // the tools each server offers now
	bearers  bearers                      // the token each HTTP session came with
	trackers []*tracker                   // of the HTTP handlers: their /sse sessions by token
	inflight sync.WaitGroup               // tool calls under way, drained on shutdown
	presence presence
	sessions map[*mcp.ServerSession]*tool.Session // scheduler caps per session
	watching chan struct{}                        // closed when Watch has taken in history (Watching)
	began    sync.Once                            // closes watching once
}

// NewFactory returns a factory for reg and env.
func NewFactory(reg *tool.Registry, env *tool.Env, version string) *Factory {
	return &Factory{Registry: reg, Env: env, Version: version, cache: mcp.NewSchemaCache(),
		servers: map[baton.Principal]*mcp.Server{}, offered: map[baton.Principal]*offered{}, watching: make(chan struct{})}
}

// Server returns the MCP server whose calls run as p.
func (f *Factory) Server(p baton.Principal) *mcp.Server {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.servers[p]; ok {
		return s
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "baton", Title: "baton", Version: f.Version}, &mcp.ServerOptions{
		Instructions:       Instructions,
		Logger:             f.Log,
		SchemaCache:        f.cache,
		SubscribeHandler:   f.subscribe,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		// The tools come and go with the principal's scope (see
		// offered), so tools/list_changed is promised even while the
		// scope is empty.
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{},
			Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.AddReceivingMiddleware(f.track(p), f.scoped(p), f.validateCalls)
	s.AddReceivingMiddleware(f.limited(p)) // outermost: a flood is refused before any other work
	f.addResources(s, p)
	o := &offered{server: s, principal: p}
	// The server offers the tools of p's scope; a scope that cannot be
	// computed offers none, and tools/list says why.
	if scope, err := f.Env.Scope(context.Background(), p); err == nil {
		f.offer(o, scope)
		// An operator learns at once that a profile lacks what its role needs.
		if f.Log != nil {
			for _, w := range scope.Warnings {
				f.Log.Warn("tool scope", "agent", p.Agent, "warning", w)
			}
		}
	}
	f.servers[p] = s
	f.offered[p] = o
	return s
}

// scoped enforces p's tool scope on both sides: tools/list shows only its
// tools, and a call to any other tool (registered or not) is refused with
// ERR_PERMISSION_DENIED before its arguments are even looked at. Calls
// carry their session, whose scheduler caps they count against.
func (f *Factory) scoped(p baton.Principal) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			// Revoking the token ends the session, or the listen stream.
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && (!isSessionless(ctx) || method == "subscriptions/listen") {
				f.noteBearer(ss, req.GetExtra())
			}
			switch method {
			case "tools/list":
				scope, serr := f.Env.Scope(ctx, p)
				if serr != nil {
					return nil, scopeError(serr)
				}
				f.reoffer(p, scope)
				res, err := next(ctx, method, req)
				list, ok := res.(*mcp.ListToolsResult)
				if err != nil || !ok {
					return res, err
				}
				// The server offers just the scope's tools; filtering again
				// covers a list served while a concurrent request of an
				// older scope brings them back in line.
				kept := list.Tools[:0:0]
				for _, t := range list.Tools {
					if scope.Listed(t.Name) {
						kept = append(kept, t)
					}
				}
				list.Tools = kept
				return list, nil
			case "tools/call":
				call, ok := req.(*mcp.CallToolRequest)
				if !ok {
					break
				}
				scope, err := f.Env.Scope(ctx, p)
				if err != nil {
					return tool.ErrorResult(err), nil
				}
				if !scope.Has(call.Params.Name) {
					return tool.ErrorResult(tool.PermissionDenied(call.Params.Name, p, scope)), nil
				}
				// A scope newer than the server's tools (a grant seen
				// here first) is offered before the call looks its tool up.
				f.reoffer(p, scope)
				// Sessionless HTTP calls bring their caller's (sessionless.go).
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && !isSessionless(ctx) {
					ctx = tool.WithSession(ctx, f.session(ss))
				}
			}
			return next(ctx, method, req)
		}
	}
}

// scopeError turns a failure to compute a scope (an unreadable tool-scope
// file, a profile that does not exist) into a JSON-RPC error with baton's
// envelope as data.
func scopeError(err error) error {
	e := baton.AsError(err)
	data, _ := json.Marshal(baton.Envelope{Error: e})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Message + "; " + e.Hint, Data: data}
}

// session is the tool.Session of an MCP session, dropped when it ends.
func (f *Factory) session(ss *mcp.ServerSession) *tool.Session {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.sessions[ss]; ok {
		return s
	}
	if f.sessions == nil {
		f.sessions = map[*mcp.ServerSession]*tool.Session{}
	}
	s := &tool.Session{}
	f.sessions[ss] = s
	go func() {
		_ = ss.Wait()
		f.mu.Lock()
		delete(f.sessions, ss)
		f.mu.Unlock()
	}()
	return s
}

// validateCalls answers a call to an unknown tool with a hint naming the
// tools, and counts the calls under way for Drain. (Arguments are checked
// by each tool's handler with baton's validator, so a bad call gets
// baton's envelope naming the field and the rule.)
func (f *Factory) validateCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		if _, ok := f.Registry.Get(call.Params.Name); !ok {
			e := tool.UnknownTool(call.Params.Name, f.Registry)
			data, _ := json.Marshal(baton.Envelope{Error: e})
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Message + "; " + e.Hint, Data: data}
		}
		f.inflight.Add(1)
		defer f.inflight.Done()
		return next(ctx, method, req)
	}
}

// Drain waits until no tool call is under way, or ctx ends.
func (f *Factory) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() { f.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CloseSessions ends every live MCP session, which ends their streams.
func (f *Factory) CloseSessions() {
	f.mu.Lock()
	servers := make([]*mcp.Server, 0, len(f.servers))
	for _, s := range f.servers {
		servers = append(servers, s)
	}
	f.mu.Unlock()
	for _, s := range servers {
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
	}
}
