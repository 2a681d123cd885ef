package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
	"github.com/baton-dev/baton/worktree"
	"github.com/spf13/cobra"
)

// The human's view of the PR records agents and the orchestrator open:
// `baton prs` lists them, `baton pr show` prints one with its diff, and
// `baton pr gates` runs the project's gate commands on one for real.

// prSummary is one PR in `baton prs --json` and the head of `baton pr
// show --json`.
type prSummary struct {
	ID              string             `json:"id"`
	Issue           string             `json:"issue"`
	Project         string             `json:"project"`
	Status          string             `json:"status"`
	BranchName      string             `json:"branch_name"`
	BaseBranch      string             `json:"base_branch"`
	BaseSHA         string             `json:"base_sha"`
	HeadSHA         string             `json:"head_sha"`
	Commits         int                `json:"commits"`
	FilesChanged    int                `json:"files_changed"`
	LinesAdded      int                `json:"lines_added"`
	LinesRemoved    int                `json:"lines_removed"`
	Risk            baton.RiskScore    `json:"risk"`
	Gates           []baton.GateResult `json:"gate_results"`
	BlockingGates   []string           `json:"blocking_gates"`
	Reason          string             `json:"reason"`
	FixInstructions string             `json:"fix_instructions"`
	ReviewedBy      string             `json:"reviewed_by"`
	ReviewedAt      string             `json:"reviewed_at"`
	CreatedBy       string             `json:"created_by"`
	CreatedAt       string             `json:"created_at"`
	UpdatedAt       string             `json:"updated_at"`
}

func summarize(p *baton.PR) prSummary {
	s := prSummary{ID: p.ID, Issue: p.ItemID, Project: p.Project, Status: string(p.Status), BranchName: p.BranchName,
		BaseBranch: p.BaseBranch, BaseSHA: p.BaseSHA, HeadSHA: p.HeadSHA, Commits: p.Commits, FilesChanged: len(p.Files),
		LinesAdded: p.LinesAdded(), LinesRemoved: p.LinesRemoved(), Risk: p.Risk, Gates: p.Gates, BlockingGates: []string{},
		Reason: p.Reason, FixInstructions: p.FixInstructions, ReviewedBy: p.ReviewedBy, CreatedBy: p.CreatedBy,
		CreatedAt: baton.Timestamp(p.CreatedAt), UpdatedAt: baton.Timestamp(p.UpdatedAt)}
	if !p.ReviewedAt.IsZero() {
		s.ReviewedAt = baton.Timestamp(p.ReviewedAt)
	}
	for _, g := range review.Blocking(p.Gates) {
		s.BlockingGates = append(s.BlockingGates, g.Label)
	}
	return s
}

// prID reads a PR id as people type it: PR-7, pr-7 or 7.
func prID(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(strings.ToUpper(s), "PR-"); ok {
		return "PR-" + rest
	}
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return "PR-" + s
	}
	return s
}

// gateSummary is "2/3 passed" with the blocking gates named.
func gateSummary(gs []baton.GateResult) string {
	if len(gs) == 0 {
		return "-"
	}
	passed := 0
	for _, g := range gs {
		if g.Passed() {
			passed++
		}
	}
	s := fmt.Sprintf("%d/%d passed", passed, len(gs))
	if b := review.Blocking(gs); len(b) > 0 {
		names := make([]string, len(b))
		for i, g := range b {
			names[i] = g.Label
		}
		s += ", blocked by " + strings.Join(names, ", ")
	}
	return s
}

