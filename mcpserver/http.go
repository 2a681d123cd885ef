package mcpserver

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the Streamable HTTP endpoint.
type HTTPOptions struct {
	// AllowedHosts are host names (without port) accepted in the Host and
	// Origin headers besides the loopback names. DNS rebinding attacks
	// reach a local server under a foreign name; this list stops them.
	AllowedHosts []string
	// Principal resolves who an HTTP session runs as when there is no
	// Authenticator (baton serve --insecure-local).
	Principal func(*http.Request) baton.Principal
	// Authenticator, when set, admits to /mcp, /sse and /events only
	// requests with a valid bearer token and runs them as the token's
	// principal; a session's requests must all carry the token that
	// opened it.
	Authenticator *Authenticator
	// SessionTimeout closes sessions idle this long (default 30 minutes).
	SessionTimeout time.Duration
	// MaxSessions and MaxStreams cap the MCP sessions and the event
	// streams (standalone and resumed SSE streams of /mcp, /sse, /events,
	// subscriptions/listen) one token may hold open at once; without
	// tokens, one agent. Zero means the defaults (DefaultMaxSessions,
	// DefaultMaxStreams), a negative number no cap.
	MaxSessions, MaxStreams int
	// Timeouts bound slow clients; zero fields take the defaults.
	Timeouts Timeouts
	// MaxBodyBytes bounds a request body (default 4 MiB).
	MaxBodyBytes int64
	// Dashboard, when set, serves every path the MCP endpoints do not
	// (the operator's web dashboard), behind the same Host and Origin
	// checks and timeouts; it does its own login.
	Dashboard http.Handler
	// ReplayBytes bounds the memory holding recent SSE events for clients
	// that reconnect with Last-Event-ID (default 16 MiB, across sessions;
	// the oldest events go first).
	ReplayBytes int
}

// DefaultReplayBytes is the default of HTTPOptions.ReplayBytes.
const DefaultReplayBytes = 16 << 20

var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// httpHandler serves MCP over HTTP in the three ways clients speak it:
// Streamable HTTP with sessions (protocol 2025-03-26 to 2025-11-25),
// sessionless Streamable HTTP (2026-07-28 and later), both at /mcp, and the
// HTTP+SSE transport of 2024-11-05 at /sse. All three run on the same
// per-principal servers, so scope, rate limit and audit are the same.
type httpHandler struct {
	f       *Factory
	opts    HTTPOptions
	maxBody int64
	// stateful serves sessions; stateless the sessionless protocol, which
	// the SDK offers only on a stateless handler.
	stateful, stateless *mcp.StreamableHTTPHandler
	sse                 *mcp.SSEHandler
	tr                  *tracker
	sessionless         sessionlessStates
}

