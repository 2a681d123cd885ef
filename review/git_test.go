package review_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
)

// repo is a real git repository in a temporary directory.
type repo struct {
	t   *testing.T
	dir string
}

// newRepo makes a repository on main with one commit; the test skips when
// git is not installed.
func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: PR records are built with the git binary")
	}
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "--quiet", "--initial-branch=main")
	r.git("config", "user.email", "test@example.com")
	r.git("config", "user.name", "Test")
	r.git("config", "commit.gpgsign", "false")
	r.write("README.md", "# project\n")
	r.write("old.go", "package x\n\nfunc Old() {}\n// one\n// two\n// three\n// four\n")
	r.write("gone.txt", "a\nb\n")
	r.commit("start")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	path := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "--quiet", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// lines is n numbered lines.
func lines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}

// TestBuildSnapshotFromGit: a branch with an added, a modified, a deleted,
// a renamed and a binary file gives their stats from git, the merge base
// and head, and git's own diff text; commits on the base after the branch
// started are not in it.
func TestBuildSnapshotFromGit(t *testing.T) {
	r := newRepo(t)
	mb := r.git("rev-parse", "HEAD")
	r.git("switch", "--quiet", "-c", "symphony/COL-1")
	r.write("new.go", "package x\n\nfunc New() {}\n")
	r.write("README.md", "# project\n\nmore\n")
	r.git("rm", "--quiet", "gone.txt")
	r.git("mv", "old.go", "renamed.go")
	if err := os.WriteFile(filepath.Join(r.dir, "logo.png"), []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	r.commit("one")
	r.write("new.go", "package x\n\nfunc New() { _ = 1 }\n")
	head := r.commit("two")
	// The base moves on: what it gained is not the branch's change.
	r.git("switch", "--quiet", "main")
	r.write("base-only.txt", "later\n")
	r.commit("base moves")

	s, err := review.Build(context.Background(), r.dir, "main", "symphony/COL-1")
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseSHA != mb || s.HeadSHA != head || s.Commits != 2 {
		t.Fatalf("base %s head %s commits %d; want %s %s 2", s.BaseSHA, s.HeadSHA, s.Commits, mb, head)
	}
	want := map[string]baton.FileStat{
		"README.md":  {Path: "README.md", Status: "modified", Added: 2},
		"gone.txt":   {Path: "gone.txt", Status: "deleted", Removed: 2},
		"logo.png":   {Path: "logo.png", Status: "added", Binary: true},
		"new.go":     {Path: "new.go", Status: "added", Added: 3},
		"renamed.go": {Path: "renamed.go", OldPath: "old.go", Status: "renamed"},
	}
	if len(s.Files) != len(want) {
		t.Fatalf("files %+v, want %d", s.Files, len(want))
	}
	for _, f := range s.Files {
		if w, ok := want[f.Path]; !ok || f != w {
			t.Errorf("file %+v, want %+v", f, w)
		}
	}
	for _, frag := range []string{"diff --git a/new.go b/new.go", "rename from old.go", "rename to renamed.go",
		"Binary files /dev/null and b/logo.png differ", "+func New() { _ = 1 }", "deleted file mode"} {
		if !strings.Contains(s.Diff, frag) {
			t.Errorf("diff lacks %q:\n%s", frag, s.Diff)
		}
	}
	if strings.Contains(s.Diff, "base-only.txt") {
		t.Error("the diff holds a change of the base made after the branch started")
	}
	if s.Truncated || len(s.Dirty) != 0 {
		t.Errorf("truncated %v dirty %v, want neither", s.Truncated, s.Dirty)
	}
}

// TestBuildIgnoresUserDiffConfig: the user's git configuration (no
// prefixes, mnemonic prefixes, colour, relative diffs) does not change the
// snapshot.
func TestBuildIgnoresUserDiffConfig(t *testing.T) {
	r := newRepo(t)
	r.git("switch", "--quiet", "-c", "feature")
	r.write("sub/a.go", "package sub\n")
	r.write("README.md", "# changed\n")
	r.commit("c")
	for _, kv := range [][2]string{{"diff.noprefix", "true"}, {"diff.mnemonicPrefix", "true"}, {"color.ui", "always"},
		{"color.diff", "always"}, {"diff.relative", "true"}, {"diff.renames", "false"}, {"core.quotePath", "true"}} {
		r.git("config", kv[0], kv[1])
	}
	s, err := review.Build(context.Background(), filepath.Join(r.dir, "sub"), "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Diff, "diff --git a/README.md b/README.md") || strings.Contains(s.Diff, "\x1b[") {
		t.Fatalf("the user's configuration changed the diff:\n%s", s.Diff)
	}
	if len(s.Files) != 2 {
		t.Fatalf("files %+v: a relative diff from sub/ would show only sub's", s.Files)
	}
}

// TestBuildRefusals: what git cannot give a PR for is refused with the
// field to fix, and nothing else is attempted.
func TestBuildRefusals(t *testing.T) {
	r := newRepo(t)
	r.git("branch", "empty")
	r.git("switch", "--quiet", "-c", "undone")
	r.write("tmp.txt", "x\n")
	r.commit("add")
	r.git("rm", "--quiet", "tmp.txt")
	r.commit("remove again")
	r.git("switch", "--quiet", "--orphan", "orphan")
	r.write("o.txt", "o\n")
	r.commit("orphan")
	r.git("switch", "--quiet", "main")
	cases := []struct {
		name, dir, base, branch, code, field, typ, msg string
	}{
		{"no commits", r.dir, "main", "empty", baton.ErrInvalidInput, "", "no_changes", "no committed changes: empty has no commits against main"},
		{"commits that cancel out", r.dir, "main", "undone", baton.ErrInvalidInput, "", "no_changes", "2 commits that change nothing"},
		{"unknown branch", r.dir, "main", "nope", baton.ErrInvalidInput, "branch_name", "", `branch_name "nope" names no branch`},
		{"unknown base", r.dir, "trunk", "undone", baton.ErrInvalidInput, "base_branch", "", `base_branch "trunk" names no branch`},
		{"option-like name", r.dir, "main", "--output=/tmp/x", baton.ErrInvalidInput, "branch_name", "", "is not a branch name"},
		{"unrelated histories", r.dir, "main", "orphan", baton.ErrInvalidInput, "base_branch", "", "share no history"},
		{"not a repository", t.TempDir(), "main", "x", baton.ErrInvalidInput, "", "not_a_repository", "not inside a git repository"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := review.Build(context.Background(), c.dir, c.base, c.branch)
			e := baton.AsError(err)
			if err == nil || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
				t.Fatalf("err %v, want %s containing %q", err, c.code, c.msg)
			}
			if c.field != "" && e.Details["field"] != c.field {
				t.Errorf("details %v do not name the field %s", e.Details, c.field)
			}
			if c.typ != "" && e.Type != c.typ {
				t.Errorf("type %q, want %q", e.Type, c.typ)
			}
			if e.Hint == "" {
				t.Error("no hint")
			}
		})
	}
}

