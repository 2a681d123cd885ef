package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Viewports: a laptop and a phone (an iPhone 12-15's CSS pixels).
const (
	desktopW, desktopH = 1280, 800
	phoneW, phoneH     = 390, 844
)

// tabTimeout bounds what one test does in its tab, so a page that never
// shows what a test waits for fails the test instead of hanging it.
const tabTimeout = 90 * time.Second

// tab is a browser tab in a fresh browser context: its own cookies, as a
// new incognito window has.
type tab struct {
	t     *testing.T
	fx    *fixture
	ctx   context.Context
	shots *shots
}

// newTab opens a tab with no login.
func (fx *fixture) newTab(t *testing.T) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(fx.browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(desktopW, desktopH)); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	// The deadline is set after the tab exists: on the first run it would
	// bound the tab's life, which is the test's.
	ctx, stop := context.WithTimeout(ctx, tabTimeout)
	t.Cleanup(stop)
	return &tab{t: t, fx: fx, ctx: ctx, shots: shotsOf(t)}
}

// loggedInTab opens a tab and logs in with the next one-time URL.
func (fx *fixture) loggedInTab(t *testing.T) *tab {
	t.Helper()
	tb := fx.newTab(t)
	tb.do(chromedp.Navigate(fx.srv.nextLogin(t)))
	if loc := tb.location(); loc != fx.srv.url+"/" {
		t.Fatalf("the login URL led to %s, want the front page", loc)
	}
	if c := tb.sessionCookie(); c == nil {
		t.Fatal("no session cookie after logging in")
	}
	return tb
}

// do runs actions in the tab, failing the test on an error.
func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, steps...); err != nil {
		tb.t.Fatal(err)
	}
}

// open navigates to path and returns the HTTP status of the document.
func (tb *tab) open(path string) int64 {
	tb.t.Helper()
	resp, err := chromedp.Run(tb.ctx, chromedp.NavigateResponse(tb.fx.srv.url+path))
	if err != nil {
		tb.t.Fatalf("opening %s: %v", path, err)
	}
	return resp.Status
}

// openLive opens path and waits until its live stream is connected, so
// a change made after it returns reaches the page.
func (tb *tab) openLive(path string) {
	tb.t.Helper()
	if st := tb.open(path); st != 200 {
		tb.t.Fatalf("GET %s: status %d: %s", path, st, tb.text("body"))
	}
	tb.waitJS(`document.getElementById("live-state")?.textContent === "live"`, 5*time.Second,
		"the page's live stream to connect (#live-state says live)")
}

func (tb *tab) location() string {
	tb.t.Helper()
	loc, err := chromedp.Run(tb.ctx, chromedp.Location())
	if err != nil {
		tb.t.Fatal(err)
	}
	return loc
}

// text returns the rendered text of the first element matching css.
func (tb *tab) text(css string) string {
	tb.t.Helper()
	return eval[string](tb, fmt.Sprintf(`document.querySelector(%q)?.innerText ?? ""`, css))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript expression until it is truthy, failing the
// test with what after timeout.
func (tb *tab) waitJS(expr string, timeout time.Duration, what string) {
	tb.t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	if err != nil {
		tb.shot("timeout")
		tb.t.Fatalf("waited %s for %s: %v", timeout, what, err)
	}
}

// sessionCookie returns the dashboard's session cookie as the browser
// keeps it, nil when there is none.
func (tb *tab) sessionCookie() *network.Cookie {
	tb.t.Helper()
	res, err := chromedp.Call(tb.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{tb.fx.srv.url + "/"}})
	if err != nil {
		tb.t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == "baton_session" {
			return c
		}
	}
	return nil
}

// shot saves a full-page screenshot named NN-name.png.
func (tb *tab) shot(name string) {
	tb.t.Helper()
	tb.shots.take(tb.t, tb.ctx, name)
}

// shots are one test's screenshots: in $BATON_SCREENSHOTS/TEST when set,
// so a person can look at them after the run, else in the test's
// temporary directory.
type shots struct {
	dir string
	mu  sync.Mutex
	n   int
}

// testShots holds each running test's shots, so the tabs of one test
// number their screenshots in one sequence.
var testShots sync.Map // *testing.T -> *shots

func shotsOf(t *testing.T) *shots {
	if s, ok := testShots.Load(t); ok {
		return s.(*shots)
	}
	s := &shots{}
	if dir := os.Getenv("BATON_SCREENSHOTS"); dir == "" {
		s.dir = t.TempDir()
	} else {
		// The test's own directory, emptied of an earlier run's pictures.
		s.dir = filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
		if err := os.RemoveAll(s.dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testShots.Store(t, s)
	t.Cleanup(func() { testShots.Delete(t) })
	return s
}

func (s *shots) take(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(s.dir, fmt.Sprintf("%02d-%s.png", n, name))
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", p)
}
