package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/worktree"
	"github.com/spf13/cobra"
)

// worktreeCmd is `baton worktree create|list|prune`: one git worktree and
// branch per issue, as Symphony's orchestrator makes them, with the
// marker verify_workspace, complete_phase and create_pr check.
func (a *App) worktreeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "worktree", Short: "Give issues their own git worktree and branch, list them, prune finished ones",
		Args: noArgs, RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	cmd.AddCommand(a.worktreeCreateCmd(), a.worktreeListCmd(), a.worktreePruneCmd())
	return cmd
}

func (a *App) worktreeCreateCmd() *cobra.Command {
	var base, runID string
	cmd := &cobra.Command{
		Use:   "create ISSUE [--base BRANCH]",
		Short: "Make (or reuse) the issue's git worktree and branch, with its .symphony-worktree marker",
		Long: "create makes <repository>/" + worktree.DirName + "/<ISSUE>/ on the branch " + worktree.BranchPrefix + "<ISSUE>, started from\n" +
			"--base (default main, else the branch the repository is on), and writes the .symphony-worktree marker\n" +
			"that verify_workspace reads. An existing worktree of the issue is reused, with the latest base merged in.\n" +
			"The repository is the project's root (set by baton init), else the one baton runs in. Start the issue's\n" +
			"agent in the folder it prints, e.g. baton mcp --issue-id ISSUE --worktree-path FOLDER.",
		Args: agentArgs(1, "one issue id"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var it *baton.Item
			var repo string
			err = s.View(ctx, func(tx baton.Tx) error {
				if it, err = tx.Item(ctx, args[0]); err != nil {
					return err
				}
				p, err := tx.Project(ctx, it.Project)
				if err != nil {
					return err
				}
				repo = a.repoOf(p)
				return nil
			})
			if err != nil {
				return a.fail(err)
			}
			if it.Status.Terminal() {
				return a.fail(baton.Errorf(baton.ErrInvalidTransition, "%s is %s: a finished issue gets no worktree", it.ID, it.Status).
					WithDetails("issue", it.ID, "status", string(it.Status)).
					WithHint("reopen work with a new issue; `baton worktree prune` removes finished issues' worktrees"))
			}
			now := a.agentNow()
			wt, err := worktree.Create(ctx, worktree.Options{Repo: repo, Issue: it.ID, Project: it.Project, Base: base, RunID: runID, Now: now})
			if err != nil {
				return a.fail(err)
			}
			event := "worktree.created"
			if wt.Reused {
				event = "worktree.reused"
			}
			agent := a.principal(baton.SourceCLI, "user").Agent
			err = s.Update(ctx, func(tx baton.Tx) error {
				return record(ctx, tx, "worktree_create", event, agent, it.Project, it.ID,
					map[string]any{"issue": it.ID, "base": base, "run_id": runID}, wt, now)
			})
			if err != nil {
				// Nothing half-done: the worktree nobody recorded goes.
				_ = wt.Undo(context.WithoutCancel(ctx), filepath.Dir(filepath.Dir(wt.Path)))
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"worktree": wt, "marker": filepath.Join(wt.Path, worktree.MarkerFile)})
			}
			verb := "created"
			if wt.Reused {
				verb = "reused"
			}
			fmt.Fprintf(a.Stdout, "%s the worktree of %s: %s\nbranch %s (base %s); marker %s\n", verb, cleanLine(it.ID), cleanLine(wt.Path),
				cleanLine(wt.Branch), cleanLine(wt.Base), worktree.MarkerFile)
			for _, w := range wt.Warnings {
				fmt.Fprintf(a.Stdout, "warning: %s\n", cleanLine(w))
			}
			fmt.Fprintf(a.Stdout, "start the agent there: cd %s && baton mcp --issue-id %s --worktree-path %s\n",
				worktreeQuote(wt.Path), worktreeQuote(it.ID), worktreeQuote(wt.Path))
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "the branch to start from and compare with (default main, else the current branch)")
	cmd.Flags().StringVar(&runID, "run-id", "", "the agent run the worktree is for, written in the marker")
	a.jsonFlag(cmd, `{"worktree": {"path", "branch", "base_branch", "issue", "project", "reused", "branch_created", "warnings"}, "marker": the marker file}.`)
	return cmd
}

// worktreeRow is one line of `baton worktree list`.
type worktreeRow struct {
	Issue  string `json:"issue"`
	Status string `json:"status"` // "" when the issue is unknown
	Branch string `json:"branch"`
	Path   string `json:"path"`
}

func (a *App) worktreeListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the issues' worktrees (those with a marker) with each issue's status",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			rows, err := a.issueWorktrees(ctx, false)
			if err != nil {
				return a.fail(err)
			}
			out := []worktreeRow{}
			for _, r := range rows {
				out = append(out, r.row())
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"worktrees": out, "count": len(out)})
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ISSUE\tSTATUS\tBRANCH\tPATH")
			for _, r := range out {
				status := r.Status
				if status == "" {
					status = "unknown"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cleanLine(r.Issue), status, cleanLine(r.Branch), cleanLine(r.Path))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "%d worktrees\n", len(out))
			return nil
		},
	}
	a.jsonFlag(cmd, `{"worktrees": [{"issue", "status" ("" when the issue is unknown), "branch", "path"}], "count": N}.`)
	return cmd
}

// pruned is one worktree `baton worktree prune` looked at.
type pruned struct {
	worktreeRow
	Removed bool   `json:"removed"`
	Reason  string `json:"reason"`
}

