// Package phases holds Symphony's phase tools: complete_phase, an agent's
// claim that its phase's artifact is done, and approve_phase and
// reject_phase, a judge's verdict on that artifact. None of them moves the
// issue: each records a finding (processed: false) that the orchestrator's
// tick validates and acts on (orchestrator.Phases), as the catalogue says.
package phases

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/worktree"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "phases"

var (
	issueIDRule = tool.Length(1, 128)
	phaseRule   = tool.Enum(baton.PhaseNames()...)
	// hashRule accepts what sha256sum prints, in either case, with an
	// optional sha256: prefix.
	hashRule = tool.Field{Pattern: `^(sha256:)?[0-9a-fA-F]{64}$`}
)

// normHash is an artifact_hash as stored and compared: lowercase hex.
func normHash(h string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(h), "sha256:"))
}

// short is a hash's first 12 digits, for messages people read.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// projectPath checks complete_phase's project_path and returns it
// cleaned: an absolute directory that belongs to the issue, namely the
// project's root, the issue's worktree in it, the session's worktree or
// working directory, or a folder whose worktree marker names the issue.
// The server reads the artifact there (the contracts come from the
// project's root only), so a claim cannot make it read another folder.
func projectPath(ctx context.Context, c *tool.Call, it *baton.Item, p string) (string, error) {
	bad := func(format string, args ...any) *baton.Error {
		return baton.Errorf(baton.ErrInvalidInput, "project_path %s", fmt.Sprintf(format, args...)).
			WithDetails("field", "project_path", "project_path", p)
	}
	if !filepath.IsAbs(p) {
		return "", bad("must be an absolute path (got %q)", p).
			WithHint("pass the absolute path of your worktree (pwd; verify_workspace returns it) or of the project root")
	}
	dir := filepath.Clean(p)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", bad("%q is not a directory", p).
			WithHint("pass the absolute path of your worktree (pwd; verify_workspace returns it) or of the project root")
	}
	var known []string
	proj, err := c.Tx.Project(ctx, it.Project)
	if err != nil {
		return "", err
	}
	if proj.Root != "" {
		known = append(known, proj.Root, worktree.Dir(proj.Root, it.ID))
		if m := worktree.Find(proj.Root, it.ID); m != nil {
			known = append(known, m.Path)
		}
	}
	known = append(known, c.Principal.WorktreePath)
	if cwd, err := c.Env.Getwd(); err == nil {
		known = append(known, cwd)
	}
	for _, k := range known {
		if k != "" && samePath(k, dir) {
			return dir, nil
		}
	}
	if m, _, err := worktree.ReadMarker(dir); err == nil && m != nil && m.Issue != "" {
		if m.Issue == it.ID {
			return dir, nil
		}
		if x, err := c.Tx.Item(ctx, m.Issue); err == nil && x.ID == it.ID {
			return dir, nil
		}
	}
	return "", bad("%q is neither the project's root nor a worktree of %s", p, it.ID).
		WithDetails("constraint", "workspace").
		WithHint("pass the absolute path of your worktree (pwd; verify_workspace returns it) or of the project root")
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// phaseOf checks that a phase named by a call is the issue's current one:
// a claim or verdict about a phase the issue is not in can only be stale.
func phaseOf(it *baton.Item, field, named string) error {
	cur := it.Phase()
	if string(cur) == named {
		return nil
	}
	return baton.Errorf(baton.ErrInvalidTransition, "%s is in phase %s, not %s", it.ID, cur, named).
		WithDetails("field", field, "task_id", it.ID, "phase", string(cur), field, named).
		WithHint("%s names the phase the issue is in now (its phase:* label, in get_issue): %s", field, cur)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