// Handler returns the HTTP handler of `baton serve`: MCP at /mcp (and at
// /sse for HTTP+SSE clients) and the event stream at /events, guarded
// against foreign Host and Origin headers and, with an Authenticator,
// against callers without a token. /healthz stays open to load balancers.
func (f *Factory) Handler(opts HTTPOptions) http.Handler {
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	opts.Timeouts = opts.Timeouts.withDefaults()
	if opts.Principal == nil {
		opts.Principal = func(*http.Request) baton.Principal {
			return baton.Principal{Agent: "anonymous", Source: baton.SourceHTTP}
		}
	}
	capOf := func(n, def int) int {
		switch {
		case n == 0:
			return def
		case n < 0:
			return 0
		}
		return n
	}
	h := &httpHandler{f: f, opts: opts, maxBody: opts.MaxBodyBytes,
		tr: &tracker{maxSessions: capOf(opts.MaxSessions, DefaultMaxSessions),
			maxStreams: capOf(opts.MaxStreams, DefaultMaxStreams), idle: opts.SessionTimeout}}
	if h.maxBody <= 0 {
		h.maxBody = defaultMaxBody
	}
	// A revoked token's /sse sessions end through the tracker (endRevoked).
	f.mu.Lock()
	f.trackers = append(f.trackers, h.tr)
	f.mu.Unlock()
	replay := opts.ReplayBytes
	if replay <= 0 {
		replay = DefaultReplayBytes
	}
	// Every SSE event of a session gets an id and is kept (within replay
	// bytes) until the session ends, so a client whose connection drops
	// reconnects with Last-Event-ID and loses no result.
	events := mcp.NewMemoryEventStore(nil)
	events.SetMaxBytes(replay)
	server := func(r *http.Request) *mcp.Server { return f.Server(requestPrincipal(r)) }
	// Most requests are answered as one application/json body: no SSE
	// framing, no flush per message and nothing kept for replay. Only calls
	// that may run long are answered as an SSE stream (mayRunLong), which a
	// client whose connection drops resumes with Last-Event-ID.
	streamed := f.mayRunLong
	h.stateful = mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		SessionTimeout: opts.SessionTimeout, Logger: f.Log, EventStore: events, MaxRequestBodyBytes: h.maxBody,
		JSONResponse: true, StreamResponse: streamed})
	// The sessionless protocol has no resumption, but a streamed answer
	// still carries the messages the server sends during the call, which
	// without a session have no other way to the client.
	h.stateless = mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		Stateless: true, Logger: f.Log, MaxRequestBodyBytes: h.maxBody,
		JSONResponse: true, StreamResponse: streamed})
	h.sse = mcp.NewSSEHandler(server, &mcp.SSEOptions{MaxRequestBodyBytes: h.maxBody})

	mux := http.NewServeMux()
	mux.Handle("/mcp", h.admit(http.HandlerFunc(h.serveMCP)))
	mux.Handle("/sse", h.admit(http.HandlerFunc(h.serveSSE)))
	mux.Handle("GET /events", h.admit(h.stream(http.HandlerFunc(f.serveEvents))))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		// The server's own probe, not an agent's session: it needs no
		// token and is not limited to a preset.
		probe := baton.Principal{Agent: "healthz", Source: baton.SourceHTTP, Preset: tool.PresetFull}
		res := f.Registry.Call(r.Context(), f.Env, probe, "server_health", nil)
		w.Header().Set("Content-Type", "application/json")
		if res.Err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write([]byte(res.Text))
	})
	if opts.Dashboard != nil {
		mux.Handle("/", opts.Dashboard)
	}
	allowed := append(slices.Clone(loopbackNames), opts.AllowedHosts...)
	return deadlines(opts.Timeouts, guard(allowed, mux))
}

// waitingTools are the tools whose calls wait for something to happen (a
// long poll): wait_for_messages for a message, ask_owner for the owner's
// answer, each up to its timeout_seconds. Their answers go out as an SSE
// stream, so that a client whose connection drops during the wait resumes
// it and still gets the answer. TestWaitingToolsAreStreamed fails when a
// tool that takes a timeout or says it blocks is missing here.
var waitingTools = []string{"wait_for_messages", "ask_owner"}

// pipeTool runs the tool named by its tool_name argument, so a call of it
// waits when that tool does.
const pipeTool = "membot_pipe"

// pluginToolset starts the toolset of every tool proxied from a plugin.
const pluginToolset = "plugin:"

// mayRunLong picks the requests of /mcp whose answers are streamed rather
// than sent as one application/json body: tools/call of a waiting tool (or
// a pipe of one), and of a plugin's tool, whose duration is the plugin's
// and unknown here. Everything else baton answers at once. (The SDK itself
// streams subscriptions/listen, and the standalone GET stream is a stream
// anyway.)
func (f *Factory) mayRunLong(r *jsonrpc.Request) bool {
	if r.Method != "tools/call" {
		return false
	}
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(r.Params, &call) != nil {
		return false // a call without readable params fails at once
	}
	waits := func(name string) bool {
		t, ok := f.Registry.Get(name)
		return ok && (slices.Contains(waitingTools, name) || strings.HasPrefix(t.Spec().Toolset, pluginToolset))
	}
	if call.Name == pipeTool {
		var in struct {
			ToolName string `json:"tool_name"`
		}
		return json.Unmarshal(call.Arguments, &in) == nil && waits(in.ToolName)
	}
	return waits(call.Name)
}

