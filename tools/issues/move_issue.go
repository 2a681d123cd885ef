package issues

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

// Phases is the default phase pipeline; a phase label outside it is reset
// to the first phase when an issue moves.
var Phases = baton.PhaseNames()

type moveIn struct {
	IssueID         string `json:"issue_id,omitempty" jsonschema:"Issue to move; defaults to the issue this session is bound to."`
	TargetProjectID string `json:"target_project_id" jsonschema:"ID (slug) of the destination project."`
	Reason          string `json:"reason" jsonschema:"Why the issue is being moved."`
}

type moveOut struct {
	IssueID     string   `json:"issue_id" jsonschema:"The issue's new id in the target project."`
	PreviousID  string   `json:"previous_id" jsonschema:"Its id before the move."`
	Project     string   `json:"project" jsonschema:"The target project."`
	Status      string   `json:"status" jsonschema:"Always todo after a move."`
	Labels      []string `json:"labels" jsonschema:"Labels after the move, with moved-from and skip labels."`
	CopiedFiles []string `json:"copied_files" jsonschema:"Artifact files copied to docs/tickets/<new id>/."`
}

// MoveIssue is move_issue.
var MoveIssue = tool.New(tool.Definition[moveIn, moveOut]{
	Name:    "move_issue",
	Event:   "issue.moved",
	Toolset: Toolset,
	Description: "Move an issue to a different project: copies docs/tickets/<ID>/ artifacts, re-prefixes the identifier, resets the status to todo, " +
		"keeps the phase label if the target pipeline has it (else resets to its first phase), and adds moved-from:<old id> and skip:<phase> labels. " +
		"The issue needs a phase:* or cross-project/multi-repo label and must not be done or cancelled.",
	Profiles: []string{"planner"},
	Input: tool.Rules{
		"issue_id":          issueIDRule,
		"target_project_id": tool.Length(1, 63),
		"reason":            tool.Length(1, 2000).NonBlank(),
	},
	Execute: func(ctx context.Context, c *tool.Call, in moveIn) (moveOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return moveOut{}, err
		}
		if it.Status.Terminal() {
			return moveOut{}, baton.Errorf(baton.ErrInvalidTransition, "%s is %s: finished issues are not moved", it.ID, it.Status).
				WithDetails("task_id", it.ID, "from", string(it.Status), "to", string(baton.StatusTodo)).
				WithHint("create a new issue in the target project instead")
		}
		if !slices.ContainsFunc(it.Labels, movable) {
			return moveOut{}, baton.Errorf(baton.ErrInvalidInput, "%s has no phase:* or cross-project/multi-repo label", it.ID).
				WithDetails("field", "labels", "constraint", "required_label", "labels", it.Labels).
				WithHint("only issues in the phase pipeline or marked cross-project (or multi-repo) move between projects")
		}
		src, err := c.Tx.Project(ctx, it.Project)
		if err != nil {
			return moveOut{}, err
		}
		dst, err := c.Tx.Project(ctx, in.TargetProjectID)
		if err != nil {
			return moveOut{}, err
		}
		srcRoot, dstRoot := roots(c, src, dst)
		oldID := it.ID
		moved, err := c.Tx.MoveItem(ctx, oldID, dst.Slug)
		if err != nil {
			return moveOut{}, err
		}
		artifacts := filepath.Join(srcRoot, "docs", "tickets", oldID)
		var labels []string
		for _, l := range moved.Labels {
			if phase, ok := strings.CutPrefix(l, "phase:"); ok && !slices.Contains(Phases, phase) {
				l = "phase:" + Phases[0]
			}
			labels = append(labels, l)
		}
		labels = append(labels, "moved-from:"+oldID)
		for _, phase := range Phases {
			if _, err := os.Stat(filepath.Join(artifacts, phase+".md")); err == nil {
				labels = append(labels, "skip:"+phase)
			}
		}
		moved.Labels = dedupe(labels)
		moved.Status, moved.BlockedReason, moved.ResumeStatus = baton.StatusTodo, "", ""
		moved.UpdatedBy, moved.UpdatedAt = c.Principal.Agent, c.Now
		if err := c.Tx.UpdateItem(ctx, moved); err != nil {
			return moveOut{}, err
		}
		if err := c.Tx.AddComment(ctx, &baton.Comment{ItemID: moved.ID, CreatedBy: c.Principal.Agent, CreatedAt: c.Now,
			Body: fmt.Sprintf("Moved from %s (%s) to %s (%s): %s", oldID, src.Slug, moved.ID, dst.Slug, in.Reason)}); err != nil {
			return moveOut{}, err
		}
		// Files last: if copying fails the transaction rolls back, and so do
		// the files (copyArtifacts leaves nothing behind on failure); if the
		// transaction fails after the copy (the output check, the action
		// log, the commit itself), the copied folder is removed too.
		copied, err := copyArtifacts(artifacts, dstRoot, moved.ID)
		if err != nil {
			return moveOut{}, err
		}
		if len(copied) > 0 {
			placed := filepath.Join(dstRoot, "docs", "tickets", moved.ID)
			c.OnRollback(func() { os.RemoveAll(placed) })
		}
		return moveOut{IssueID: moved.ID, PreviousID: oldID, Project: dst.Slug, Status: string(moved.Status),
			Labels: moved.Labels, CopiedFiles: copied}, nil
	},
})

