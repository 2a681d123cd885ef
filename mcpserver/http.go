package mcpserver

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
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
	// Authenticator, when set, admits to /mcp and /events only requests
	// with a valid bearer token and runs them as the token's principal;
	// a session's requests must all carry the token that opened it.
	Authenticator *Authenticator
	// SessionTimeout closes sessions idle this long (default 30 minutes).
	SessionTimeout time.Duration
}

var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// Handler returns the HTTP handler of `baton serve`: MCP at /mcp and the
// event stream at /events, guarded against foreign Host and Origin headers
// and, with an Authenticator, against callers without a token. /healthz
// stays open to load balancers.
func (f *Factory) Handler(opts HTTPOptions) http.Handler {
	timeout := opts.SessionTimeout
	if timeout == 0 {
		timeout = 30 * time.Minute
	}
	principal := opts.Principal
	protect := func(h http.Handler) http.Handler { return h }
	if opts.Authenticator != nil {
		principal = requestPrincipal
		owners := &sessionOwners{}
		protect = func(h http.Handler) http.Handler { return f.authenticated(opts.Authenticator, owners, h) }
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return f.Server(principal(r))
	}, &mcp.StreamableHTTPOptions{SessionTimeout: timeout, Logger: f.Log})
	mux := http.NewServeMux()
	mux.Handle("/mcp", protect(mcpHandler))
	mux.Handle("GET /events", protect(http.HandlerFunc(f.serveEvents)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		res := f.Registry.Call(r.Context(), f.Env, baton.Principal{Agent: "healthz", Source: baton.SourceHTTP}, "server_health", nil)
		w.Header().Set("Content-Type", "application/json")
		if res.Err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write([]byte(res.Text))
	})
	allowed := append(slices.Clone(loopbackNames), opts.AllowedHosts...)
	return guard(allowed, mux)
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
			forbid(w, "Host", r.Host)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !ok(u.Hostname()) {
				forbid(w, "Origin", o)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func forbid(w http.ResponseWriter, header, value string) {
	e := baton.Errorf(baton.ErrPermissionDenied, "%s %q is not allowed", header, value).
		WithDetails("header", header, "value", value).
		WithHint("connect through localhost or 127.0.0.1, or start baton serve with --allowed-host NAME")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_ = json.NewEncoder(w).Encode(baton.Envelope{Error: e})
}
