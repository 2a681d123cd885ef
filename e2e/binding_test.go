package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=e2e@baton.test", "-c", "user.name=e2e"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestSessionBinding: `baton mcp --issue-id --agent-type --worktree-path`
// binds a session the way Symphony's orchestrator starts its agents: the
// issue tools default to the bound issue, memory goes to the profile, and
// verify_workspace checks the real worktree the server runs in.
func TestSessionBinding(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	if out, code := cliRun(t, "--db", db, "issues", "create_issue", "--title", "Bound issue", "--project", "colibri"); code != 0 {
		t.Fatalf("create_issue: %s", out)
	}
	cliRun(t, "--db", db, "issues", "create_issue", "--title", "Other issue", "--project", "colibri")

	worktree := t.TempDir()
	git(t, worktree, "init", "-q", "-b", "main")
	git(t, worktree, "checkout", "-q", "-b", "baton/COL-1")
	if err := os.WriteFile(filepath.Join(worktree, ".baton-worktree"), []byte("issue=COL-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, worktree, "add", ".")
	git(t, worktree, "commit", "-q", "-m", "marker")

	cmd := exec.Command(bin, "--db", db, "mcp", "--agent", "agent-w", "--project", "colibri",
		"--issue-id", "COL-1", "--agent-type", "worker", "--worktree-path", worktree)
	cmd.Dir = worktree
	cs := connect(t, &mcp.CommandTransport{Command: cmd})
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sc, _ := res.StructuredContent.(map[string]any)
		if res.IsError {
			t.Fatalf("%s: %v", name, sc)
		}
		return sc
	}

	if v := call("verify_workspace", nil); v["valid"] != true || v["issue"] != "COL-1" || v["branch"] != "baton/COL-1" {
		t.Fatalf("verify_workspace = %v", v)
	}
	if f := call("add_finding", map[string]any{"category": "bug", "summary": "Race in cleanup"}); f["issue_id"] != "COL-1" {
		t.Fatalf("add_finding went to %v, want the bound COL-1", f["issue_id"])
	}
	call("add_comment", map[string]any{"issue_id": "COL-2", "content": "a note on another issue"})
	if g := call("get_issue", nil); g["id"] != "COL-1" || len(g["findings"].([]any)) != 1 || len(g["comments"].([]any)) != 0 {
		t.Fatalf("get_issue (bound) = %v", g)
	}
	if g := call("get_issue", map[string]any{"issue_id": "COL-2"}); len(g["comments"].([]any)) != 1 {
		t.Fatalf("get_issue COL-2 = %v", g)
	}
	m := call("update_memory", map[string]any{"scope": "project", "filename": "codebase-notes.md", "content": "# Notes\n\n- WAL mode"})
	// The client learns the path relative to the data directory, never the
	// server's absolute path (issue 12, point 8).
	if m["path"] != "memory/colibri/worker/codebase-notes.md" {
		t.Fatalf("memory written to %v, want memory/colibri/worker/codebase-notes.md", m["path"])
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(db), "memory", "colibri", "worker", "codebase-notes.md")); err != nil {
		t.Fatalf("memory file not written: %v", err)
	}
	out, code := cliRun(t, "--db", db, "--project", "colibri", "memory", "show", "--profile", "worker")
	if code != 0 || !strings.Contains(out, "codebase-notes.md (project colibri)") || !strings.Contains(out, "- WAL mode") {
		t.Fatalf("memory show = %d %q", code, out)
	}
}
