package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
)

// The login: baton serve prints a one-time URL; opening it trades its
// token for a session cookie (HttpOnly, SameSite=Strict) and a new URL is
// printed for the next browser. Sessions live in the server's memory: a
// restart logs everyone out, which for a single operator is a fair price
// for keeping no credential on disk.
//
// A cookie for 127.0.0.1 goes to every port of it, so any other local web
// server the browser visits receives the session cookie. Changes
// therefore need a second secret only this origin holds: the session's
// CSRF token, handed over once in the login redirect's #fragment (never
// sent to a server), kept by the page in this origin's localStorage and
// never written into a page.

const (
	cookieName        = "baton_session"
	csrfHeader        = "X-CSRF-Token"
	csrfFragment      = "csrf=" // the login redirect's #fragment: csrf=TOKEN
	defaultLoginTTL   = time.Hour
	defaultSessionTTL = 12 * time.Hour
	maxSessions       = 64 // logins kept at once; the oldest goes first
)

type session struct {
	id       string
	csrf     string
	created  time.Time
	lastSeen time.Time
	ended    bool // logged out or expired: its live streams close
}

type auth struct {
	mu         sync.Mutex
	insecure   bool
	loginTTL   time.Duration
	sessionTTL time.Duration
	onLogin    func(string)
	now        func() time.Time
	logins     map[string]time.Time // sha256 of a login token -> expiry
	sessions   map[string]*session  // sha256 of a cookie -> session
	timer      *time.Timer          // announces a new URL when the current one expires
	stopped    bool                 // the server closed: no more URLs
	local      *session             // --insecure-local's one session, shared by every browser
	localKey   string               // its cookie
}

func newAuth(o Options) *auth {
	a := &auth{insecure: o.Insecure, loginTTL: o.LoginTTL, sessionTTL: o.SessionTTL, onLogin: o.OnLoginURL,
		now: time.Now, logins: map[string]time.Time{}, sessions: map[string]*session{}}
	if o.Env != nil && o.Env.Clock != nil {
		a.now = o.Env.Clock
	}
	if a.loginTTL <= 0 {
		a.loginTTL = defaultLoginTTL
	}
	if a.sessionTTL <= 0 {
		a.sessionTTL = defaultSessionTTL
	}
	return a
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// digest keys the maps, so a token never sits in memory as given and a
// lookup's timing says nothing about stored tokens.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return string(h[:])
}

// newLogin makes a one-time login path valid for loginTTL.
func (a *auth) newLogin() string {
	tok := randomToken()
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	for k, exp := range a.logins {
		if now.After(exp) {
			delete(a.logins, k)
		}
	}
	a.logins[digest(tok)] = now.Add(a.loginTTL)
	return "/login?token=" + tok
}

// announce tells the operator a fresh login URL now and again whenever
// the announced one expires unused.
func (a *auth) announce() {
	a.mu.Lock()
	stopped := a.stopped
	a.mu.Unlock()
	if a.onLogin == nil || stopped {
		return
	}
	a.onLogin(a.newLogin())
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.timer != nil {
		a.timer.Stop()
	}
	a.timer = time.AfterFunc(a.loginTTL, a.announce)
}

// stop ends the announcements (the server is closing).
func (a *auth) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
	if a.timer != nil {
		a.timer.Stop()
	}
}

// redeem spends a login token; it reports whether the token was valid.
func (a *auth) redeem(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := digest(tok)
	exp, ok := a.logins[k]
	delete(a.logins, k)
	return ok && !a.now().After(exp)
}

// start opens a session and returns its cookie value.
func (a *auth) start() (string, *session) {
	cookie := randomToken()
	now := a.now()
	s := &session{id: randomToken()[:12], csrf: randomToken(), created: now, lastSeen: now}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.sessions) >= maxSessions {
		var oldest string
		for k, v := range a.sessions {
			if oldest == "" || v.lastSeen.Before(a.sessions[oldest].lastSeen) {
				oldest = k
			}
		}
		a.sessions[oldest].ended = true
		delete(a.sessions, oldest)
	}
	a.sessions[digest(cookie)] = s
	return cookie, s
}

