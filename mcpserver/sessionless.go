package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// sessionlessVersion is the first MCP protocol version without sessions
// (SEP-2575): every request carries its version in the MCP-Protocol-Version
// header and its client's details in _meta, and there is no initialize.
// go-sdk v1.8.0 serves it only from a stateless handler and answers it with
// 400 on a stateful one, so baton routes such requests to a stateless
// handler of its own.
const sessionlessVersion = "2026-07-28"

// sessionlessRequest reports whether r speaks the sessionless protocol.
// Dates compare as strings.
func sessionlessRequest(r *http.Request) bool {
	return r.Header.Get("Mcp-Protocol-Version") >= sessionlessVersion
}

// sessionlessState is what baton keeps for a caller of the sessionless
// protocol in place of a session: one scheduler-cap account and one
// presence record, shared by its requests until none has come for the
// session timeout. Without it every request would be a fresh session, and
// a scheduler token could create without limit.
type sessionlessState struct {
	key      string
	tools    *tool.Session
	presence *baton.SessionPresence
	refs     int         // requests under way
	timer    *time.Timer // runs while refs is 0
}

type sessionlessStates struct {
	mu sync.Mutex
	m  map[string]*sessionlessState // by caller key
}

type sessionlessKey struct{}

// isSessionless reports whether ctx is a call of the sessionless protocol
// over HTTP, whose scheduler caps and presence the HTTP handler keeps.
func isSessionless(ctx context.Context) bool {
	_, ok := ctx.Value(sessionlessKey{}).(*sessionlessState)
	return ok
}

// serveSessionless serves one request of the sessionless protocol. A
// subscriptions/listen request is a stream for as long as it stays open.
func (h *httpHandler) serveSessionless(w http.ResponseWriter, r *http.Request, c *caller) {
	body, ok := readBody(w, r, h.maxBody)
	if !ok {
		return
	}
	if r.Method == http.MethodPost && hasMethod(body, "subscriptions/listen") {
		release, ok := h.tr.acquireStream(c.key)
		if !ok {
			tooMany(w, r, c, "streams", h.tr.maxStreams, streamRetryAfter, "--max-streams-per-token")
			return
		}
		defer release()
	}
	st := h.sessionlessUp(c)
	defer h.sessionlessDown(st)
	// The SDK hands the request's context values on to the handlers.
	ctx := context.WithValue(tool.WithSession(r.Context(), st.tools), sessionlessKey{}, st)
	h.stateless.ServeHTTP(w, r.WithContext(ctx))
}

func (h *httpHandler) sessionlessUp(c *caller) *sessionlessState {
	s := &h.sessionless
	s.mu.Lock()
	st := s.m[c.key]
	if st != nil {
		st.refs++
		if st.timer != nil {
			st.timer.Stop()
		}
		s.mu.Unlock()
		return st
	}
	now := h.f.now()
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	st = &sessionlessState{key: c.key, tools: &tool.Session{}, refs: 1,
		presence: &baton.SessionPresence{ID: "http-" + hex.EncodeToString(id), Agent: c.p.Agent, ConnectedAt: now, LastSeen: now}}
	if s.m == nil {
		s.m = map[string]*sessionlessState{}
	}
	s.m[c.key] = st
	s.mu.Unlock()
	// Present (and kept so by Heartbeat) until it expires.
	h.f.presence.mu.Lock()
	if h.f.presence.sessions == nil {
		h.f.presence.sessions = map[any]*baton.SessionPresence{}
	}
	h.f.presence.sessions[st] = st.presence
	h.f.presence.mu.Unlock()
	h.f.touch(context.Background(), st.presence)
	return st
}

func (h *httpHandler) sessionlessDown(st *sessionlessState) {
	s := &h.sessionless
	s.mu.Lock()
	defer s.mu.Unlock()
	st.refs--
	if st.refs > 0 {
		return
	}
	st.timer = time.AfterFunc(h.opts.SessionTimeout, func() { h.sessionlessExpire(st) })
}

// sessionlessExpire forgets a caller idle for the session timeout.
func (h *httpHandler) sessionlessExpire(st *sessionlessState) {
	s := &h.sessionless
	s.mu.Lock()
	if st.refs > 0 || s.m[st.key] != st {
		s.mu.Unlock()
		return
	}
	delete(s.m, st.key)
	s.mu.Unlock()
	h.f.presence.mu.Lock()
	delete(h.f.presence.sessions, st)
	h.f.presence.mu.Unlock()
	_ = h.f.Env.Store.Update(context.Background(), func(tx baton.Tx) error {
		return tx.CloseSession(context.Background(), st.presence.ID, h.f.now())
	})
}