func (a *App) prsCmd() *cobra.Command {
	var issue, status string
	var limit int
	cmd := &cobra.Command{
		Use:   "prs [--project S] [--issue ID] [--status open,approved,...]",
		Short: "List PR records, newest first: status, risk, size and gates",
		Long: "prs lists the PR records of the projects (or of --project, or of one --issue), newest first, with\n" +
			"their status, risk level, size, gate results and branch. `baton pr show ID` prints one with its diff.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			f := baton.PRFilter{Project: a.project, ItemID: issue, Limit: limit}
			for _, st := range strings.Split(status, ",") {
				if st = strings.TrimSpace(st); st == "" {
					continue
				}
				if !slices.Contains(baton.PRStatuses, baton.PRStatus(st)) {
					return usageError("--status %q is not a PR status (open, approved, rejected, superseded, merged)", st)
				}
				f.Statuses = append(f.Statuses, baton.PRStatus(st))
			}
			var ps []*baton.PR
			if err := s.View(ctx, func(tx baton.Tx) (err error) {
				if f.Project != "" {
					if _, err := tx.Project(ctx, f.Project); err != nil {
						return err
					}
				}
				if f.ItemID != "" {
					if _, err := tx.Item(ctx, f.ItemID); err != nil {
						return err
					}
				}
				ps, err = tx.PRs(ctx, f)
				return err
			}); err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				out := make([]prSummary, len(ps))
				for i, p := range ps {
					out[i] = summarize(p)
				}
				return a.printJSON(map[string]any{"prs": out, "count": len(out)})
			}
			if len(ps) == 0 {
				fmt.Fprintln(a.Stdout, "no PR records")
				return nil
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tISSUE\tSTATUS\tRISK\tFILES\tLINES\tGATES\tBRANCH\tCREATED")
			for _, p := range ps {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t+%d -%d\t%s\t%s\t%s\n", cleanLine(p.ID), cleanLine(p.ItemID), p.Status,
					cleanLine(p.Risk.Level), len(p.Files), p.LinesAdded(), p.LinesRemoved(), cleanLine(gateSummary(p.Gates)),
					cleanLine(p.BranchName), baton.Timestamp(p.CreatedAt))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&issue, "issue", "", "only this issue's PRs")
	cmd.Flags().StringVar(&status, "status", "", "only PRs in these statuses (comma-separated)")
	cmd.Flags().IntVar(&limit, "limit", 100, "most PRs to list (0: all)")
	a.jsonFlag(cmd, `{"prs": [{"id", "issue", "project", "status", "branch_name", "base_branch", "base_sha", "head_sha",
"commits", "files_changed", "lines_added", "lines_removed", "risk": {"level", "lines_changed", "files_changed",
"sensitive_files", "reasons", "config_version"}, "gate_results": [...], "blocking_gates", "reason", "fix_instructions",
"reviewed_by", "reviewed_at", "created_by", "created_at", "updated_at"}], "count": N}.`)
	return cmd
}

// prCmd is `baton pr show|gates ID`.
func (a *App) prCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "pr", Short: "Show a PR record with its diff, or run its gates", Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	cmd.AddCommand(a.prShowCmd(), a.prGatesCmd())
	return cmd
}

func (a *App) loadPR(ctx context.Context, id string) (*baton.PR, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	var p *baton.PR
	err = s.View(ctx, func(tx baton.Tx) (err error) { p, err = tx.PR(ctx, prID(id)); return err })
	return p, err
}

