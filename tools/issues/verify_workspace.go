package issues

import (
	"context"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/worktree"
)

// Markers are the worktree marker files, Symphony's first (see the
// worktree package, which reads and writes them).
var Markers = worktree.Markers

// Marker is what a worktree marker file says: JSON, or key=value lines.
type Marker = worktree.Marker

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
		v, err := worktree.Verify(ctx, c)
		if err != nil {
			return verifyOut{}, err
		}
		return verifyOut{Valid: true, Path: v.Path, Issue: v.Issue, Branch: v.Branch,
			Message: "Workspace verified. You are in the correct worktree."}, nil
	},
})
