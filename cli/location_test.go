package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
)

// gitRepo makes a git repository with one commit in a temp directory, or
// skips when git is not installed.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; .ci/run installs it (apt-get install git)")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "shop")
	gitIn(t, dir, "init", "-q", "-b", "main", repo)
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("shop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "README")
	gitIn(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first")
	return repo
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestDatabaseFoundLikeGit: every command finds the team's one database the
// way git finds .git: from a subdirectory, from a linked worktree (the main
// repository's), and init puts a new one at the top, never in a
// subdirectory. --db and BATON_DB still win.
func TestDatabaseFoundLikeGit(t *testing.T) {
	repo := gitRepo(t)
	sub := filepath.Join(repo, "src", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(repo, ".baton", "baton.db")

	// Reading finds nothing and creates nothing.
	t.Chdir(sub)
	r := baton(t, nil, "ready")
	if r.code == 0 || !strings.Contains(r.stderr, "baton init") || !strings.Contains(r.stderr, want) {
		t.Fatalf("ready without a database = %+v", r)
	}
	for _, d := range []string{filepath.Join(sub, ".baton"), filepath.Join(repo, ".baton")} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Fatalf("a reading command created %s (%v)", d, err)
		}
	}

	// init from a subdirectory creates at the git top level, named after it.
	r = baton(t, nil, "init")
	if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "project shop") {
		t.Fatalf("init in a subdirectory = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(sub, ".baton")); !os.IsNotExist(err) {
		t.Fatalf("init created a database in the subdirectory")
	}
	if r := baton(t, nil, "tasks", "task_create", "--title", "shared work", "--project", "shop"); r.code != 0 {
		t.Fatalf("task_create from the subdirectory = %+v", r)
	}

	// A linked worktree outside the repository uses the main repository's.
	wt := filepath.Join(filepath.Dir(repo), "shop-wt")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	t.Chdir(wt)
	r = baton(t, nil, "tasks", "task_list")
	if r.code != 0 || !strings.Contains(r.stdout, "shared work") {
		t.Fatalf("task_list in a worktree = %+v", r)
	}
	if loc := cli.Locate(wt, "", ""); loc.Path != want || !strings.Contains(loc.Reason, "worktree") {
		t.Fatalf("Locate in a worktree = %+v", loc)
	}

	// An explicit database wins, and is not created by reading either.
	other := filepath.Join(t.TempDir(), "other.db")
	for _, env := range []map[string]string{nil, {"BATON_DB": other}} {
		args := []string{"ready"}
		if env == nil {
			args = append([]string{"--db", other}, args...)
		}
		r = baton(t, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, other) {
			t.Fatalf("ready with %v %v = %+v", env, args, r)
		}
		if _, err := os.Stat(other); !os.IsNotExist(err) {
			t.Fatalf("reading created %s", other)
		}
	}
}

// TestLocateOutsideGit: outside a repository a new database goes in the
// working directory, and one above it is found.
func TestLocateOutsideGit(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	loc := cli.Locate(dir, "", "")
	if loc.Exists || loc.Path != filepath.Join(dir, ".baton", "baton.db") {
		t.Fatalf("Locate in an empty directory = %+v", loc)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".baton"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".baton", "baton.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	below := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(below, 0o755); err != nil {
		t.Fatal(err)
	}
	if loc := cli.Locate(below, "", ""); !loc.Exists || loc.Root != dir {
		t.Fatalf("Locate below a database = %+v", loc)
	}
}

// TestInitAgainConfirms: init run again without --project confirms the
// team's only project instead of adding one named after the directory;
// with several it asks which; --project NEW adds one.
func TestInitAgainConfirms(t *testing.T) {
	repo := gitRepo(t)
	t.Chdir(repo)
	if r := baton(t, nil, "init", "--project", "web", "--prefix", "WEB"); r.code != 0 {
		t.Fatalf("init = %+v", r)
	}
	if r := baton(t, nil, "init"); r.code != 0 || !strings.Contains(r.stdout, "already holds project web") {
		t.Fatalf("init again = %+v", r)
	}
	if r := baton(t, nil, "init", "--project", "api"); r.code != 0 || !strings.Contains(r.stdout, "project api") {
		t.Fatalf("init --project api = %+v", r)
	}
	if r := baton(t, nil, "init"); r.code != 2 || !strings.Contains(r.stderr, "--project") || !strings.Contains(r.stderr, "api, web") {
		t.Fatalf("init with two projects and none named = %+v", r)
	}
	if r := baton(t, nil, "tasks", "task_list", "--json"); r.code != 0 || strings.Contains(r.stdout, `"shop"`) {
		t.Fatalf("no project named after the directory should exist: %+v", r)
	}
}
