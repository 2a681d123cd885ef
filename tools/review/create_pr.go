package review

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
	"github.com/baton-dev/baton/worktree"
)

type gateIn struct {
	Command  string `json:"command" jsonschema:"Command that was run."`
	Label    string `json:"label" jsonschema:"Human-readable label."`
	ExitCode int    `json:"exit_code" jsonschema:"Exit code (0 = pass)."`
	Output   string `json:"output" jsonschema:"Command output."`
	Required *bool  `json:"required,omitempty" jsonschema:"Whether this gate is required; by default as the project configures the gate of that label or command."`
}

type createIn struct {
	Diff        string   `json:"diff" jsonschema:"Full git diff output. baton builds the PR's diff from git itself (branch_name against base_branch) and only checks this one against it."`
	BranchName  string   `json:"branch_name" jsonschema:"Source branch name."`
	BaseBranch  string   `json:"base_branch" jsonschema:"Target branch name."`
	GateResults []gateIn `json:"gate_results,omitempty" jsonschema:"Quality gate results."`
	IssueID     string   `json:"issue_id,omitempty" jsonschema:"Issue the PR is for; defaults to the issue this session is bound to."`
}

type createOut struct {
	PRID          string     `json:"pr_id" jsonschema:"The PR record's id, e.g. PR-7."`
	IssueID       string     `json:"issue_id" jsonschema:"The issue."`
	Status        string     `json:"status" jsonschema:"The PR's status: open."`
	IssueStatus   string     `json:"issue_status" jsonschema:"The issue's status after the call: review."`
	BranchName    string     `json:"branch_name" jsonschema:"Source branch."`
	BaseBranch    string     `json:"base_branch" jsonschema:"Target branch."`
	BaseSHA       string     `json:"base_sha" jsonschema:"The merge base of the two branches, where the diff starts."`
	HeadSHA       string     `json:"head_sha" jsonschema:"The source branch's commit, where the diff ends."`
	Commits       int        `json:"commits" jsonschema:"Commits on the branch since the merge base."`
	FilesChanged  int        `json:"files_changed" jsonschema:"Files changed."`
	LinesAdded    int        `json:"lines_added" jsonschema:"Lines added over all files."`
	LinesRemoved  int        `json:"lines_removed" jsonschema:"Lines removed over all files."`
	Files         []fileView `json:"files" jsonschema:"Per-file stats (the first 100; baton pr show lists all)."`
	FilesOmitted  int        `json:"files_omitted,omitempty" jsonschema:"Files left out of the list above."`
	DiffTruncated bool       `json:"diff_truncated,omitempty" jsonschema:"The stored diff was cut at 1 MiB; the stats cover everything."`
	GateResults   []gateView `json:"gate_results" jsonschema:"The gate results recorded."`
	BlockingGates []string   `json:"blocking_gates" jsonschema:"Labels of required gates that failed: the PR cannot be approved while any is left."`
	Risk          riskView   `json:"risk" jsonschema:"The risk score, from the project's thresholds and sensitive paths."`
	Superseded    []string   `json:"superseded" jsonschema:"Older PRs of the issue this one replaces."`
	Warnings      []string   `json:"warnings" jsonschema:"What the PR does not hold that you may have meant it to."`
}