// serveMCP routes a request to /mcp: the sessionless protocol by its
// MCP-Protocol-Version header, a session's requests after checking that
// the session is the caller's, and a new session only for an initialize
// request and within the caller's cap.
func (h *httpHandler) serveMCP(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r)
	if sessionlessRequest(r) {
		h.serveSessionless(w, r, c)
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid != "" {
		if owner, ok := h.tr.owner(sid); ok && owner != c.key {
			refuse(w, r, http.StatusForbidden, baton.Errorf(baton.ErrPermissionDenied,
				"session %s was opened by another %s", sid, c.kind()).WithType("session_mismatch").
				WithDetails("token_id", c.tokenID).
				WithHint("open your own session: send initialize without an Mcp-Session-Id header"))
			return
		}
		if r.Method == http.MethodGet {
			h.stream(h.stateful).ServeHTTP(w, r)
			return
		}
		if _, ok := readBody(w, r, h.maxBody); ok {
			h.stateful.ServeHTTP(w, r)
		}
		return
	}
	if r.Method != http.MethodPost {
		h.stateful.ServeHTTP(w, r) // the SDK's 400 or 405
		return
	}
	body, ok := readBody(w, r, h.maxBody)
	if !ok {
		return
	}
	if !hasMethod(body, "initialize") {
		refuse(w, r, http.StatusBadRequest, baton.Errorf(baton.ErrInvalidInput,
			"a POST without an Mcp-Session-Id header must be an initialize request").WithType("missing_session").
			WithDetails("header", "Mcp-Session-Id").
			WithHint("send initialize first and repeat the Mcp-Session-Id of its response on every later request; "+
				"clients of protocol %s or later send MCP-Protocol-Version instead and need no session", sessionlessVersion))
		return
	}
	if ok, wait := h.tr.reserveSession(c.key); !ok {
		tooMany(w, r, c, "sessions", h.tr.maxSessions, wait, "--max-sessions-per-token")
		return
	}
	rec := &sessionRecorder{ResponseWriter: w, record: func(id string) { h.tr.commitSession(c.key, c.tokenID, id, nil) }}
	h.stateful.ServeHTTP(rec, r)
	sid = rec.id()
	if sid == "" {
		h.tr.cancelSession(c.key)
		return
	}
	h.watchSession(c.p, sid)
}

// watchSession gives the session's slot back when it ends: closed by its
// client, expired idle, or failed to initialize.
func (h *httpHandler) watchSession(p baton.Principal, sid string) {
	for ss := range h.f.Server(p).Sessions() {
		if ss.ID() == sid {
			go func() {
				_ = ss.Wait()
				h.tr.endSession(sid)
			}()
			return
		}
	}
	h.tr.endSession(sid) // already gone
}

// stream counts next's response against the caller's open streams.
func (h *httpHandler) stream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := callerOf(r)
		release, ok := h.tr.acquireStream(c.key)
		if !ok {
			tooMany(w, r, c, "streams", h.tr.maxStreams, streamRetryAfter, "--max-streams-per-token")
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

// hasMethod reports whether the JSON-RPC message (or batch) body holds a
// request for method.
func hasMethod(body []byte, method string) bool {
	// A JSON string equal to method holds its bytes as they are, or an
	// escape: a body with neither has no such request, and most bodies
	// (tool calls) are answered here without decoding them.
	if !bytes.Contains(body, []byte(method)) && bytes.IndexByte(body, '\\') < 0 {
		return false
	}
	return decodedHasMethod(body, method)
}

// decodedHasMethod is hasMethod by decoding the body, a message or a batch.
func decodedHasMethod(body []byte, method string) bool {
	type msg struct {
		Method string `json:"method"`
	}
	var one msg
	if json.Unmarshal(body, &one) == nil {
		return one.Method == method
	}
	var batch []msg
	if json.Unmarshal(body, &batch) == nil {
		for _, m := range batch {
			if m.Method == method {
				return true
			}
		}
	}
	return false
}

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return strings.Trim(hostport, "[]")
}

// guard rejects requests whose Host or Origin names a host outside allowed.
func guard(allowed []string, next http.Handler) http.Handler {
	ok := func(h string) bool { return slices.Contains(allowed, strings.ToLower(h)) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := hostname(r.Host); !ok(h) {
			forbid(w, r, "Host", r.Host)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !ok(u.Hostname()) {
				forbid(w, r, "Origin", o)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func forbid(w http.ResponseWriter, r *http.Request, header, value string) {
	refuse(w, r, http.StatusForbidden, baton.Errorf(baton.ErrPermissionDenied, "%s %q is not allowed", header, value).
		WithDetails("header", header, "value", value).
		WithHint("connect through localhost or 127.0.0.1, or start baton serve with --allowed-host NAME"))
}
