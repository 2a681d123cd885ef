package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
)

// dash is a dashboard on a real SQLite store, served by httptest, with a
// browser-like client that logged in through the one-time URL.
type dash struct {
	*testkit.Kit
	t      *testing.T
	srv    *Server
	ts     *httptest.Server
	client *http.Client
	csrf   string

	mu     sync.Mutex
	logins []string // login paths announced, oldest first
}

func newDash(t *testing.T) *dash {
	t.Helper()
	return dashOn(t, testkit.New(t))
}

// newDashAt is newDash on a fake clock (store, tools and logins alike).
func newDashAt(t *testing.T, c *testkit.Clock) *dash {
	t.Helper()
	return dashOn(t, testkit.NewAt(t, c))
}

func dashOn(t *testing.T, k *testkit.Kit) *dash {
	t.Helper()
	k.Env.Bus = events.NewBus()
	d := &dash{Kit: k, t: t}
	d.srv = New(Options{Registry: k.Registry, Env: k.Env, OnLoginURL: func(p string) {
		d.mu.Lock()
		d.logins = append(d.logins, p)
		d.mu.Unlock()
	}})
	d.ts = httptest.NewServer(d.srv)
	t.Cleanup(func() {
		d.srv.Close()
		d.ts.Close()
	})
	d.client = newClient(t)
	d.login()
	return d
}

func newClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

// lastLogin is the newest one-time login path.
func (d *dash) lastLogin() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.logins) == 0 {
		d.t.Fatal("no login URL was announced")
	}
	return d.logins[len(d.logins)-1]
}

// login opens the newest login URL and keeps the CSRF token its redirect
// hands over in the #fragment, as the page's script does.
func (d *dash) login() {
	d.t.Helper()
	var frag string
	c := *d.client
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		frag = req.URL.Fragment
		return nil
	}
	st, body := fetch(d.t, &c, http.MethodGet, d.ts.URL+d.lastLogin(), nil, nil)
	if st != http.StatusOK {
		d.t.Fatalf("login: %d %s", st, body)
	}
	tok, ok := strings.CutPrefix(frag, "csrf=")
	if !ok || len(tok) < 40 {
		d.t.Fatalf("the login redirect's fragment is %q, want csrf=TOKEN", frag)
	}
	if strings.Contains(body, tok) {
		d.t.Fatal("the page carries the CSRF token: any server on this host that gets the cookie could read it")
	}
	d.csrf = tok
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)">`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfMeta.FindStringSubmatch(page)
	if m == nil || m[1] == "" {
		t.Fatalf("no CSRF token in the page:\n%s", page)
	}
	return m[1]
}

// get fetches a page as the logged-in browser.
func (d *dash) get(path string) (int, string) {
	d.t.Helper()
	return fetch(d.t, d.client, http.MethodGet, d.ts.URL+path, nil, nil)
}

// act calls a tool through the dashboard's API as the logged-in browser.
func (d *dash) act(tool string, args any) (int, map[string]any) {
	d.t.Helper()
	b, _ := json.Marshal(args)
	st, body := fetch(d.t, d.client, http.MethodPost, d.ts.URL+"/api/tools/"+tool, strings.NewReader(string(b)),
		map[string]string{"X-CSRF-Token": d.csrf, "Content-Type": "application/json"})
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		d.t.Fatalf("%s: the answer is not JSON: %d %s", tool, st, body)
	}
	return st, out
}

// mustAct is act that fails the test unless the call succeeded.
func (d *dash) mustAct(tool string, args any) map[string]any {
	d.t.Helper()
	st, out := d.act(tool, args)
	if st != http.StatusOK {
		d.t.Fatalf("%s: %d %v", tool, st, out)
	}
	res, _ := out["result"].(map[string]any)
	return res
}

func fetch(t *testing.T, c *http.Client, method, url string, body io.Reader, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// mustContain fails unless page holds every piece.
func mustContain(t *testing.T, page string, pieces ...string) {
	t.Helper()
	for _, p := range pieces {
		if !strings.Contains(page, p) {
			t.Errorf("the page lacks %q", p)
		}
	}
	if t.Failed() {
		t.Logf("page:\n%s", page)
	}
}

func newTestServer(t *testing.T, s *Server) *httptest.Server {
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return ts
}

// wrongToken returns a token of tok's length that differs from it in its
// first character, so a test of a refused token never sends the right one by
// chance (a random token begins with any given letter one time in 64).
func wrongToken(tok string) string {
	if strings.HasPrefix(tok, "x") {
		return "y" + tok[1:]
	}
	return "x" + tok[1:]
}
