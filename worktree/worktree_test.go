package worktree_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/gittest"
	"github.com/baton-dev/baton/worktree"
)

// needGit skips a test on a machine without git.
func needGit(t testing.TB) { gittest.Need(t, "worktrees need it") }

// run runs git in dir (gittest.Git).
func run(t testing.TB, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

// newRepo makes a repository with one commit on branch, in a folder whose
// path goes through no symbolic link (so paths compare as strings).
func newRepo(t testing.TB, branch string) string {
	t.Helper()
	needGit(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "init", "-q", "-b", branch)
	write(t, dir, "README.md", "# repo\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// write writes a file under dir (gittest.Write).
func write(t testing.TB, dir, name, body string) { gittest.Write(t, dir, name, body) }

func commit(t testing.TB, dir, name, body, msg string) {
	t.Helper()
	write(t, dir, name, body)
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", msg)
}

func code(err error) string { return baton.ErrorCode(err) }

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"SYM-1":       "SYM-1",
		"a.b_c-D9":    "a.b_c-D9",
		"SYM 1/x":     "SYM_1_x",
		"../../etc":   ".._.._etc",
		"..":          "_..",
		".":           "_.",
		"":            "_",
		"é-1":         "_-1",
		"x;rm -rf /":  "x_rm_-rf__",
		"PROJ-12\n\t": "PROJ-12__",
	} {
		if got := worktree.Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := worktree.Branch("SYM 1"); got != "symphony/SYM_1" {
		t.Errorf("Branch = %q", got)
	}
	if got := worktree.Dir("/r", "SYM-1"); got != filepath.Join("/r", ".symphony-workspaces", "SYM-1") {
		t.Errorf("Dir = %q", got)
	}
}

func TestCreateMakesWorktreeBranchAndMarker(t *testing.T) {
	repo := newRepo(t, "main")
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	wt, err := worktree.Create(context.Background(), worktree.Options{Repo: repo, Issue: "SYM-1", Project: "sym", RunID: "run-7", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repo, ".symphony-workspaces", "SYM-1")
	if wt.Path != dir || wt.Branch != "symphony/SYM-1" || wt.Base != "main" || wt.Reused || !wt.BranchCreated || len(wt.Warnings) != 0 {
		t.Fatalf("worktree = %+v", wt)
	}
	if got := run(t, dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "symphony/SYM-1" {
		t.Errorf("branch checked out = %q", got)
	}
	if run(t, dir, "rev-parse", "HEAD") != run(t, repo, "rev-parse", "main") {
		t.Error("the branch does not start at main")
	}
	b, err := os.ReadFile(filepath.Join(dir, ".symphony-worktree"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("marker is not JSON: %s", b)
	}
	want := map[string]string{"issue": "SYM-1", "project": "sym", "branch": "symphony/SYM-1", "base_branch": "main", "path": dir,
		"created_at": "2026-05-01T12:00:00Z", "run_id": "run-7"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("marker[%s] = %q, want %q", k, m[k], v)
		}
	}
	if len(m) != len(want) {
		t.Errorf("marker = %v, want exactly %v", m, want)
	}
	// Neither the workspaces folder nor the marker shows as a change: the
	// marker is never committed into the PR, the main tree stays clean.
	if st := run(t, repo, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("main repository status = %q, want clean", st)
	}
	run(t, dir, "add", "-A")
	if st := run(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("worktree status after git add -A = %q, want nothing staged", st)
	}
	// The exclusions are written once.
	if _, err := worktree.Create(context.Background(), worktree.Options{Repo: repo, Issue: "SYM-2"}); err != nil {
		t.Fatal(err)
	}
	ex, _ := os.ReadFile(filepath.Join(repo, ".git", "info", "exclude"))
	if n := strings.Count(string(ex), "/.symphony-workspaces/"); n != 1 {
		t.Errorf("info/exclude names the workspaces %d times:\n%s", n, ex)
	}
	// Find reads it back.
	if f := worktree.Find(repo, "SYM-1"); f == nil || f.Path != dir || f.Branch != "symphony/SYM-1" || f.Base != "main" {
		t.Errorf("Find = %+v", f)
	}
	if f := worktree.Find(repo, "SYM-9"); f != nil {
		t.Errorf("Find of an issue without a worktree = %+v", f)
	}
}

func TestCreateReusesAndMergesBase(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	first, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1", RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, first.Path, "feature.go", "package x\n", "work on the issue")
	commit(t, repo, "later.txt", "base moved on\n", "base moves")
	again, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1", RunID: "run-2"})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reused || again.BranchCreated || again.Path != first.Path || len(again.Warnings) != 0 {
		t.Fatalf("second create = %+v", again)
	}
	// The latest base is merged in; the issue's work is kept.
	run(t, again.Path, "merge-base", "--is-ancestor", "main", "HEAD")
	for _, f := range []string{"feature.go", "later.txt"} {
		if _, err := os.Stat(filepath.Join(again.Path, f)); err != nil {
			t.Errorf("%s missing after reuse: %v", f, err)
		}
	}
	if m, _, _ := worktree.ReadMarker(again.Path); m == nil || m.RunID != "run-2" {
		t.Errorf("marker not rewritten for the new run: %+v", m)
	}
	// Nothing to merge: nothing changes.
	head := run(t, again.Path, "rev-parse", "HEAD")
	if _, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"}); err != nil {
		t.Fatal(err)
	}
	if run(t, again.Path, "rev-parse", "HEAD") != head {
		t.Error("a reuse with the base merged already made a commit")
	}
}

func TestCreateReuseWithConflictWarnsAndLeavesWorktree(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, wt.Path, "README.md", "# issue side\n", "issue edits README")
	commit(t, repo, "README.md", "# base side\n", "base edits README")
	head := run(t, wt.Path, "rev-parse", "HEAD")
	again, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Warnings) != 1 || !strings.Contains(again.Warnings[0], "could not merge main") {
		t.Fatalf("warnings = %q", again.Warnings)
	}
	if run(t, wt.Path, "rev-parse", "HEAD") != head {
		t.Error("a failed merge moved the branch")
	}
	if st := run(t, wt.Path, "status", "--porcelain"); st != "" {
		t.Errorf("worktree left mid-merge: %q", st)
	}
}

