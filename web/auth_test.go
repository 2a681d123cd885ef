package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton/internal/testkit"
)

func TestLoginURLIsOneTimeAndANewOneIsAnnounced(t *testing.T) {
	d := newDash(t)
	used := d.logins[0]
	if len(d.logins) != 2 {
		t.Fatalf("after one login, %d URLs were announced; want the first and its successor", len(d.logins))
	}
	// A second browser with the spent URL is refused.
	other := newClient(t)
	st, page := fetch(t, other, http.MethodGet, d.ts.URL+used, nil, nil)
	if st != http.StatusUnauthorized || !strings.Contains(page, "this login link is not valid") {
		t.Fatalf("reused login URL: %d\n%s", st, page)
	}
	// ... and sees nothing of the dashboard.
	st, page = fetch(t, other, http.MethodGet, d.ts.URL+"/", nil, nil)
	if st != http.StatusUnauthorized || strings.Contains(page, "Needs you") {
		t.Fatalf("a browser without a login got the front page: %d", st)
	}
	// The announced successor works for it.
	st, _ = fetch(t, other, http.MethodGet, d.ts.URL+d.lastLogin(), nil, nil)
	if st != http.StatusOK {
		t.Fatalf("the new login URL: %d", st)
	}
}

func TestSessionCookieIsHttpOnlyAndStrict(t *testing.T) {
	d := newDash(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(d.ts.URL + d.lastLogin())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var found bool
	for _, ck := range res.Cookies() {
		if ck.Name == cookieName {
			found = true
			if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || len(ck.Value) < 40 {
				t.Fatalf("session cookie: %+v", ck)
			}
		}
	}
	if !found || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login answered %d with cookies %v", res.StatusCode, res.Cookies())
	}
}

func TestExpiredLoginURLIsRefused(t *testing.T) {
	k := testkit.New(t)
	clock := testkit.NewClock(time.Now(), 0)
	k.Env.Clock = clock.Now
	var paths []string
	s := New(Options{Registry: k.Registry, Env: k.Env, LoginTTL: time.Minute, OnLoginURL: func(p string) { paths = append(paths, p) }})
	defer s.Close()
	clock.Advance(2 * time.Minute)
	if s.auth.redeem(strings.TrimPrefix(paths[0], "/login?token=")) {
		t.Fatal("a login URL past its TTL was accepted")
	}
}

func TestMutationsNeedTheCSRFToken(t *testing.T) {
	d := newDash(t)
	before := d.Count(`SELECT COUNT(*) FROM messages`)
	for name, token := range map[string]string{"none": "", "wrong": wrongToken(d.csrf)} {
		h := map[string]string{"Content-Type": "application/json"}
		if token != "" {
			h["X-CSRF-Token"] = token
		}
		st, body := fetch(t, d.client, http.MethodPost, d.ts.URL+"/api/tools/send_message",
			strings.NewReader(`{"to":"agent-bob","body":"hi"}`), h)
		if st != http.StatusForbidden || !strings.Contains(body, `"type":"csrf"`) {
			t.Errorf("%s token: %d %s", name, st, body)
		}
	}
	if after := d.Count(`SELECT COUNT(*) FROM messages`); after != before {
		t.Fatalf("a refused call wrote %d messages", after-before)
	}
	// Without a session at all, the API is closed whatever the header.
	st, body := fetch(t, newClient(t), http.MethodPost, d.ts.URL+"/api/tools/send_message",
		strings.NewReader(`{"to":"agent-bob","body":"hi"}`), map[string]string{"X-CSRF-Token": d.csrf})
	if st != http.StatusUnauthorized || !strings.Contains(body, "login_required") {
		t.Fatalf("no session: %d %s", st, body)
	}
}

func TestActionsRunAsTheUserAndLandInTheActionLog(t *testing.T) {
	d := newDash(t)
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "hello"})
	d.mustAct("send_message", map[string]any{"to": "agent-bob", "body": "hello back"})
	if n := d.Count(`SELECT COUNT(*) FROM actions WHERE agent = 'user' AND source = 'web' AND tool = 'send_message'`); n != 1 {
		t.Fatalf("the action log has %d web send_message calls by user, want 1", n)
	}
	// A failing call answers the tool's structured error and changes nothing.
	st, out := d.act("send_message", map[string]any{"to": "agent-bob"})
	e, _ := out["error"].(map[string]any)
	if st != http.StatusBadRequest || e["code"] != "ERR_INVALID_INPUT" || e["next_action_hint"] == nil {
		t.Fatalf("bad input: %d %v", st, out)
	}
	st, out = d.act("no_such_tool", map[string]any{})
	if st == http.StatusOK || out["error"] == nil {
		t.Fatalf("unknown tool: %d %v", st, out)
	}
}

