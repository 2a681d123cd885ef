package mcpserver

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"sync"

	"github.com/baton-dev/baton"
)

// serveSSE serves the HTTP+SSE transport of protocol 2024-11-05 at /sse,
// for clients that predate Streamable HTTP: a GET opens a session and its
// event stream, whose first event names the URL (/sse?sessionid=ID) the
// client POSTs its messages to. The same tokens, caps and session
// ownership apply as at /mcp; the session ends with its GET, after the
// session timeout without a POST, or when its token is revoked.
func (h *httpHandler) serveSSE(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r)
	switch r.Method {
	case http.MethodGet:
		release, ok := h.tr.acquireStream(c.key)
		if !ok {
			tooMany(w, r, c, "streams", h.tr.maxStreams, streamRetryAfter, "--max-streams-per-token")
			return
		}
		defer release()
		if ok, wait := h.tr.reserveSession(c.key); !ok {
			tooMany(w, r, c, "sessions", h.tr.maxSessions, wait, "--max-sessions-per-token")
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		rec := &endpointRecorder{ResponseWriter: w, record: func(sid string) { h.tr.commitSession(c.key, c.tokenID, sid, cancel) }}
		h.sse.ServeHTTP(rec, r.WithContext(ctx))
		if sid := rec.id(); sid != "" {
			h.tr.endSession(sid)
		} else {
			h.tr.cancelSession(c.key)
		}
	case http.MethodPost:
		sid := r.URL.Query().Get("sessionid")
		if owner, ok := h.tr.owner(sid); ok && owner != c.key {
			refuse(w, r, http.StatusForbidden, baton.Errorf(baton.ErrPermissionDenied,
				"session %s was opened by another %s", sid, c.kind()).WithType("session_mismatch").
				WithDetails("token_id", c.tokenID).
				WithHint("open your own session: GET /sse with your token"))
			return
		}
		if _, ok := readBody(w, r, h.maxBody); ok {
			h.sse.ServeHTTP(w, r)
		}
	default:
		h.sse.ServeHTTP(w, r) // the SDK's 405
	}
}

// endpointRecorder picks the session id out of the endpoint event that
// opens an SSE session, before the client can learn it.
type endpointRecorder struct {
	http.ResponseWriter
	record func(string)

	mu   sync.Mutex
	done bool
	sid  string
}

func (w *endpointRecorder) Write(b []byte) (int, error) {
	w.mu.Lock()
	if !w.done {
		w.done = true
		// The SDK writes the whole event at once:
		// "event: endpoint\ndata: /sse?sessionid=ID\n\n".
		if rest, ok := bytes.CutPrefix(b, []byte("event: endpoint\n")); ok {
			if data, ok := bytes.CutPrefix(rest, []byte("data: ")); ok {
				line, _, _ := bytes.Cut(data, []byte("\n"))
				if u, err := url.Parse(string(line)); err == nil && u.Query().Get("sessionid") != "" {
					w.sid = u.Query().Get("sessionid")
					w.record(w.sid)
				}
			}
		}
	}
	w.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w *endpointRecorder) id() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sid
}

// Flush keeps the stream streaming.
func (w *endpointRecorder) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the real writer.
func (w *endpointRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