func (a *App) prShowCmd() *cobra.Command {
	var noDiff bool
	cmd := &cobra.Command{
		Use:   "show ID [--no-diff]",
		Short: "Print a PR record: files, gates, risk, review and the diff",
		Long:  "show prints a PR record (ID is PR-7, or 7): its branch and commits, per-file stats, gate results, risk\nwith its reasons, the review, and the diff as git produced it.",
		Args:  onePRID,
		RunE: func(c *cobra.Command, args []string) error {
			p, err := a.loadPR(c.Context(), args[0])
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				out := map[string]any{"pr": summarize(p), "files": p.Files, "diff_truncated": p.DiffTruncated}
				if !noDiff {
					out["diff"] = p.Diff
				}
				return a.printJSON(out)
			}
			w := a.Stdout
			fmt.Fprintf(w, "%s  %s  %s\n", cleanLine(p.ID), cleanLine(p.ItemID), p.Status)
			fmt.Fprintf(w, "branch   %s -> %s (%s..%s, %d commits)\n", cleanLine(p.BranchName), cleanLine(p.BaseBranch),
				short(p.BaseSHA), short(p.HeadSHA), p.Commits)
			fmt.Fprintf(w, "created  %s by %s\n", baton.Timestamp(p.CreatedAt), cleanLine(p.CreatedBy))
			fmt.Fprintf(w, "risk     %s\n", cleanLine(p.Risk.Level))
			for _, r := range p.Risk.Reasons {
				fmt.Fprintf(w, "         - %s\n", cleanLine(r))
			}
			fmt.Fprintf(w, "files    %d changed, +%d -%d\n", len(p.Files), p.LinesAdded(), p.LinesRemoved())
			tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
			for _, f := range p.Files {
				name := cleanLine(f.Path)
				if f.OldPath != "" {
					name = cleanLine(f.OldPath) + " -> " + name
				}
				lines := fmt.Sprintf("+%d -%d", f.Added, f.Removed)
				if f.Binary {
					lines = "binary"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Status, lines, name)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(w, "gates    %s\n", cleanLine(gateSummary(p.Gates)))
			for _, g := range p.Gates {
				req := "optional"
				if g.Required {
					req = "required"
				}
				verdict := "passed"
				switch {
				case g.TimedOut:
					verdict = "timed out"
				case !g.Passed():
					verdict = fmt.Sprintf("failed (exit %d)", g.ExitCode)
				}
				fmt.Fprintf(w, "  %s [%s, %s]: %s  $ %s\n", cleanLine(g.Label), req, g.Source, verdict, cleanLine(g.Command))
				if !g.Passed() && g.Output != "" {
					for _, line := range strings.Split(g.Output, "\n") {
						fmt.Fprintf(w, "    | %s\n", cleanLine(line))
					}
				}
			}
			if p.ReviewedBy != "" {
				fmt.Fprintf(w, "review   %s by %s at %s\n", p.Status, cleanLine(p.ReviewedBy), baton.Timestamp(p.ReviewedAt))
				if p.Reason != "" {
					fmt.Fprintf(w, "reason   %s\n", cleanText(p.Reason))
				}
				if p.FixInstructions != "" {
					fmt.Fprintf(w, "fix      %s\n", cleanText(p.FixInstructions))
				}
			}
			if noDiff {
				return nil
			}
			fmt.Fprintln(w)
			fmt.Fprint(w, cleanText(p.Diff))
			if p.DiffTruncated {
				fmt.Fprintln(w, "(the stored diff was cut at 1 MiB; the stats above cover the whole change)")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&noDiff, "no-diff", false, "leave the diff out")
	a.jsonFlag(cmd, `{"pr": {...as in baton prs --json}, "files": [{"path", "old_path", "status", "added", "removed",
"binary"}], "diff_truncated": bool, "diff": "..." (unless --no-diff)}.`)
	return cmd
}

// onePRID is the Args of the commands that take one PR id.
func onePRID(c *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError("%s takes one PR id (PR-7, or 7), not %d arguments", c.CommandPath(), len(args))
	}
	return nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func (a *App) prGatesCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "gates ID [--timeout 10m]",
		Short: "Run the project's gate commands on the PR's commit and record the results",
		Long: "gates runs each of the project's configured gates (configure_project, baton project configure) in a\n" +
			"clean checkout of the PR's head commit (a temporary detached worktree of the issue's repository, removed\n" +
			"afterwards), one after another, each stopped at --timeout, and records its exit code and\n" +
			"the end of its output on the PR (replacing results reported for the same gate). A required gate that\n" +
			"failed blocks approve_pr; the command then exits 1.",
		Args: onePRID,
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var p *baton.PR
			var cfg *baton.ProjectConfig
			var root string
			if err := s.View(ctx, func(tx baton.Tx) (err error) {
				if p, err = tx.PR(ctx, prID(args[0])); err != nil {
					return err
				}
				if cfg, err = tx.ProjectConfig(ctx, p.Project); err != nil {
					return err
				}
				proj, err := tx.Project(ctx, p.Project)
				if err == nil {
					root = proj.Root
				}
				return err
			}); err != nil {
				return a.fail(err)
			}
			if p.Status != baton.PROpen {
				return a.fail(baton.Errorf(baton.ErrInvalidTransition, "%s is %s: gates are run on an open PR", p.ID, p.Status).
					WithDetails("pr_id", p.ID, "status", string(p.Status)).
					WithHint("`baton prs --issue %s` shows the issue's latest PR", p.ItemID))
			}
			if len(cfg.Gates) == 0 {
				return a.fail(baton.Errorf(baton.ErrConfigInvalid, "project %s configures no gates to run", p.Project).
					WithDetails("project", p.Project).
					WithHint("configure them with configure_project or `baton project configure`, e.g. a gate {command: \"go test ./...\", label: \"Tests\", required: true}"))
			}
			dir := p.RepoDir
			if m := worktree.Find(root, p.ItemID); m != nil && m.Path != "" {
				dir = m.Path
			}
			if st, err := os.Stat(dir); dir == "" || err != nil || !st.IsDir() {
				return a.fail(baton.Errorf(baton.ErrConflict, "the worktree of %s, where its PR was built, is gone", p.ItemID).
					WithType("worktree_missing").WithDetails("pr_id", p.ID, "issue", p.ItemID).
					WithHint("recreate it with `baton worktree create %s`, then run the gates again", p.ItemID))
			}
			now := time.Now
			if a.Clock != nil {
				now = a.Clock
			}
			// The gates run outside any transaction: they take minutes,
			// and the store must not wait for them.
			// They run in a clean checkout of the PR's commit, not the
			// worktree as it is on disk (uncommitted edits, another branch).
			ran, err := review.RunGatesAt(ctx, dir, p.HeadSHA, cfg.Gates, timeout, func() time.Time { return now().UTC() })
			if err != nil {
				return a.fail(err)
			}
			var warnings []string
			who := a.human()
			at := now().UTC()
			err = s.Update(ctx, func(tx baton.Tx) error {
				cur, err := tx.PR(ctx, p.ID)
				if err != nil {
					return err
				}
				if cur.Status != baton.PROpen {
					return baton.Errorf(baton.ErrConflict, "%s was %s while its gates ran: the results are not recorded", cur.ID, cur.Status).
						WithDetails("pr_id", cur.ID, "status", string(cur.Status)).WithHint("run the gates of the issue's new PR")
				}
				cur.Gates, cur.UpdatedAt = review.MergeGates(cur.Gates, ran), at
				if err := tx.UpdatePR(ctx, cur); err != nil {
					return err
				}
				p = cur
				return record(ctx, tx, "pr_gates", "pr.gates_run", who.Agent, "", cur.ItemID,
					map[string]any{"pr_id": cur.ID, "timeout_ms": timeout.Milliseconds()},
					map[string]any{"pr_id": cur.ID, "issue_id": cur.ItemID, "gate_results": ran, "blocking_gates": labelsOf(review.Blocking(cur.Gates))}, at)
			})
			if err != nil {
				return a.fail(err)
			}
			blocking := review.Blocking(p.Gates)
			if wantJSON(c) {
				if err := a.printJSON(map[string]any{"pr_id": p.ID, "issue": p.ItemID, "gate_results": ran,
					"blocking_gates": labelsOf(blocking), "warnings": nonNilStrings(warnings)}); err != nil {
					return err
				}
			} else {
				for _, w := range warnings {
					fmt.Fprintln(a.Stderr, "warning:", w)
				}
				for _, g := range ran {
					verdict := "passed"
					switch {
					case g.TimedOut:
						verdict = "timed out after " + timeout.String()
					case !g.Passed():
						verdict = fmt.Sprintf("failed (exit %d)", g.ExitCode)
					}
					fmt.Fprintf(a.Stdout, "%s: %s in %s  $ %s\n", cleanLine(g.Label), verdict,
						(time.Duration(g.DurationMS) * time.Millisecond).String(), cleanLine(g.Command))
					if !g.Passed() && g.Output != "" {
						for _, line := range strings.Split(g.Output, "\n") {
							fmt.Fprintf(a.Stdout, "  | %s\n", cleanLine(line))
						}
					}
				}
				fmt.Fprintf(a.Stdout, "%s gates: %s\n", cleanLine(p.ID), cleanLine(gateSummary(p.Gates)))
			}
			if len(blocking) > 0 {
				return &ExitError{Code: ExitTool}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", review.DefaultGateTimeout, "time limit of each gate command")
	a.jsonFlag(cmd, `{"pr_id", "issue", "gate_results": [{"command", "label", "exit_code", "output", "required", "source": "run",
"timed_out", "duration_ms", "head_sha", "ran_at"}], "blocking_gates": [labels], "warnings": [...]}; exit 1 when a
required gate failed.`)
	return cmd
}

func labelsOf(gs []baton.GateResult) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, g.Label)
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
