package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestLogin: without the one-time URL the dashboard asks for a login;
// the URL serve printed logs in with an HttpOnly, SameSite=Strict cookie;
// the same URL fails in another browser; serve prints a new one, which
// works there.
func TestLogin(t *testing.T) {
	t.Parallel() // no latency measured here: it may share the machine with the other parallel tests
	fx := setup(t)
	srv := fx.srv

	a := fx.newTab(t)
	if st := a.open("/"); st != 401 {
		t.Errorf("GET / without a login: status %d, want 401", st)
	}
	if h := a.text("h1"); h != "Log in" {
		t.Errorf("GET / without a login shows %q, want the login-required page", h)
	}
	if body := a.text("main"); !strings.Contains(body, "not logged in") || !strings.Contains(body, "login URL") {
		t.Errorf("the login-required page does not say how to log in: %q", body)
	}
	if n := eval[int](a, `document.querySelectorAll("nav a").length`); n != 0 {
		t.Errorf("the login-required page shows %d navigation links to a stranger", n)
	}
	a.shot("login-required")

	printed := len(srv.logins())
	url := srv.nextLogin(t)
	a.do(chromedp.Navigate(url))
	if loc := a.location(); loc != srv.url+"/" {
		t.Fatalf("the login URL led to %s, want %s/", loc, srv.url)
	}
	if h := a.text("h1"); !strings.HasPrefix(h, "Needs you") {
		t.Errorf("after logging in the page is %q, want Needs you", h)
	}
	c := a.sessionCookie()
	if c == nil {
		t.Fatal("no baton_session cookie after logging in")
	}
	if !c.HTTPOnly || c.SameSite != network.CookieSameSiteStrict || c.Path != "/" {
		t.Errorf("session cookie: HttpOnly=%v SameSite=%q Path=%q, want HttpOnly, Strict, /", c.HTTPOnly, c.SameSite, c.Path)
	}
	if jar := eval[string](a, `document.cookie`); strings.Contains(jar, "baton_session") {
		t.Errorf("page scripts can read the session cookie: %q", jar)
	}
	a.shot("logged-in")

	// The used URL is spent; serve has printed the next one.
	after := srv.waitLogins(t, printed)
	if fresh := after[len(after)-1]; fresh == url {
		t.Fatalf("serve printed the used URL again")
	}
	b := fx.newTab(t)
	if st := b.open(strings.TrimPrefix(url, srv.url)); st != 401 {
		t.Errorf("reusing the login URL in another browser: status %d, want 401", st)
	}
	if body := b.text("main"); !strings.Contains(body, "not valid") {
		t.Errorf("reusing the login URL says %q, want that the link is not valid", body)
	}
	if b.sessionCookie() != nil {
		t.Error("a spent login URL set a session cookie")
	}
	b.shot("reused-login-url")
	if st := b.open("/board"); st != 401 {
		t.Errorf("GET /board after a refused login: status %d, want 401", st)
	}

	// The newly printed URL logs the second browser in.
	b.do(chromedp.Navigate(srv.nextLogin(t)))
	if loc := b.location(); loc != srv.url+"/" || b.sessionCookie() == nil {
		t.Errorf("the new login URL did not log in (at %s)", loc)
	}
	b.shot("second-browser-logged-in")
}
