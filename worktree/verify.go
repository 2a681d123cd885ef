package worktree

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/gitenv"
	"github.com/baton-dev/baton/tool"
)

// Verified is what a successful workspace check found.
type Verified struct {
	Path   string // the worktree directory (the agent's working directory)
	Issue  string // the issue the worktree belongs to
	Branch string // the worktree's branch
}

// Verify is verify_workspace's check: the agent's working directory holds
// a worktree marker, is the session's --worktree-path when it has one, is
// the folder the marker names, and belongs to the session's bound issue
// (or an old id of it). A failure is ERR_CONFLICT of type
// workspace_invalid whose message ends with the recovery step.
func Verify(ctx context.Context, c *tool.Call) (*Verified, error) {
	return verify(ctx, c, c.Principal.WorktreePath)
}

// verify checks the working directory against want, the worktree the
// agent should be in ("" when nobody said).
func verify(ctx context.Context, c *tool.Call, want string) (*Verified, error) {
	cwd, err := c.Env.Getwd()
	if err != nil {
		return nil, err
	}
	recovery := "return to your assigned worktree"
	if want != "" {
		recovery = "run `cd " + want + "` to return to your worktree"
	}
	fail := func(format string, args ...any) (*Verified, error) {
		if !local(c.Principal.Source) {
			// The folder checked is the server's, not the remote agent's:
			// its paths mean nothing to the agent and stay on the server.
			return nil, baton.Errorf(baton.ErrConflict, "The server cannot see your working directory: over %s it can only check its own folder, which is not a worktree of your issue. "+
				"Recovery: check your workspace yourself (pwd, git branch --show-current) and work in your issue's worktree.", c.Principal.Source).
				WithType("workspace_invalid").WithDetails("source", string(c.Principal.Source)).
				WithHint("run the agent where the server runs (stdio) for the server to check its worktree, or check it yourself")
		}
		return nil, baton.Errorf(baton.ErrConflict, "%s. Recovery: %s.", fmt.Sprintf(format, args...), recovery).
			WithType("workspace_invalid").WithDetails("cwd", cwd, "worktree_path", want).
			WithHint("%s, then call verify_workspace again", recovery)
	}
	m, markerPath, err := ReadMarker(cwd)
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
	v := &Verified{Path: cwd, Issue: m.Issue, Branch: m.Branch}
	if v.Issue == "" {
		v.Issue = c.Principal.IssueID
	}
	if v.Branch == "" {
		cmd := exec.CommandContext(ctx, "git", "-C", cwd, "rev-parse", "--abbrev-ref", "HEAD")
		cmd.Env = gitenv.Env()
		if out, err := cmd.Output(); err == nil {
			v.Branch = strings.TrimSpace(string(out))
		}
	}
	return v, nil
}

// local reports whether calls from source run where the server runs,
// in the caller's own working directory (stdio, the CLI, tests): only
// then are the server's paths the caller's.
func local(source baton.Source) bool {
	switch source {
	case baton.SourceStdio, baton.SourceCLI, baton.SourceTest:
		return true
	}
	return false
}

// Require is the check complete_phase and create_pr make before anything
// else, as the catalogue says. It applies to a session tied to a
// worktree: one started with --worktree-path, one working in a folder
// with a marker, or a local agent (stdio) bound to an issue that has a
// worktree in its project's repository, which must then be working in
// it. A session tied to none (the operator at the CLI or the dashboard,
// an agent over HTTP whose folder the server cannot see) is not checked,
// and Require returns nil, nil. A failure is Verify's error.
func Require(ctx context.Context, c *tool.Call) (*Verified, error) {
	if c.Principal.WorktreePath != "" {
		return Verify(ctx, c)
	}
	if cwd, err := c.Env.Getwd(); err == nil {
		if m, _, _ := ReadMarker(cwd); m != nil {
			return Verify(ctx, c)
		}
	}
	switch c.Principal.Source {
	case baton.SourceStdio, baton.SourceTest:
	default:
		return nil, nil
	}
	if c.Principal.IssueID == "" {
		return nil, nil
	}
	if dir := issueWorktree(ctx, c, c.Principal.IssueID); dir != "" {
		return verify(ctx, c, dir)
	}
	return nil, nil
}

// issueWorktree is the folder of the issue's worktree in its project's
// repository, or "" when it has none (or the project has no root).
func issueWorktree(ctx context.Context, c *tool.Call, id string) string {
	dir := ""
	look := func(tx baton.Tx) error {
		it, err := tx.Item(ctx, id)
		if err != nil {
			return err
		}
		p, err := tx.Project(ctx, it.Project)
		if err != nil {
			return err
		}
		if m := Find(p.Root, it.ID); m != nil {
			dir = m.Path
		}
		return nil
	}
	if c.Tx != nil {
		_ = look(c.Tx)
	} else if c.Env.Store != nil {
		_ = c.Env.Store.View(ctx, look)
	}
	return dir
}

// sameItem reports whether two ids name one work item: a worktree made
// before its issue moved has the old id in its marker, a session may be
// bound to either.
func sameItem(ctx context.Context, c *tool.Call, a, b string) bool {
	same := false
	look := func(tx baton.Tx) error {
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
	}
	if c.Tx != nil {
		_ = look(c.Tx)
	} else if c.Env.Store != nil {
		_ = c.Env.Store.View(ctx, look)
	}
	return same
}