// session returns the live session of a cookie value, touching it.
func (a *auth) session(cookie string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := digest(cookie)
	s, ok := a.sessions[k]
	if !ok {
		return nil
	}
	now := a.now()
	if now.Sub(s.lastSeen) > a.sessionTTL && s != a.local {
		s.ended = true
		delete(a.sessions, k)
		return nil
	}
	s.lastSeen = now
	return s
}

func (a *auth) end(cookie string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[digest(cookie)]; ok && s != a.local {
		s.ended = true
		delete(a.sessions, digest(cookie))
	}
}

// live reports whether s is still logged in.
func (a *auth) live(s *session) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !s.ended
}

// localSession is --insecure-local's one session: every browser on the
// machine gets its cookie, so no page, however many it opens, can push
// the operator's out.
func (a *auth) localSession() (string, *session) {
	a.mu.Lock()
	if a.local != nil {
		defer a.mu.Unlock()
		return a.localKey, a.local
	}
	a.mu.Unlock()
	cookie, s := a.start()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.local == nil {
		a.local, a.localKey = s, cookie
	}
	return a.localKey, a.local
}

func setCookie(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: value, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: maxAge})
}

// login trades a one-time token for a session and goes to the front page.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.opts.Insecure {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	tok := r.URL.Query().Get("token")
	if tok == "" || len(tok) > 128 || !s.auth.redeem(tok) {
		s.renderError(w, r, http.StatusUnauthorized, baton.Errorf(baton.ErrPermissionDenied,
			"this login link is not valid: it was used already, has expired, or was mistyped").
			WithType("login_required").
			WithHint("open the newest login URL baton serve printed (a new one is printed after each use and every hour)"))
		return
	}
	cookie, sess := s.auth.start()
	setCookie(w, r, cookie, int(s.auth.sessionTTL/time.Second))
	s.log.Info("dashboard login", "remote", r.RemoteAddr)
	s.auth.announce() // the next browser needs its own link
	// The fragment stays in the browser: the page keeps the token.
	http.Redirect(w, r, "/#"+csrfFragment+sess.csrf, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request, _ *session) {
	if c, err := r.Cookie(cookieName); err == nil {
		s.auth.end(c.Value)
	}
	setCookie(w, r, "", -1)
	w.WriteHeader(http.StatusNoContent)
}

// authed admits requests of a logged-in browser and, for every method
// but GET and HEAD, only with the session's CSRF token in X-CSRF-Token.
// With Insecure, a browser without a session gets one on its first page,
// so the CSRF check still stands between a foreign page and the tools.
func (s *Server) authed(next func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var sess *session
		if c, err := r.Cookie(cookieName); err == nil {
			sess = s.auth.session(c.Value)
		}
		read := r.Method == http.MethodGet || r.Method == http.MethodHead
		if sess == nil && s.opts.Insecure && read {
			var cookie string
			cookie, sess = s.auth.localSession()
			setCookie(w, r, cookie, int(s.auth.sessionTTL/time.Second))
		}
		if sess == nil {
			e := baton.Errorf(baton.ErrPermissionDenied, "you are not logged in to the dashboard").WithType("login_required").
				WithHint("open the one-time login URL that baton serve printed")
			if read && wantsHTML(r) {
				s.renderError(w, r, http.StatusUnauthorized, e)
				return
			}
			writeError(w, http.StatusUnauthorized, e)
			return
		}
		if !read && subtle.ConstantTimeCompare([]byte(r.Header.Get(csrfHeader)), []byte(sess.csrf)) != 1 {
			writeError(w, http.StatusForbidden, baton.Errorf(baton.ErrPermissionDenied,
				"the request has no valid CSRF token").WithType("csrf").
				WithHint("reload the page and try again; if it fails again, log in with the newest login URL baton serve printed "+
					"(the token comes with the login and the dashboard's own forms send it in "+csrfHeader+")"))
			return
		}
		next(w, r, sess)
	}
}

func wantsHTML(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return a == "" || strings.Contains(a, "text/html") || strings.Contains(a, "*/*")
}