// TestBuildReportsUncommittedWork: changes left in the branch's worktree
// are listed (they are not in the PR); the worktree marker is not one.
func TestBuildReportsUncommittedWork(t *testing.T) {
	r := newRepo(t)
	r.git("switch", "--quiet", "-c", "feature")
	r.write("a.go", "package a\n")
	r.commit("a")
	r.write("a.go", "package a // edited\n")
	r.write("notes/todo.md", "later\n")
	r.write(".symphony-worktree", `{"issue":"COL-1"}`)
	s, err := review.Build(context.Background(), r.dir, "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(s.Dirty)
	if strings.Join(s.Dirty, ",") != "a.go,notes/todo.md" {
		t.Fatalf("dirty %v, want a.go and notes/todo.md", s.Dirty)
	}
	if len(s.Files) != 1 || s.Files[0].Added != 1 {
		t.Fatalf("the uncommitted edit reached the stats: %+v", s.Files)
	}
	// From a checkout of another branch, its state says nothing of this one.
	r.git("stash", "--include-untracked", "--quiet")
	r.git("switch", "--quiet", "main")
	r.write("main-dirt.txt", "x\n")
	s, err = review.Build(context.Background(), r.dir, "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Dirty) != 0 {
		t.Fatalf("dirty %v from a checkout of another branch", s.Dirty)
	}
}

// TestBuildTruncatesHugeDiff: the stored diff stops at MaxDiff, the stats
// still count every line.
func TestBuildTruncatesHugeDiff(t *testing.T) {
	r := newRepo(t)
	r.git("switch", "--quiet", "-c", "big")
	n := review.MaxDiff/20 + 1000
	r.write("big.txt", strings.Repeat("0123456789abcdefghi\n", n))
	r.commit("big")
	s, err := review.Build(context.Background(), r.dir, "main", "big")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Truncated || len(s.Diff) > review.MaxDiff+100 || !strings.HasSuffix(s.Diff, "diff truncated at 1 MiB\n") {
		t.Fatalf("truncated %v, %d bytes, tail %q", s.Truncated, len(s.Diff), s.Diff[max(0, len(s.Diff)-40):])
	}
	if s.Files[0].Added != n {
		t.Fatalf("added %d, want %d", s.Files[0].Added, n)
	}
}

// TestBuildCleansText: a file in Latin-1 (invalid UTF-8) still gives a
// diff both stores can hold.
func TestBuildCleansText(t *testing.T) {
	r := newRepo(t)
	r.git("switch", "--quiet", "-c", "latin")
	r.write("l.txt", "caf\xe9\n")
	r.commit("latin-1")
	s, err := review.Build(context.Background(), r.dir, "main", "latin")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Diff, "+caf\uFFFD") {
		t.Fatalf("diff not cleaned: %q", s.Diff)
	}
}

// TestPoint5HugeDiffIsNeverReadWhole: a change whose patch is about
// 24 MiB is recorded truncated at MaxDiff with full stats, and building
// it allocates far less than the patch (the rest of git's output is read
// and dropped, not held).
func TestPoint5HugeDiffIsNeverReadWhole(t *testing.T) {
	r := newRepo(t)
	r.git("switch", "--quiet", "-c", "huge")
	const n = 24 << 20 / 20
	r.write("huge.txt", strings.Repeat("0123456789abcdefghi\n", n))
	r.commit("huge")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := review.Build(context.Background(), r.dir, "main", "huge")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Truncated || len(s.Diff) > review.MaxDiff+100 || s.Files[0].Added != n {
		t.Fatalf("truncated %v, %d bytes, %d added", s.Truncated, len(s.Diff), s.Files[0].Added)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 12<<20 {
		t.Errorf("Build allocated %d MiB for a 24 MiB patch: it reads the patch whole", alloc>>20)
	}
}