// CreatePR is create_pr.
var CreatePR = tool.New(tool.Definition[createIn, createOut]{
	Name:    "create_pr",
	Event:   "pr.created",
	Toolset: Toolset,
	Description: "Create a local PR record with diff snapshot, file stats, gate results, and risk score. Moves issue to review. " +
		"Deprecated: completing the ready phase (complete_phase) opens the PR for you. The diff is built from git " +
		"(the commits of branch_name against base_branch), never from the text passed.",
	Profiles:     []string{"worker"},
	SchedulerCap: tool.CapPRs,
	Input: tool.Rules{
		"diff":                   tool.MaxLen(120000),
		"branch_name":            tool.Length(1, 255).NonBlank(),
		"base_branch":            tool.Length(1, 255).NonBlank(),
		"gate_results":           tool.List(10, tool.Field{}),
		"gate_results.command":   tool.Length(1, 1000).NonBlank(),
		"gate_results.label":     tool.Length(1, 200).NonBlank(),
		"gate_results.output":    tool.MaxLen(16000),
		"gate_results.exit_code": tool.Range(-2147483648, 4294967295),
		"issue_id":               issueIDRule,
	},
	Output: tool.Rules{"status": prStatusRule, "risk.level": riskRule},
	// git builds the draft before the transaction: the store's writers
	// must not wait for it.
	Prepare: func(ctx context.Context, c *tool.Call, in createIn) (any, error) {
		// The worktree first, as the catalogue says.
		v, err := worktree.Require(ctx, c)
		if err != nil {
			return nil, err
		}
		var it *baton.Item
		var dir string
		if err := c.View(ctx, func() (err error) {
			if it, err = session.Issue(ctx, c, in.IssueID); err != nil {
				return err
			}
			dir, err = repoDir(ctx, c, it, v)
			return err
		}); err != nil {
			return nil, err
		}
		if v != nil && v.Branch != "" && v.Branch != in.BranchName {
			return nil, baton.Errorf(baton.ErrInvalidInput, "branch_name %q is not your worktree's branch %s", in.BranchName, v.Branch).
				WithDetails("field", "branch_name", "value", in.BranchName, "worktree_branch", v.Branch).
				WithHint("commit your work in the worktree and pass branch_name %q", v.Branch)
		}
		draft, err := review.Prepare(ctx, dir, in.BaseBranch, in.BranchName, nil, false, 0)
		if err != nil {
			return nil, err
		}
		return &drafted{itemID: it.ID, draft: draft}, nil
	},
	Execute: func(ctx context.Context, c *tool.Call, in createIn) (createOut, error) {
		d, _ := c.Prepared.(*drafted)
		if d == nil {
			return createOut{}, baton.Errorf(baton.ErrInternal, "create_pr ran without its draft")
		}
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return createOut{}, err
		}
		if it.ID != d.itemID {
			return createOut{}, baton.Errorf(baton.ErrConflict, "%s changed while its PR was being built (now %s)", d.itemID, it.ID).
				WithDetails("issue_id", d.itemID, "now", it.ID).WithHint("call create_pr again")
		}
		draft := d.draft
		rep := make([]review.ReportedGate, len(in.GateResults))
		for i, g := range in.GateResults {
			rep[i] = review.ReportedGate{Command: g.Command, Label: g.Label, ExitCode: g.ExitCode, Output: g.Output, Required: g.Required}
		}
		o, err := review.Open(ctx, c.Tx, review.OpenInput{ItemID: it.ID, Draft: draft, Reported: rep,
			Creator: c.Principal.Agent, Actor: c.Principal.Agent, Now: c.Now})
		if err != nil {
			return createOut{}, err
		}
		p := o.PR
		out := createOut{PRID: p.ID, IssueID: p.ItemID, Status: string(p.Status), IssueStatus: string(o.Item.Status),
			BranchName: p.BranchName, BaseBranch: p.BaseBranch, BaseSHA: p.BaseSHA, HeadSHA: p.HeadSHA, Commits: p.Commits,
			FilesChanged: len(p.Files), LinesAdded: p.LinesAdded(), LinesRemoved: p.LinesRemoved(),
			DiffTruncated: p.DiffTruncated, GateResults: viewGates(p.Gates), BlockingGates: labels(o.Blocking),
			Risk: viewRisk(p.Risk), Superseded: nonNil(o.Superseded), Warnings: warnings(in.Diff, draft.Snapshot)}
		out.Files, out.FilesOmitted = viewFiles(p.Files)
		return out, nil
	},
})

// drafted is create_pr's Prepare result: the draft git built for the
// issue, outside the transaction.
type drafted struct {
	itemID string
	draft  *review.Draft
}

// repoDir is where git runs for a PR of it: the worktree the call came
// from, else the issue's worktree in its project's repository, else the
// project's root (branches are the repository's, whichever of its folders
// git runs in), else, for a project without a root, the working directory.
func repoDir(ctx context.Context, c *tool.Call, it *baton.Item, v *worktree.Verified) (string, error) {
	if v != nil {
		if v.Issue != "" && !sameItem(ctx, c, v.Issue, it.ID) {
			return "", baton.Errorf(baton.ErrInvalidInput, "issue_id %s is not the issue of your worktree, %s", it.ID, v.Issue).
				WithDetails("field", "issue_id", "value", it.ID, "worktree_issue", v.Issue).
				WithHint("leave issue_id out: a PR is for the issue of the worktree it is built in")
		}
		return v.Path, nil
	}
	if p, err := c.Tx.Project(ctx, it.Project); err == nil && p.Root != "" {
		if m := worktree.Find(p.Root, it.ID); m != nil && m.Path != "" {
			return m.Path, nil
		}
		return p.Root, nil
	}
	return c.Env.Getwd()
}

func sameItem(ctx context.Context, c *tool.Call, a, b string) bool {
	if a == b {
		return true
	}
	x, err := c.Tx.Item(ctx, a)
	return err == nil && x.ID == b
}

// warnings say what the caller may have meant to be in the PR and is not:
// files its pasted diff changes that no commit does, and changes left
// uncommitted in the worktree.
func warnings(pasted string, s *review.Snapshot) []string {
	out := []string{}
	var missing []string
	for _, line := range strings.Split(pasted, "\n") {
		rest, ok := strings.CutPrefix(line, "diff --git a/")
		if !ok {
			continue
		}
		// "diff --git a/X b/X": the path is the part after " b/".
		i := strings.LastIndex(rest, " b/")
		if i < 0 {
			continue
		}
		name := rest[i+3:]
		if !slices.ContainsFunc(s.Files, func(f baton.FileStat) bool { return f.Path == name || f.OldPath == name }) &&
			!slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		out = append(out, fmt.Sprintf("the diff passed changes %s, which no commit on %s does: commit it and open a new PR to include it",
			list(missing), s.Branch))
	}
	if len(s.Dirty) > 0 {
		out = append(out, fmt.Sprintf("%d uncommitted changes in the worktree are not in the PR: %s", len(s.Dirty), list(s.Dirty)))
	}
	return out
}

// list names at most five paths.
func list(names []string) string {
	if len(names) <= 5 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
