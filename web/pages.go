package web

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// A page is one screen of the dashboard: a route, a template of the same
// name under templates/, and a loader that reads what it shows. Pages
// register themselves (register, from their file's init) so each page's
// whole story stays in its own file.
type pageDef struct {
	// Pattern is the route after "GET ", e.g. "/board" or "/items/{id}".
	Pattern string
	// Name is the template (templates/NAME.html, which defines "content").
	Name string
	// Title heads the page; Nav is the navigation entry it lights up.
	Title, Nav string
	// Live lists the prefixes of the event types that change what the
	// page shows ("message." ...); empty means every change.
	Live []string
	// Load reads the page's data. A *baton.Error becomes an error page
	// with its message and hint.
	Load func(s *Server, r *http.Request) (any, error)
}

var pageList []*pageDef

func register(p *pageDef) { pageList = append(pageList, p) }

// navEntries are the navigation bar, in order.
var navEntries = []struct{ Key, Label, Href string }{
	{"needs", "Needs you", "/"},
	{"board", "Board", "/board"},
	{"agents", "Agents", "/agents"},
	{"reservations", "Files", "/reservations"},
	{"runs", "Runs", "/runs"},
	{"messages", "Messages", "/messages"},
	{"prs", "PRs", "/prs"},
	{"search", "Search", "/search"},
	{"audit", "Audit", "/audit"},
}

// view is what every template gets.
type view struct {
	Title    string
	Nav      string
	NavItems []struct{ Key, Label, Href string }
	// CSRF is the session's token written into the page: only under
	// --insecure-local, where anyone on the machine is the operator
	// anyway; a logged-in page keeps it from the login (auth.go).
	CSRF     string
	LoggedIn bool
	Live     string // space-separated event type prefixes, "" for all
	Project  string // the ?project filter, if any
	Projects []string
	Now      time.Time
	Data     any
	Error    *baton.Error
	Status   int
}

// parsePages parses the layout with each page's template.
func parsePages() map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	out := map[string]*template.Template{}
	names := []string{"error"}
	for _, p := range pageList {
		names = append(names, p.Name)
	}
	for _, n := range names {
		t := template.Must(base.Clone())
		out[n] = template.Must(t.ParseFS(templateFS, "templates/"+n+".html"))
	}
	return out
}

// page serves one page: the whole document, or with X-Partial only the
// content, which the page's script swaps in when something changed.
func (s *Server) page(p *pageDef) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, sess *session) {
		data, err := p.Load(s, r)
		v := s.newView(r, sess, p.Title, p.Nav)
		v.Live = strings.Join(p.Live, " ")
		v.Data = data
		if t, ok := data.(interface{ PageTitle() string }); ok && err == nil {
			v.Title = t.PageTitle() // a page about one thing names it
		}
		if err != nil {
			e := baton.AsError(err)
			s.renderStatus(w, r, "error", statusOf(e), withError(v, e))
			return
		}
		s.renderStatus(w, r, p.Name, http.StatusOK, v)
	}
}

func withError(v *view, e *baton.Error) *view {
	v.Error, v.Status, v.Data = e, statusOf(e), nil
	if v.Title == "" {
		v.Title = "Error"
	}
	return v
}

func (s *Server) newView(r *http.Request, sess *session, title, nav string) *view {
	v := &view{Title: title, Nav: nav, NavItems: navEntries, Project: r.URL.Query().Get("project"), Now: s.now()}
	if sess != nil {
		v.LoggedIn = true
		if s.opts.Insecure {
			v.CSRF = sess.csrf
		}
	}
	_ = s.env.Store.View(r.Context(), func(tx baton.Tx) error {
		ps, err := tx.Projects(r.Context())
		for _, p := range ps {
			v.Projects = append(v.Projects, p.Slug)
		}
		return err
	})
	if v.Project != "" && !slices.Contains(v.Projects, v.Project) {
		v.Project = ""
	}
	return v
}

func (s *Server) now() time.Time {
	if s.env != nil && s.env.Clock != nil {
		return s.env.Clock()
	}
	return time.Now()
}

// renderError shows an error page outside any page's route (login, 404).
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, status int, e *baton.Error) {
	v := &view{Title: "Error", Now: s.now()}
	if c, err := r.Cookie(cookieName); err == nil {
		if sess := s.auth.session(c.Value); sess != nil {
			v.NavItems, v.LoggedIn = navEntries, true // a logged-in operator keeps the navigation
		}
	}
	v.Error, v.Status = e, status
	s.renderStatus(w, r, "error", status, v)
}

func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, name string, status int, v *view) {
	t := s.pages[name]
	tmpl := "layout"
	if r.Header.Get("X-Partial") == "1" {
		tmpl = "content"
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, tmpl, v); err != nil {
		s.log.Error("dashboard: rendering", "page", name, "err", err)
		http.Error(w, "the page could not be rendered; the server log says why", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	// Agent text is untrusted: templates escape it, and the policy allows
	// no script or style but the dashboard's own files.
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// view reads in one consistent snapshot of the store.
func (s *Server) view(ctx context.Context, fn func(tx baton.Tx) error) error {
	return s.env.Store.View(ctx, fn)
}

var funcs = template.FuncMap{
	// ago says how long before now t was ("3m ago").
	"ago": func(now, t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return human(now.Sub(t)) + " ago"
	},
	// left says how long until t ("in 4m", or "lapsed 2m ago").
	"left": func(now, t time.Time) string {
		if t.IsZero() {
			return ""
		}
		if d := t.Sub(now); d >= 0 {
			return human(d) + " left"
		}
		return "lapsed " + human(now.Sub(t)) + " ago"
	},
	"ts":  func(t time.Time) string { return baton.Timestamp(t) },
	"dur": human,
	// threadHref links a thread: ids come from agents and may hold / ? #.
	"threadHref": threadHref,
	"priority":   priorityLabel,
	"short": func(n int, s string) string {
		r := []rune(s)
		if len(r) <= n {
			return s
		}
		return string(r[:n]) + "…"
	},
	"firstLine": func(s string) string {
		line, _, _ := strings.Cut(s, "\n")
		return line
	},
	"join":   strings.Join,
	"lower":  strings.ToLower,
	"phase":  func(labels []string) string { return string(baton.PhaseOf(labels)) },
	"plain":  func(labels []string) []string { return slices.DeleteFunc(slices.Clone(labels), baton.IsPhaseLabel) },
	"qs":     queryString,
	"add":    func(a, b int) int { return a + b },
	"status": func(s baton.Status) string { return string(s) },
	// itemCtx hands a shared item template the item and the time.
	"itemCtx": func(v *view, it *baton.Item) any {
		return struct {
			Item *baton.Item
			Now  time.Time
		}{it, v.Now}
	},
}

func human(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// priorityLabel names baton's priorities as the board shows them.
func priorityLabel(p baton.Priority) string {
	switch p {
	case 0:
		return "P0 critical"
	case 1:
		return "P1 high"
	case 2:
		return "P2 normal"
	case 3:
		return "P3 low"
	}
	return "P4 backlog"
}

// queryString builds "?k=v&..." from pairs, dropping empty values
// (templates use it for filter links).
func queryString(kv ...string) template.URL {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			parts = append(parts, template.URLQueryEscaper(kv[i])+"="+template.URLQueryEscaper(kv[i+1]))
		}
	}
	if len(parts) == 0 {
		return "?"
	}
	return template.URL("?" + strings.Join(parts, "&"))
}
