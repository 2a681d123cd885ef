package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool list changes. A server serves one principal, so all its sessions
// have the same tools: the principal's scope. The server offers exactly
// those tools, and when the scope changes (a profile edited, a tool
// granted or taken away, a project's bundle replaced, by this process or
// any other on the database) it adds and removes tools to match; the SDK
// then sends notifications/tools/list_changed to that server's sessions,
// and to no other. A server whose scope did not change sends nothing.

// offered is what one principal's server offers now.
type offered struct {
	server    *mcp.Server
	principal baton.Principal

	mu    sync.Mutex
	scope *tool.Scope     // the scope last offered (a cached value: same pointer, same scope)
	names map[string]bool // the tools bound on server
}

// offer brings o's server's tools in line with scope and reports whether
// they changed.
func (f *Factory) offer(o *offered, scope *tool.Scope) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.scope == scope {
		return false
	}
	o.scope = scope
	want := map[string]bool{}
	var add []tool.Tool
	for _, t := range f.Registry.All() {
		name := t.Spec().Name
		if !scope.Has(name) {
			continue
		}
		want[name] = true
		if !o.names[name] {
			add = append(add, t)
		}
	}
	var remove []string
	for name := range o.names {
		if !want[name] {
			remove = append(remove, name)
		}
	}
	o.names = want
	if len(add) == 0 && len(remove) == 0 {
		return false
	}
	p := o.principal
	who := func(context.Context, *mcp.CallToolRequest) baton.Principal { return p }
	for _, t := range add {
		t.Bind(o.server, f.Env, who)
	}
	if len(remove) > 0 {
		o.server.RemoveTools(remove...)
	}
	return true
}

// reoffer brings p's server in line with scope, when p has one.
func (f *Factory) reoffer(p baton.Principal, scope *tool.Scope) {
	f.mu.Lock()
	o := f.offered[p]
	f.mu.Unlock()
	if o != nil {
		f.offer(o, scope)
	}
}

// Rescope recomputes, from the store, the scope of every principal this
// factory has a server for, and brings each server's tools in line; the
// sessions of the servers whose tools changed get
// notifications/tools/list_changed (the SDK sends it, batched, a few
// milliseconds later). It returns the principals whose tools changed.
// Watch calls it on every access.changed event.
func (f *Factory) Rescope(ctx context.Context) []baton.Principal {
	f.Env.ForgetScopes()
	f.mu.Lock()
	all := make([]*offered, 0, len(f.offered))
	for _, o := range f.offered {
		all = append(all, o)
	}
	f.mu.Unlock()
	var changed []baton.Principal
	for _, o := range all {
		scope, err := f.Env.Scope(ctx, o.principal)
		if err != nil {
			// tools/list and calls report it; the tools stay as they were.
			if f.Log != nil {
				f.Log.Warn("tool scope", "agent", o.principal.Agent, "error", err)
			}
			continue
		}
		if f.offer(o, scope) {
			changed = append(changed, o.principal)
		}
	}
	return changed
}

// accessChanged reports whether evs hold a change to what decides tools.
func accessChanged(evs []*baton.Event) bool {
	for _, e := range evs {
		if e.Type == events.AccessChanged {
			return true
		}
	}
	return false
}

// Revoked tokens. A session over HTTP runs as its token's principal, which
// several tokens may share (a rotation), so a revocation changes no
// server's tools: it ends the sessions opened with the revoked token,
// whose every later request would be refused anyway, and which must stop
// hearing notifications at once. Under the sessionless protocol
// (2026-07-28) the only thing that lasts is a subscriptions/listen
// stream: that is what ends.

// bearers remembers the bearer token (by hash) each HTTP session came
// with.
type bearers struct {
	mu sync.Mutex
	m  map[*mcp.ServerSession]string
}

// noteBearer records the token of ss's request, the first time ss is seen
// with one, and forgets it when ss ends.
func (f *Factory) noteBearer(ss *mcp.ServerSession, extra *mcp.RequestExtra) {
	if extra == nil || extra.Header == nil {
		return // stdio, or HTTP without tokens
	}
	token, ok := bearer(&http.Request{Header: extra.Header})
	if !ok {
		return
	}
	b := &f.bearers
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, seen := b.m[ss]; seen {
		return
	}
	if b.m == nil {
		b.m = map[*mcp.ServerSession]string{}
	}
	b.m[ss] = TokenHash(token)
	go func() {
		_ = ss.Wait()
		b.mu.Lock()
		delete(b.m, ss)
		b.mu.Unlock()
	}()
}

// endRevoked closes the sessions whose token is revoked, when evs revoke
// tokens: Streamable HTTP sessions and listen streams by the bearer they
// came with, /sse sessions (whose requests the SDK does not show the
// middleware) by the token id their GET was admitted with.
func (f *Factory) endRevoked(ctx context.Context, evs []*baton.Event) {
	ids := map[string]bool{} // the revoked tokens, by id
	for _, e := range evs {
		var a events.Access
		if e.Type == events.AccessChanged && json.Unmarshal(e.Data, &a) == nil {
			for _, id := range a.Tokens {
				ids[id] = true
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	revoked := map[string]bool{} // by hash
	if err := f.Env.Store.View(ctx, func(tx baton.Tx) error {
		toks, err := tx.Tokens(ctx)
		for _, t := range toks {
			if !t.Active() {
				revoked[t.Hash] = true
				ids[t.ID] = true
			}
		}
		return err
	}); err != nil && f.Log != nil {
		// The events' token ids still end the /sse sessions.
		f.Log.Warn("revoked tokens", "error", err)
	}
	f.bearers.mu.Lock()
	var end []*mcp.ServerSession
	for ss, hash := range f.bearers.m {
		if revoked[hash] {
			end = append(end, ss)
		}
	}
	f.bearers.mu.Unlock()
	for _, ss := range end {
		_ = ss.Close()
	}
	f.mu.Lock()
	trackers := slices.Clone(f.trackers)
	f.mu.Unlock()
	for _, tr := range trackers {
		tr.endTokens(ids)
	}
}