func TestCreateBase(t *testing.T) {
	ctx := context.Background()
	// No main: the branch the repository is on.
	repo := newRepo(t, "trunk")
	wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil || wt.Base != "trunk" {
		t.Fatalf("create = %+v, %v; want base trunk", wt, err)
	}
	// A named base.
	run(t, repo, "branch", "develop")
	wt, err = worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-2", Base: "develop"})
	if err != nil || wt.Base != "develop" {
		t.Fatalf("create = %+v, %v; want base develop", wt, err)
	}
	// A base that does not exist changes nothing.
	_, err = worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-3", Base: "nope"})
	if code(err) != baton.ErrInvalidInput || !strings.Contains(err.Error(), `the base branch "nope" does not exist`) {
		t.Fatalf("missing base: %v", err)
	}
	if _, err := os.Stat(worktree.Dir(repo, "SYM-3")); !os.IsNotExist(err) {
		t.Errorf("a failed create left %s", worktree.Dir(repo, "SYM-3"))
	}
	if out := run(t, repo, "branch", "--list", "symphony/SYM-3"); out != "" {
		t.Errorf("a failed create left the branch: %q", out)
	}
}

func TestCreatePrunesStaleRegistrationAndReusesBranch(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, wt.Path, "work.txt", "done\n", "committed work")
	// A crash: the folder is gone, git still lists it.
	if err := os.RemoveAll(wt.Path); err != nil {
		t.Fatal(err)
	}
	again, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Reused || again.BranchCreated {
		t.Errorf("create after a crash = %+v, want a new worktree on the existing branch", again)
	}
	if _, err := os.Stat(filepath.Join(again.Path, "work.txt")); err != nil {
		t.Errorf("the branch's committed work is not in the new worktree: %v", err)
	}
}

