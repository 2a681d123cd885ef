package browsertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// bin is the baton binary built once for all tests; chromium the browser
// they drive ("" when none was found: every test then skips).
var (
	bin      string
	chromium string
	workDir  string
)

// installHint says why the tests skip and how to run them.
func installHint() string {
	how := "install it with `apt-get install -y chromium` (.ci/run does) or set BATON_CHROMIUM=/path/to/chrome"
	if p := os.Getenv("BATON_CHROMIUM"); p != "" {
		return "BATON_CHROMIUM=" + p + " is not a file: " + how
	}
	return "no Chromium found (looked for chromium, chromium-browser, google-chrome in PATH and BATON_CHROMIUM): " + how
}

// shortSkip says why -short skips the package: a browser and a server
// binary are the slow kind of test -short leaves out.
const shortSkip = "the browser tests start Chromium and a built baton: run them without -short"

func TestMain(m *testing.M) {
	flag.Parse()
	chromium = findChromium()
	if chromium == "" || testing.Short() {
		// Nothing to build: every test skips with installHint.
		os.Exit(m.Run())
	}
	var err error
	if workDir, err = os.MkdirTemp("", "baton-browsertest-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(workDir, "baton")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../../cmd/baton")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building baton:", err)
		os.RemoveAll(workDir)
		os.Exit(1)
	}
	code := m.Run()
	stopShared()
	os.RemoveAll(workDir)
	os.Exit(code)
}

// findChromium returns the browser to drive: BATON_CHROMIUM, else the
// first of the usual names in PATH.
func findChromium() string {
	if p := os.Getenv("BATON_CHROMIUM"); p != "" {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		return ""
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// fixture is what the tests share: one database, one `baton serve` on it
// and one browser. Tests that need their own cookies open a fresh browser
// context (newTab), and each test makes its own agents and items, so they
// do not see each other's work where it matters.
type fixture struct {
	db      string
	srv     *server
	browser context.Context // a chromedp context whose browser runs

	stopBrowser, stopAlloc context.CancelFunc
}

var shared struct {
	once sync.Once
	fx   *fixture
	err  error
}

// setup returns the shared fixture, starting it on first use; without a
// Chromium the test skips.
func setup(t *testing.T) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip(shortSkip)
	}
	if chromium == "" {
		t.Skip(installHint())
	}
	shared.once.Do(func() { shared.fx, shared.err = newFixture() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.fx
}

func newFixture() (*fixture, error) {
	fx := &fixture{db: filepath.Join(workDir, "baton.db")}
	// The browser starts while baton does: both take seconds.
	profile := filepath.Join(workDir, "chromium-profile")
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // root in a container has no user namespace for the sandbox
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(desktopW, desktopH),
	)
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, stopBrowser := chromedp.NewContext(alloc)
	fx.browser, fx.stopAlloc, fx.stopBrowser = browser, stopAlloc, stopBrowser
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(browser) }()

	var err error
	if out, ierr := exec.Command(bin, "--db", fx.db, "init", "--project", "colibri", "--prefix", "COL").CombinedOutput(); ierr != nil {
		err = fmt.Errorf("baton init: %v\n%s", ierr, out)
	} else {
		fx.srv, err = startServer(fx.db)
	}
	select {
	case berr := <-started:
		if berr != nil && err == nil {
			err = fmt.Errorf("starting %s: %v", chromium, berr)
		}
	case <-time.After(60 * time.Second):
		if err == nil {
			err = fmt.Errorf("starting %s: timed out", chromium)
		}
	}
	if err != nil {
		fx.close()
		return nil, err
	}
	return fx, nil
}

func (fx *fixture) close() {
	if fx.stopBrowser != nil {
		fx.stopBrowser()
		fx.stopAlloc()
	}
	if fx.srv != nil {
		fx.srv.stop()
	}
}

// stopShared ends what setup started, after the last test.
func stopShared() {
	if shared.fx != nil {
		shared.fx.close()
	}
}
