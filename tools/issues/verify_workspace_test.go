package issues_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// gitRepo makes dir a git repository with one commit on branch.
func gitRepo(t testing.TB, dir, branch string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"checkout", "-q", "-b", branch},
		{"-c", "user.email=agent@example.com", "-c", "user.name=Agent", "-c", "commit.gpgsign=false",
			"commit", "-q", "--allow-empty", "-m", "initial"},
	} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// worktree makes a real git worktree for COL-1 on branch symphony/COL-1,
// binds the session to it and puts the agent in it.
func worktree(t *testing.T) (*testkit.Kit, string) {
	k := testkit.New(t)
	id := issueIn(k, "in_progress", nil)
	dir := filepath.Join(t.TempDir(), "worktrees", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, dir, "symphony/"+id)
	k.Principal.IssueID = id
	k.Principal.WorktreePath = dir
	k.Env.WorkDir = dir
	return k, dir
}

func marker(t testing.TB, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyWorkspace(t *testing.T) {
	for _, tc := range []struct {
		name, file, body string
		branch           string
	}{
		{"json marker", ".baton-worktree", `{"issue":"COL-1","branch":"symphony/COL-1","path":"%DIR%"}`, "symphony/COL-1"},
		{"json marker with another branch name", ".baton-worktree", `{"issue":"COL-1","branch":"feature/x"}`, "feature/x"},
		{"key=value marker", ".baton-worktree", "issue=COL-1\nbranch=symphony/COL-1\npath=%DIR%\n", "symphony/COL-1"},
		{"symphony's marker", ".symphony-worktree", `{"issue":"COL-1","branch":"symphony/COL-1"}`, "symphony/COL-1"},
		// Without a branch in the marker, git names it.
		{"marker without branch", ".baton-worktree", `{"issue":"COL-1"}`, "symphony/COL-1"},
		{"key=value without branch", ".symphony-worktree", "issue_id=COL-1\n", "symphony/COL-1"},
		{"empty marker", ".baton-worktree", "", "symphony/COL-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, dir := worktree(t)
			marker(t, dir, tc.file, strings.ReplaceAll(tc.body, "%DIR%", dir))
			out := k.OK("verify_workspace", nil)
			equal(t, "fields", keys(out), []string{"branch", "issue", "message", "path", "valid"})
			if out["valid"] != true || out["path"] != dir || out["issue"] != "COL-1" || out["branch"] != tc.branch ||
				out["message"] != "Workspace verified. You are in the correct worktree." {
				t.Errorf("output = %v, want valid in %s on %s", out, dir, tc.branch)
			}
		})
	}
	// Symphony's marker is the marker (point 18); baton's name is read
	// when Symphony's is absent.
	k, dir := worktree(t)
	marker(t, dir, ".baton-worktree", `{"issue":"COL-1","branch":"baton-branch"}`)
	marker(t, dir, ".symphony-worktree", `{"issue":"COL-1","branch":"symphony-branch"}`)
	if out := k.OK("verify_workspace", nil); out["branch"] != "symphony-branch" {
		t.Errorf("branch = %v, want Symphony's marker read first", out["branch"])
	}
	invalid(k, "verify_workspace", map[string]any{"path": dir}, "path")
}

func TestVerifyWorkspaceFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, k *testkit.Kit, dir string)
		message string // a part of the error message
	}{
		{"marker missing", func(t *testing.T, k *testkit.Kit, dir string) {}, "marker file not found at"},
		{"wrong directory", func(t *testing.T, k *testkit.Kit, dir string) {
			marker(t, dir, ".baton-worktree", `{"issue":"COL-1"}`)
			elsewhere := t.TempDir()
			marker(t, elsewhere, ".baton-worktree", `{"issue":"COL-1"}`)
			k.Env.WorkDir = elsewhere
		}, "not your worktree"},
		{"wrong directory without marker", func(t *testing.T, k *testkit.Kit, dir string) {
			marker(t, dir, ".baton-worktree", `{"issue":"COL-1"}`)
			k.Env.WorkDir = filepath.Join(dir, "..")
		}, "marker file not found at"},
		{"marker for another issue", func(t *testing.T, k *testkit.Kit, dir string) {
			marker(t, dir, ".baton-worktree", `{"issue":"COL-2","branch":"symphony/COL-2"}`)
		}, "belongs to COL-2"},
		{"symphony marker for another issue", func(t *testing.T, k *testkit.Kit, dir string) {
			marker(t, dir, ".symphony-worktree", "issue=COL-7\n")
		}, "belongs to COL-7"},
		{"marker of another worktree", func(t *testing.T, k *testkit.Kit, dir string) {
			marker(t, dir, ".baton-worktree", `{"issue":"COL-1","path":"/somewhere/else"}`)
		}, "/somewhere/else"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, dir := worktree(t)
			tc.setup(t, k, dir)
			e := fail(k, "verify_workspace", nil, baton.ErrConflict)
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q does not say %q", e.Message, tc.message)
			}
			want := "Recovery: run `cd " + dir + "` to return to your worktree."
			if !strings.Contains(e.Message, want) {
				t.Errorf("message %q lacks %q", e.Message, want)
			}
			if e.Type != "workspace_invalid" || e.Details["worktree_path"] != dir || e.Details["cwd"] != k.Env.WorkDir {
				t.Errorf("type/details = %s/%v", e.Type, e.Details)
			}
			if !strings.Contains(e.Hint, "verify_workspace") {
				t.Errorf("hint %q does not say to verify again", e.Hint)
			}
		})
	}

	// Without a worktree path the recovery is still stated.
	k, dir := worktree(t)
	k.Principal.WorktreePath = ""
	e := fail(k, "verify_workspace", nil, baton.ErrConflict)
	if !strings.Contains(e.Message, "Recovery:") || !strings.Contains(e.Message, filepath.Join(dir, ".symphony-worktree")) {
		t.Errorf("message = %q", e.Message)
	}
}

// Paths are data, not format strings: a worktree whose path holds a '%'
// is named as it is.
func TestVerifyWorkspacePercentInPath(t *testing.T) {
	k := testkit.New(t)
	issueIn(k, "in_progress", nil)
	dir := filepath.Join(t.TempDir(), "wt-100%d-%s")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	k.Principal.IssueID, k.Principal.WorktreePath, k.Env.WorkDir = "COL-1", dir, dir
	e := fail(k, "verify_workspace", nil, baton.ErrConflict)
	if want := "Recovery: run `cd " + dir + "` to return to your worktree."; !strings.Contains(e.Message, want) {
		t.Errorf("message %q lacks %q", e.Message, want)
	}
	if strings.Contains(e.Message, "%!") {
		t.Errorf("message %q shows a formatting error", e.Message)
	}
}