func TestCreateRefusals(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t, "main")
	// A folder in the way that is not a worktree.
	write(t, worktree.Dir(repo, "SYM-1"), "notes.txt", "mine\n")
	_, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if e := baton.AsError(err); e.Code != baton.ErrConflict || e.Type != "path_conflict" || !strings.Contains(e.Message, "is not a worktree") {
		t.Errorf("folder in the way: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(worktree.Dir(repo, "SYM-1"), "notes.txt")); string(b) != "mine\n" {
		t.Error("the folder in the way was touched")
	}
	// The issue's branch checked out somewhere else.
	run(t, repo, "branch", "symphony/SYM-2")
	other := filepath.Join(filepath.Dir(repo), "other")
	run(t, repo, "worktree", "add", "-q", other, "symphony/SYM-2")
	_, err = worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-2"})
	if e := baton.AsError(err); e.Code != baton.ErrConflict || !strings.Contains(e.Message, "checked out in another worktree") {
		t.Errorf("branch elsewhere: %v", err)
	}
	// A reused worktree switched to another branch.
	wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-3"})
	if err != nil {
		t.Fatal(err)
	}
	run(t, wt.Path, "switch", "-q", "-c", "elsewhere")
	_, err = worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-3"})
	if e := baton.AsError(err); e.Code != baton.ErrConflict || !strings.Contains(e.Message, `is on "elsewhere"`) {
		t.Errorf("switched worktree: %v", err)
	}
	// Not a repository.
	plain := t.TempDir()
	_, err = worktree.Create(ctx, worktree.Options{Repo: plain, Issue: "SYM-1"})
	if e := baton.AsError(err); e.Code != baton.ErrInvalidInput || !strings.Contains(e.Message, "not inside a git repository") {
		t.Errorf("plain folder: %v", err)
	}
	// A repository without a commit has nothing to branch from.
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, empty, "init", "-q", "-b", "main")
	_, err = worktree.Create(ctx, worktree.Options{Repo: empty, Issue: "SYM-1"})
	if e := baton.AsError(err); e.Code != baton.ErrInvalidInput || !strings.Contains(e.Message, "no main branch") {
		t.Errorf("empty repository: %v", err)
	}
	// An identifier git cannot name a branch after.
	_, err = worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "a..b"})
	if code(err) != baton.ErrInvalidInput || !strings.Contains(err.Error(), "cannot be a branch name") {
		t.Errorf("bad branch name: %v", err)
	}
}

func TestCreateFromLinkedWorktreeUsesMainRepository(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	// Asked from inside SYM-1's worktree (a subfolder even), SYM-2's
	// worktree still hangs off the main repository.
	sub := filepath.Join(wt.Path, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wt2, err := worktree.Create(ctx, worktree.Options{Repo: sub, Issue: "SYM-2"})
	if err != nil {
		t.Fatal(err)
	}
	if wt2.Path != worktree.Dir(repo, "SYM-2") {
		t.Errorf("path = %s, want under the main repository %s", wt2.Path, repo)
	}
	if top, err := worktree.Top(ctx, sub); err != nil || top != repo {
		t.Errorf("Top = %q, %v", top, err)
	}
}

func TestUndoRemovesOnlyWhatCreateMade(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Undo(ctx, repo); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
		t.Error("Undo left the folder")
	}
	if out := run(t, repo, "branch", "--list", "symphony/SYM-1"); out != "" {
		t.Errorf("Undo left the branch it made: %q", out)
	}
	// A reused worktree is not Create's to undo.
	if _, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"}); err != nil {
		t.Fatal(err)
	}
	again, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Undo(ctx, repo); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(again.Path); err != nil {
		t.Error("Undo of a reuse removed the worktree")
	}
}

func TestListAndRemove(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	a, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-2"})
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(filepath.Dir(repo), "plain")
	run(t, repo, "worktree", "add", "-q", "--detach", plain)
	list, err := worktree.List(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 || !list[0].Main || list[0].Path != repo || list[0].Marker != nil {
		t.Fatalf("list = %+v", list)
	}
	issues := map[string]string{}
	for _, e := range list[1:] {
		if e.Main {
			t.Errorf("%s listed as main", e.Path)
		}
		if e.Marker != nil {
			issues[e.Path] = e.Marker.Issue + " " + e.Branch
		}
	}
	if issues[a.Path] != "SYM-1 symphony/SYM-1" || issues[b.Path] != "SYM-2 symphony/SYM-2" || len(issues) != 2 {
		t.Errorf("issue worktrees = %v", issues)
	}
	// A clean worktree goes (its marker, ignored, does not hold it back);
	// one with changes stays unless forced; the branch always stays.
	if err := worktree.Remove(ctx, repo, a.Path, false); err != nil {
		t.Fatalf("remove clean: %v", err)
	}
	write(t, b.Path, "wip.txt", "not committed\n")
	err = worktree.Remove(ctx, repo, b.Path, false)
	if e := baton.AsError(err); e.Code != baton.ErrConflict || e.Type != "git_failed" {
		t.Fatalf("remove dirty = %v, want git's refusal", err)
	}
	if _, err := os.Stat(filepath.Join(b.Path, "wip.txt")); err != nil {
		t.Fatal("the refused remove lost the work")
	}
	if err := worktree.Remove(ctx, repo, b.Path, true); err != nil {
		t.Fatalf("remove forced: %v", err)
	}
	if out := run(t, repo, "branch", "--list", "symphony/*"); !strings.Contains(out, "symphony/SYM-1") || !strings.Contains(out, "symphony/SYM-2") {
		t.Errorf("branches after removal = %q", out)
	}
}

func TestReadMarkerFormats(t *testing.T) {
	dir := t.TempDir()
	if m, path, err := worktree.ReadMarker(dir); m != nil || err != nil || path != filepath.Join(dir, ".symphony-worktree") {
		t.Fatalf("no marker = %+v %q %v", m, path, err)
	}
	write(t, dir, ".baton-worktree", "issue_id=SYM-1\nbranch = b\nbase_branch=main\npath=/x\nrun_id=r\nnoise\n")
	m, _, err := worktree.ReadMarker(dir)
	if err != nil || m.Issue != "SYM-1" || m.Branch != "b" || m.Base != "main" || m.Path != "/x" || m.RunID != "r" {
		t.Fatalf("key=value marker = %+v, %v", m, err)
	}
	write(t, dir, ".symphony-worktree", `{"issue":"SYM-2","branch":"symphony/SYM-2"}`)
	if m, _, _ := worktree.ReadMarker(dir); m.Issue != "SYM-2" {
		t.Errorf("Symphony's marker is not read first: %+v", m)
	}
}

func TestCreateRefusesAFolderOfAnotherIssue(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	if _, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM 1"}); err != nil {
		t.Fatal(err)
	}
	// SYM_1 sanitises like "SYM 1": same folder, same branch, other issue.
	_, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM_1"})
	if e := baton.AsError(err); e.Code != baton.ErrConflict || !strings.Contains(e.Message, "belongs to SYM 1, not SYM_1") {
		t.Fatalf("create over another issue's worktree: %v", err)
	}
	if m, _, _ := worktree.ReadMarker(worktree.Dir(repo, "SYM 1")); m.Issue != "SYM 1" {
		t.Errorf("the marker was overwritten: %+v", m)
	}
}