func (a *App) worktreePruneCmd() *cobra.Command {
	var force, dryRun bool
	cmd := &cobra.Command{
		Use:   "prune [--force] [--dry-run]",
		Short: "Remove the worktrees of finished (done or cancelled) issues; their branches stay",
		Long: "prune removes, with git worktree remove, every issue worktree (one with a marker) whose issue is done or\n" +
			"cancelled, after git worktree prune has dropped registrations whose folders are gone. A worktree with\n" +
			"changes not committed is kept unless --force. Branches are kept, so committed work is never lost.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			rows, err := a.issueWorktrees(ctx, !dryRun)
			if err != nil {
				return a.fail(err)
			}
			agent := a.principal(baton.SourceCLI, "user").Agent
			out := []pruned{}
			removed := 0
			for _, r := range rows {
				p := pruned{worktreeRow: r.row()}
				switch {
				case r.item == nil:
					p.Reason = "no issue " + r.marker.Issue + " in this database"
				case !r.item.Status.Terminal():
					p.Reason = "the issue is " + string(r.item.Status)
				case dryRun:
					p.Reason = "would be removed: the issue is " + string(r.item.Status)
				default:
					if err := worktree.Remove(ctx, r.repo, r.entry.Path, force); err != nil {
						p.Reason = "kept: " + baton.AsError(err).Message
						if !force {
							p.Reason += " (--force removes it anyway)"
						}
						break
					}
					p.Removed, p.Reason = true, "the issue is "+string(r.item.Status)
					removed++
					now := a.agentNow()
					err := s.Update(ctx, func(tx baton.Tx) error {
						return record(ctx, tx, "worktree_prune", "worktree.removed", agent, r.item.Project, r.item.ID,
							map[string]any{"issue": r.item.ID, "force": force}, p.worktreeRow, now)
					})
					if err != nil {
						return a.fail(err)
					}
				}
				out = append(out, p)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"worktrees": out, "removed": removed, "dry_run": dryRun})
			}
			for _, p := range out {
				mark := "kept   "
				if p.Removed {
					mark = "removed"
				}
				fmt.Fprintf(a.Stdout, "%s %s %s: %s\n", mark, cleanLine(p.Issue), cleanLine(p.Path), cleanLine(p.Reason))
			}
			fmt.Fprintf(a.Stdout, "%d of %d worktrees removed\n", removed, len(out))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "remove worktrees of finished issues even with changes not committed (they are lost)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be removed, remove nothing")
	a.jsonFlag(cmd, `{"worktrees": [{"issue", "status", "branch", "path", "removed", "reason"}], "removed": N, "dry_run": bool}.`)
	return cmd
}

// issueWorktree is a worktree with a marker, the repository it hangs off
// and its issue (nil when the database does not know it).
type issueWorktree struct {
	repo   string
	entry  worktree.Entry
	marker *worktree.Marker
	item   *baton.Item
}

func (w issueWorktree) row() worktreeRow {
	r := worktreeRow{Issue: w.marker.Issue, Branch: w.entry.Branch, Path: w.entry.Path}
	if w.item != nil {
		r.Issue, r.Status = w.item.ID, string(w.item.Status)
	}
	return r
}

// issueWorktrees finds the issue worktrees of the repositories of --project
// (or of every project), after dropping stale registrations when
// pruneStale says so.
func (a *App) issueWorktrees(ctx context.Context, pruneStale bool) ([]issueWorktree, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	var dirs []string
	err = s.View(ctx, func(tx baton.Tx) error {
		var ps []*baton.Project
		if a.project != "" {
			p, err := tx.Project(ctx, a.project)
			if err != nil {
				return err
			}
			ps = []*baton.Project{p}
		} else if ps, err = tx.Projects(ctx); err != nil {
			return err
		}
		for _, p := range ps {
			dirs = append(dirs, a.repoOf(p))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var repos []string
	seen := map[string]bool{}
	var firstErr error
	for _, d := range dirs {
		top, err := worktree.Top(ctx, d)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !seen[top] {
			seen[top] = true
			repos = append(repos, top)
		}
	}
	if len(repos) == 0 {
		if firstErr == nil {
			firstErr = baton.Errorf(baton.ErrInvalidInput, "no project has a git repository")
		}
		return nil, firstErr
	}
	var out []issueWorktree
	for _, repo := range repos {
		if pruneStale {
			if err := worktree.PruneStale(ctx, repo); err != nil {
				return nil, err
			}
		}
		list, err := worktree.List(ctx, repo)
		if err != nil {
			return nil, err
		}
		for _, e := range list {
			if e.Marker == nil || e.Marker.Issue == "" {
				continue
			}
			out = append(out, issueWorktree{repo: repo, entry: e, marker: e.Marker})
		}
	}
	err = s.View(ctx, func(tx baton.Tx) error {
		for i := range out {
			it, err := tx.Item(ctx, out[i].marker.Issue)
			if baton.ErrorCode(err) == baton.ErrTaskNotFound {
				continue
			}
			if err != nil {
				return err
			}
			out[i].item = it
		}
		return nil
	})
	return out, err
}

// repoOf is the repository a project's worktrees hang off: its root, else
// the one holding the database, else the working directory.
func (a *App) repoOf(p *baton.Project) string {
	if p.Root != "" {
		return p.Root
	}
	if root := a.location().Root; root != "" {
		return root
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// worktreeQuote quotes s for a POSIX shell when it needs it, so a printed
// command can be pasted as it is.
func worktreeQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
