// Package web is the operator's dashboard: server-rendered pages (Go
// templates, a little hand-written JS and CSS, all embedded) that show the
// team and let the human act on what needs them. Every action is a call
// of a tool definition as the user (baton.User) from a web session, so it
// is validated, scoped and audited like an agent's call. Pages stay live
// through one shared reader of the event log (hub.go): a change reaches
// every open page within a second and no page polls the database.
package web

import (
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure a dashboard.
type Options struct {
	// Registry and Env are the tools and environment of the server the
	// dashboard is part of: actions call these tools.
	Registry *tool.Registry
	Env      *tool.Env
	// Project is the default project of the operator's session (may be
	// empty: pages then show every project).
	Project string
	// Insecure drops the login: every browser on the loopback address is
	// the operator (baton serve --insecure-local).
	Insecure bool
	// LoginTTL is how long a one-time login URL stays valid (default 1 h).
	LoginTTL time.Duration
	// SessionTTL is how long a login lasts without use (default 12 h).
	SessionTTL time.Duration
	// OnLoginURL is told each new one-time login path (/login?token=...),
	// at start and after each use or expiry, so the operator always has
	// one at hand (baton serve prints it).
	OnLoginURL func(path string)
	Log        *slog.Logger
}

// Server is the dashboard's HTTP handler.
type Server struct {
	opts  Options
	reg   *tool.Registry
	env   *tool.Env
	log   *slog.Logger
	auth  *auth
	hub   *hub
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New builds the dashboard. It announces the first login URL through
// opts.OnLoginURL unless opts.Insecure.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, reg: opts.Registry, env: opts.Env, log: opts.Log}
	s.auth = newAuth(opts)
	s.hub = newHub(opts.Env, opts.Log)
	s.pages = parsePages()
	s.mux = http.NewServeMux()
	s.routes()
	if !opts.Insecure {
		s.auth.announce()
	}
	return s
}

// ServeHTTP serves the dashboard.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// LoginPath returns a fresh one-time login path (/login?token=...).
func (s *Server) LoginPath() string { return s.auth.newLogin() }

// Close ends the live streams of open pages and the login announcements.
func (s *Server) Close() {
	s.auth.stop()
	s.hub.close()
}

func (s *Server) routes() {
	static, _ := fs.Sub(staticFS, "static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", cacheStatic(http.FileServerFS(static))))
	s.mux.HandleFunc("GET /login", s.login)
	s.mux.HandleFunc("POST /logout", s.authed(s.logout))
	s.mux.HandleFunc("GET /live", s.authed(s.live))
	s.mux.HandleFunc("POST /api/tools/{name}", s.authed(s.callTool))
	s.mux.HandleFunc("POST /audit/verify", s.authed(s.verifyAudit))
	for _, p := range pageList {
		s.mux.HandleFunc("GET "+p.Pattern, s.authed(s.page(p)))
	}
	s.mux.HandleFunc("/", s.notFound)
}

// operator is who the dashboard's calls run as: the user, from a web
// session (which the permission model gives every tool).
func (s *Server) operator() baton.Principal {
	return baton.Principal{Agent: baton.User, Source: baton.SourceWeb, Project: s.opts.Project, Preset: tool.PresetFull}
}

// callTool is the dashboard's HTTP API: POST /api/tools/NAME with the
// tool's JSON arguments runs the tool as the operator and answers its
// result, {"result": ...} or {"error": {...}} with a 4xx/5xx status.
func (s *Server) callTool(w http.ResponseWriter, r *http.Request, _ *session) {
	name := r.PathValue("name")
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxActionBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, baton.Errorf(baton.ErrInvalidInput,
			"the request body is over %d bytes", maxActionBody).WithDetails("limit", maxActionBody).
			WithHint("send less: the dashboard's forms never need this much"))
		return
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = []byte("{}")
	}
	res := s.reg.Call(r.Context(), s.env, s.operator(), name, raw)
	if res.Err != nil {
		writeError(w, statusOf(res.Err), res.Err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"result": res.Output})
}

// maxActionBody bounds one action's arguments.
const maxActionBody = 1 << 20

// call runs a read-only tool for a page and decodes its output into out.
func (s *Server) call(r *http.Request, name string, args any, out any) *baton.Error {
	return s.callIn(r, "", name, args, out)
}

func statusOf(e *baton.Error) int {
	switch e.Code {
	case baton.ErrPermissionDenied:
		return http.StatusForbidden
	case baton.ErrRateLimited:
		return http.StatusTooManyRequests
	case baton.ErrInternal, baton.ErrInitFailed:
		return http.StatusInternalServerError
	}
	if strings.HasPrefix(string(e.Code), "ERR_") && strings.HasSuffix(string(e.Code), "NOT_FOUND") {
		return http.StatusNotFound
	}
	if e.Code == baton.ErrClaimed || e.Code == baton.ErrConflict || e.Code == baton.ErrAlreadyFinalized {
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

func writeError(w http.ResponseWriter, status int, e *baton.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(baton.Envelope{Error: e})
}

// cacheStatic lets browsers keep the embedded assets for an hour: they
// change only with the binary.
func cacheStatic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.renderError(w, r, http.StatusNotFound, baton.Errorf(baton.ErrNotFound, "there is no page at %s", r.URL.Path).
		WithHint("use the navigation at the top of the page"))
}