func TestFindFromAnyFolderOfTheRepository(t *testing.T) {
	repo := newRepo(t, "main")
	ctx := context.Background()
	wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-1"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "SYM-2"})
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "services", "api")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// A project rooted in a subfolder, or a look from another worktree.
	for _, from := range []string{repo, sub, other.Path, filepath.Join(other.Path, ".")} {
		if m := worktree.Find(from, "SYM-1"); m == nil || m.Path != wt.Path {
			t.Errorf("Find from %s = %+v, want %s", from, m, wt.Path)
		}
	}
	if m := worktree.Find(t.TempDir(), "SYM-1"); m != nil {
		t.Errorf("Find outside git = %+v", m)
	}
}

// TestPointAlsoGitEnvironmentIsIgnored: a server started with GIT_DIR,
// GIT_WORK_TREE and GIT_INDEX_FILE exported (from a git hook, say) still
// makes the worktree in the repository it was asked for, not in the one
// those name.
func TestPointAlsoGitEnvironmentIsIgnored(t *testing.T) {
	repo, other := newRepo(t, "main"), newRepo(t, "main")
	t.Setenv("GIT_DIR", "") // restored after the test
	t.Setenv("GIT_WORK_TREE", "")
	t.Setenv("GIT_INDEX_FILE", "")
	os.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	os.Setenv("GIT_WORK_TREE", other)
	os.Setenv("GIT_INDEX_FILE", filepath.Join(other, ".git", "index"))
	wt, err := worktree.Create(context.Background(), worktree.Options{Repo: repo, Issue: "REP-9", Project: "repo"})
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		os.Unsetenv(k)
	}
	if err != nil {
		t.Fatalf("Create with GIT_DIR of another repository: %v", err)
	}
	if b := run(t, repo, "branch", "--list", wt.Branch); !strings.Contains(b, wt.Branch) {
		t.Errorf("branch %s is not in the repository asked for", wt.Branch)
	}
	if b := run(t, other, "branch", "--list", wt.Branch); b != "" {
		t.Errorf("branch %s was made in the repository GIT_DIR names", wt.Branch)
	}
}

// TestCreateConcurrently: worktrees of different issues created at once in
// one repository (two dispatchers on a host, agents asking together) all
// come into being. Each Create prunes stale registrations first, and git's
// prune takes a worktree that another process is adding, before its
// registration is complete, for a stale one and deletes it.
func TestCreateConcurrently(t *testing.T) {
	repo := newRepo(t, "main")
	const n = 12
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := worktree.Create(context.Background(), worktree.Options{Repo: repo, Issue: fmt.Sprintf("SYM-%d", i), Project: "sym"})
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	list, err := worktree.List(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n+1 {
		t.Errorf("%d worktrees listed, want the main one and %d", len(list), n)
	}
}
