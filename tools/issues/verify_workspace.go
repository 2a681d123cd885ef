package issues

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Markers are the worktree marker files: Symphony's, which its
// orchestrators write and its prompts name, first; baton's own name is
// read too.
var Markers = []string{".symphony-worktree", ".baton-worktree"}

// Marker is what a worktree marker file says: JSON, or key=value lines.
type Marker struct {
	Issue  string `json:"issue"`
	Branch string `json:"branch"`
	Path   string `json:"path"`
}

func readMarker(dir string) (*Marker, string, error) {
	for _, name := range Markers {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, path, err
		}
		var m Marker
		if json.Unmarshal(b, &m) != nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				k, v, ok := strings.Cut(sc.Text(), "=")
				if !ok {
					continue
				}
				switch strings.TrimSpace(strings.ToLower(k)) {
				case "issue", "issue_id":
					m.Issue = strings.TrimSpace(v)
				case "branch":
					m.Branch = strings.TrimSpace(v)
				case "path", "worktree":
					m.Path = strings.TrimSpace(v)
				}
			}
		}
		return &m, path, nil
	}
	return nil, filepath.Join(dir, Markers[0]), nil
}

type verifyOut struct {
	Valid   bool   `json:"valid" jsonschema:"Always true on success."`
	Path    string `json:"path" jsonschema:"The worktree directory."`
	Issue   string `json:"issue" jsonschema:"The issue the worktree belongs to."`
	Branch  string `json:"branch" jsonschema:"The worktree's branch."`
	Message string `json:"message" jsonschema:"What was verified."`
}

type none struct{}

// VerifyWorkspace is verify_workspace.
var VerifyWorkspace = tool.New(tool.Definition[none, verifyOut]{
	Name:    "verify_workspace",
	Toolset: Toolset,
	Description: "Verify that you are operating in your assigned worktree: call it as step 0 before starting work. " +
		"Returns the worktree's path, issue and branch, or an error with recovery instructions.",
	Profiles:    []string{"worker", "researcher", "planner", "architect"},
	Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	Transaction: tool.TxNone,
	Execute: func(ctx context.Context, c *tool.Call, _ none) (verifyOut, error) {
		cwd, err := c.Env.Getwd()
		if err != nil {
			return verifyOut{}, err
		}
		want := c.Principal.WorktreePath
		recovery := "return to your assigned worktree"
		if want != "" {
			recovery = "run `cd " + want + "` to return to your worktree"
		}
		fail := func(format string, args ...any) (verifyOut, error) {
			return verifyOut{}, baton.Errorf(baton.ErrConflict, "%s. Recovery: %s.", fmt.Sprintf(format, args...), recovery).
				WithType("workspace_invalid").WithDetails("cwd", cwd, "worktree_path", want).
				WithHint("%s, then call verify_workspace again", recovery)
		}
		m, markerPath, err := readMarker(cwd)
		if err != nil {
			return fail("Worktree marker file at %s cannot be read: %v", markerPath, err)
		}
		if m == nil {
			return fail("Worktree marker file not found at %s", markerPath)
		}
		if want != "" && !samePath(cwd, want) {
			return fail("You are in %s, not your worktree %s", cwd, want)
		}
		if m.Path != "" && !samePath(cwd, m.Path) {
			return fail("The marker at %s belongs to the worktree %s", markerPath, m.Path)
		}
		if bound := c.Principal.IssueID; bound != "" && m.Issue != "" && m.Issue != bound && !sameItem(ctx, c, m.Issue, bound) {
			return fail("This worktree belongs to %s, but your issue is %s", m.Issue, bound)
		}
		issue := m.Issue
		if issue == "" {
			issue = c.Principal.IssueID
		}
		branch := m.Branch
		if branch == "" {
			if out, err := exec.CommandContext(ctx, "git", "-C", cwd, "rev-parse", "--abbrev-ref", "HEAD").Output(); err == nil {
				branch = strings.TrimSpace(string(out))
			}
		}
		return verifyOut{Valid: true, Path: cwd, Issue: issue, Branch: branch,
			Message: "Workspace verified. You are in the correct worktree."}, nil
	},
})

// sameItem reports whether two ids name one work item: a worktree made
// before its issue moved has the old id in its marker, a session may be
// bound to either.
func sameItem(ctx context.Context, c *tool.Call, a, b string) bool {
	if c.Env.Store == nil {
		return false
	}
	same := false
	_ = c.Env.Store.View(ctx, func(tx baton.Tx) error {
		x, err := tx.Item(ctx, a)
		if err != nil {
			return err
		}
		y, err := tx.Item(ctx, b)
		if err != nil {
			return err
		}
		same = x.ID == y.ID
		return nil
	})
	return same
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