func TestInsecureLocalNeedsNoLoginButStillTheCSRFToken(t *testing.T) {
	k := testkit.New(t)
	s := New(Options{Registry: k.Registry, Env: k.Env, Insecure: true})
	d := &dash{Kit: k, t: t, srv: s, client: newClient(t)}
	d.ts = newTestServer(t, s)
	st, page := d.get("/")
	if st != http.StatusOK || !strings.Contains(page, "Needs you") {
		t.Fatalf("insecure-local front page: %d", st)
	}
	d.csrf = csrfOf(t, page)
	st, _ = fetch(t, d.client, http.MethodPost, d.ts.URL+"/api/tools/send_message",
		strings.NewReader(`{"to":"agent-bob","body":"hi"}`), map[string]string{"Content-Type": "application/json"})
	if st != http.StatusForbidden {
		t.Fatalf("insecure-local without the CSRF token: %d", st)
	}
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "hello"})
	d.mustAct("send_message", map[string]any{"to": "agent-bob", "body": "hi"})
}

func TestUnknownPageIsA404Page(t *testing.T) {
	d := newDash(t)
	st, page := d.get("/no/such/page")
	if st != http.StatusNotFound {
		t.Fatalf("unknown page: %d", st)
	}
	mustContain(t, page, "Not found", "there is no page at /no/such/page")
}

// A cookie for 127.0.0.1 reaches every port of it. Another local server
// that replays it can read pages, but no page holds the CSRF token, so it
// cannot act.
func TestAReplayedCookieCannotAct(t *testing.T) {
	d := newDash(t)
	for _, path := range []string{"/", "/board", "/messages", "/agents", "/reservations", "/runs", "/audit", "/search", "/prs"} {
		_, page := d.get(path)
		if strings.Contains(page, d.csrf) || strings.Contains(page, `name="csrf-token"`) {
			t.Fatalf("%s carries the CSRF token", path)
		}
	}
	st, _ := fetch(t, d.client, http.MethodPost, d.ts.URL+"/api/tools/send_message",
		strings.NewReader(`{"to":"agent-bob","body":"hi"}`), map[string]string{"Content-Type": "application/json"})
	if st != http.StatusForbidden {
		t.Fatalf("the cookie alone: %d", st)
	}
}

// Under --insecure-local every browser shares one session: cookie-less
// requests from any page cannot push the operator's session out.
func TestInsecureLocalSessionCannotBeEvicted(t *testing.T) {
	k := testkit.New(t)
	s := New(Options{Registry: k.Registry, Env: k.Env, Insecure: true})
	d := &dash{Kit: k, t: t, srv: s, client: newClient(t)}
	d.ts = newTestServer(t, s)
	_, page := d.get("/")
	d.csrf = csrfOf(t, page)
	for range maxSessions + 10 {
		fetch(t, newClient(t), http.MethodGet, d.ts.URL+"/", nil, nil)
	}
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "hello"})
	d.mustAct("send_message", map[string]any{"to": "agent-bob", "body": "still here"})
}

func TestLogoutEndsTheSessionAndItsLiveStream(t *testing.T) {
	d := newDash(t)
	s := d.listen("")
	s.until("hello", "", 5*time.Second)
	st, _ := fetch(t, d.client, http.MethodPost, d.ts.URL+"/logout", nil, map[string]string{"X-CSRF-Token": d.csrf})
	if st != http.StatusNoContent {
		t.Fatalf("logout: %d", st)
	}
	// The next change (or keepalive) finds the session gone.
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "after logout"})
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, open := <-s.lines:
			if !open {
				goto closed
			}
		case <-deadline:
			t.Fatal("the live stream outlived the logout")
		}
	}
closed:
	if st, _ := d.get("/"); st != http.StatusUnauthorized {
		t.Fatalf("after logout the front page answered %d", st)
	}
}