func movable(label string) bool {
	return strings.HasPrefix(label, "phase:") || label == "cross-project" || label == "multi-repo"
}

func dedupe(in []string) []string {
	out := []string{}
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// roots finds the repositories of both projects: a project's own root,
// else the session's worktree, else the working directory; a target
// without a root of its own shares the source's repository.
func roots(c *tool.Call, src, dst *baton.Project) (string, string) {
	srcRoot := src.Root
	if srcRoot == "" {
		srcRoot = c.Principal.WorktreePath
	}
	if srcRoot == "" {
		srcRoot, _ = c.Env.Getwd()
	}
	dstRoot := dst.Root
	if dstRoot == "" {
		dstRoot = srcRoot
	}
	return srcRoot, dstRoot
}

// copyArtifacts copies the ticket folder from to docs/tickets/<id>/ under
// root, all or nothing: the files go to a hidden staging folder beside the
// destination, which is renamed into place only once every file is there,
// and removed if anything fails, so a failed move leaves no file behind.
// A destination that already exists is refused rather than merged into or
// overwritten: the id is new, so whatever is there belongs to someone else.
func copyArtifacts(from, root, id string) ([]string, error) {
	if _, err := os.Stat(from); os.IsNotExist(err) {
		return []string{}, nil
	}
	rel := filepath.ToSlash(filepath.Join("docs", "tickets", id))
	dst := filepath.Join(root, "docs", "tickets", id)
	if _, err := os.Lstat(dst); err == nil {
		return nil, baton.Errorf(baton.ErrConflict, "%s already exists in the target repository", rel).
			WithType("path_conflict").WithDetails("path", rel).
			WithHint("nothing was moved; move or remove %s, then call move_issue again", rel)
	}
	failed := func(err error) error {
		return baton.Errorf(baton.ErrInternal, "copying the artifacts to %s failed: %s", rel, pathless(err)).
			WithDetails("path", rel).
			WithHint("nothing was moved and no file was left behind; check docs/tickets in both repositories and retry")
	}
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, failed(err)
	}
	stage, err := os.MkdirTemp(parent, "."+id+".moving-")
	if err != nil {
		return nil, failed(err)
	}
	copied, err := copyTree(from, stage)
	if err == nil {
		err = os.Rename(stage, dst)
	}
	if err != nil {
		os.RemoveAll(stage)
		return nil, failed(err)
	}
	return copied, nil
}

// pathless is an error's text without the paths in it: the server's
// directories are no business of the client's.
func pathless(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Op + ": " + le.Err.Error()
	}
	return err.Error()
}

// copyTree copies the files under from to to, returning their paths
// relative to to; a missing from copies nothing.
func copyTree(from, to string) ([]string, error) {
	copied := []string{}
	if _, err := os.Stat(from); os.IsNotExist(err) {
		return copied, nil
	}
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
		copied = append(copied, filepath.ToSlash(rel))
		return nil
	})
	return copied, err
}
