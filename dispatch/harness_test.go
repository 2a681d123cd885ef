package dispatch_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/dispatch"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/orchestrator"
)

// bins are the binaries the tests run: baton itself (the MCP server an
// agent's configuration starts) and the test agent (testdata/agent).
var bins struct {
	baton, agent string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "baton-dispatch-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.baton, bins.agent = filepath.Join(dir, "baton"), filepath.Join(dir, "agent")
	for _, b := range []struct{ out, pkg string }{{bins.baton, "../cmd/baton"}, {bins.agent, "./testdata/agent"}} {
		build := exec.Command("go", "build", "-o", b.out, b.pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", b.pkg, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// project is the test project: its slug, and its items' prefix.
const project, prefix = "sym", "SYM"

// fixture is a database (SQLite on a file), a git repository that is the
// project's root, and a dispatcher over them with a [dispatch] table.
type fixture struct {
	t     testing.TB
	k     *testkit.Kit // nil on PostgreSQL
	store baton.Store
	db    string // what the agents' baton opens
	repo  string
	d     *dispatch.Dispatcher
	ctx   context.Context
}

// newFixture makes the fixture; toml is the file's [dispatch] table, in
// which AGENT stands for the test agent's path.
func newFixture(t testing.TB, toml string) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: worktrees are made with the git binary")
	}
	testkit.SQLiteOnly(t) // the agents' baton opens the same database by its path
	k := testkit.New(t)
	return newFixtureOn(t, toml, k, k.Store, k.DBPath)
}

// newFixtureOn is newFixture on a store of the caller's: k is nil for a
// PostgreSQL store (no tool-scope files then), db what agents open.
func newFixtureOn(t testing.TB, toml string, k *testkit.Kit, store baton.Store, db string) *fixture {
	t.Helper()
	f := &fixture{t: t, k: k, store: store, db: db, repo: t.TempDir(), ctx: context.Background()}
	f.git("init", "--quiet", "--initial-branch=main")
	if err := os.WriteFile(filepath.Join(f.repo, "README.md"), []byte("# project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.git("add", "README.md")
	f.git("commit", "-q", "-m", "start")
	if err := store.Update(f.ctx, func(tx baton.Tx) error {
		return tx.CreateProject(f.ctx, &baton.Project{Slug: project, Prefix: prefix, Root: f.repo})
	}); err != nil {
		t.Fatal(err)
	}
	cfg, err := dispatch.Parse("baton.toml", []byte(strings.ReplaceAll(toml, "AGENT", bins.agent)))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	f.d = f.dispatcher(cfg, "")
	t.Cleanup(func() { f.d.Shutdown(context.Background()) })
	return f
}

// dispatcher is another dispatcher on the fixture's database, as if on
// host (the fixture's host when "").
func (f *fixture) dispatcher(cfg *dispatch.Config, host string) *dispatch.Dispatcher {
	quiet := slog.New(slog.DiscardHandler)
	d := &dispatch.Dispatcher{Store: f.store, Config: cfg, DB: f.db, Baton: []string{bins.baton},
		Projects: []string{project}, Host: host, Log: quiet,
		Repo:   func(p *baton.Project) string { return p.Root },
		Env:    append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+f.repo),
		Phases: &orchestrator.Phases{Store: f.store, Log: quiet}}
	if k := f.k; k != nil {
		d.DataDir = k.Env.DataDir
		d.Tools = func(ctx context.Context, profile, project string) ([]string, error) {
			sc, err := k.Env.Scope(ctx, baton.Principal{Profile: profile, AgentType: profile, Project: project, Source: baton.SourceStdio})
			if err != nil {
				return nil, err
			}
			return sc.Names(k.Registry), nil
		}
	}
	return d
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", f.repo, "-c", "user.email=t@example.com", "-c", "user.name=T"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+f.repo)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// item adds a ready todo item.
func (f *fixture) item(title string, labels ...string) string {
	f.t.Helper()
	it := &baton.Item{Project: project, Title: title, Labels: labels, Status: baton.StatusTodo, Kind: baton.KindTask, CreatedBy: "user"}
	f.update(func(tx baton.Tx) error { return tx.CreateItem(f.ctx, it) })
	return it.ID
}

func (f *fixture) get(id string) *baton.Item {
	f.t.Helper()
	var it *baton.Item
	f.view(func(tx baton.Tx) (err error) { it, err = tx.Item(f.ctx, id); return err })
	return it
}

func (f *fixture) runs(id string) []*baton.Run {
	f.t.Helper()
	var rs []*baton.Run
	f.view(func(tx baton.Tx) (err error) { rs, err = tx.Runs(f.ctx, id, 0); return err })
	return rs
}

func (f *fixture) view(fn func(tx baton.Tx) error) {
	f.t.Helper()
	if err := f.store.View(f.ctx, fn); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) update(fn func(tx baton.Tx) error) {
	f.t.Helper()
	if err := f.store.Update(f.ctx, fn); err != nil {
		f.t.Fatal(err)
	}
}

// once runs d.Once with a time limit and fails the test on an error.
func (f *fixture) once(d *dispatch.Dispatcher) (*dispatch.TickReport, []*dispatch.Finished) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.ctx, 2*time.Minute)
	defer cancel()
	r, fin, err := d.Once(ctx)
	if err != nil {
		f.t.Fatalf("once: %v", err)
	}
	for _, e := range r.Errors {
		f.t.Errorf("tick error: %s", e)
	}
	return r, fin
}

// byItem indexes finished runs by item.
func byItem(fin []*dispatch.Finished) map[string]*dispatch.Finished {
	m := map[string]*dispatch.Finished{}
	for _, f := range fin {
		m[f.Item] = f
	}
	return m
}

// waitFor polls cond until it holds or 30 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gone reports whether a process has ended (a zombie counts as ended:
// nothing reaps it in some containers).
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
