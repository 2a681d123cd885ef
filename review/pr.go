// Package review is Symphony's PR pipeline: PR records built from real git
// (the branch against its base, with the git binary), their gates
// and risk, and the judge's verdict with its effect on the issue. The
// tools (tools/review), the CLI (baton prs, baton pr) and the
// orchestrator's tick all go through it.
package review

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// Draft is a PR ready to be recorded: git's snapshot and the gates run on
// it, made outside any transaction (git and gate commands take time no
// transaction should hold the store for).
type Draft struct {
	Dir      string // where git ran: the worktree
	Snapshot *Snapshot
	Ran      []baton.GateResult // gates baton ran itself (source "run")
}

// Prepare builds a draft from git in dir; with runGates the project's
// configured gates run too, each limited to gateTimeout, in a clean
// checkout of the snapshot's head commit (RunGatesAt), never in dir as
// it is on disk.
func Prepare(ctx context.Context, dir, base, branch string, cfg *baton.ProjectConfig, runGates bool, gateTimeout time.Duration) (*Draft, error) {
	s, err := Build(ctx, dir, base, branch)
	if err != nil {
		return nil, err
	}
	d := &Draft{Dir: dir, Snapshot: s}
	if runGates && cfg != nil && len(cfg.Gates) > 0 {
		if d.Ran, err = RunGatesAt(ctx, dir, s.HeadSHA, cfg.Gates, gateTimeout, nil); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// OpenInput is what Open records.
type OpenInput struct {
	ItemID string
	Draft  *Draft
	// Reported are gate results the agent passed (create_pr); Required
	// nil means "as the project configures the gate".
	Reported []ReportedGate
	// Creator is the agent whose work the PR is; Actor the one recording
	// it: the creator itself (create_pr), or the orchestrator that opens
	// the PR of a worker's ready claim.
	Creator, Actor string
	Now            time.Time
}

// ReportedGate is one gate result an agent reported.
type ReportedGate struct {
	Command  string
	Label    string
	ExitCode int
	Output   string
	Required *bool
}

// Opened is what Open did.
type Opened struct {
	PR             *baton.PR
	Item           *baton.Item // the issue after the change
	PreviousStatus baton.Status
	Superseded     []string // older PRs of the issue this one replaces
	Blocking       []baton.GateResult
}

// Open records a PR for an issue inside tx: the draft's snapshot, the
// gate results (those baton ran replace reported ones of the same gate),
// the risk score from the project's settings; the older open,
// rejected or approved (not yet merged) PRs become superseded, as their
// snapshot is no longer the branch's, and the issue moves to review (through
// in_progress when it had not started). The creator's claim ends: the
// work is handed to review. When the actor is not the creator (the
// orchestrator), whatever claim the issue has ends first.
func Open(ctx context.Context, tx baton.Tx, in OpenInput) (*Opened, error) {
	it, err := tx.Item(ctx, in.ItemID)
	if err != nil {
		return nil, err
	}
	if it.Status.Terminal() {
		return nil, baton.Errorf(baton.ErrInvalidTransition, "%s is %s: a finished issue gets no PR", it.ID, it.Status).
			WithDetails("task_id", it.ID, "from", string(it.Status), "to", string(baton.StatusReview)).
			WithHint("open a new issue for further work")
	}
	if ph := it.Phase(); ph.PreReady() {
		return nil, baton.Errorf(baton.ErrInvalidTransition, "%s is in the %s phase: a PR comes with the ready phase", it.ID, ph).
			WithType("phase_not_ready").WithDetails("task_id", it.ID, "phase", string(ph)).
			WithHint("complete the %s phase with complete_phase; the orchestrator advances the issue to ready once a judge approves", ph)
	}
	prev, err := tx.PRs(ctx, baton.PRFilter{ItemID: it.ID, Statuses: []baton.PRStatus{baton.PROpen, baton.PRRejected, baton.PRApproved}})
	if err != nil {
		return nil, err
	}
	for _, p := range prev {
		if p.Status == baton.PROpen && it.Status == baton.StatusReview {
			return nil, baton.Errorf(baton.ErrConflict, "%s is in review with %s open: one PR is reviewed at a time", it.ID, p.ID).
				WithType("pr_open").WithDetails("task_id", it.ID, "pr_id", p.ID).
				WithHint("wait for the judge's verdict (approve_pr or reject_pr); after a rejection, fix the work and open a new PR")
		}
	}
	cfg, err := LoadConfig(ctx, tx, it.Project)
	if err != nil {
		return nil, err
	}
	from := it.Status
	if in.Actor != in.Creator {
		// The orchestrator records a worker's PR: the worker's lease (or
		// anyone's) on the issue ends here, as the work leaves it.
		if cl, err := tx.ClaimOf(ctx, it.ID); err != nil {
			return nil, err
		} else if cl != nil {
			err := tx.ReleaseClaim(ctx, it.ID, cl.Holder, in.Now)
			if err != nil && baton.ErrorCode(err) != baton.ErrNotFound {
				return nil, err
			}
			if it, err = tx.Item(ctx, it.ID); err != nil {
				return nil, err
			}
		}
	}
	if err := toReview(it); err != nil {
		return nil, err
	}
	if it.Assignee == "" {
		it.Assignee = in.Creator // rework after a rejection goes back to the same worker first
	}
	it.UpdatedBy, it.UpdatedAt = in.Actor, in.Now
	if err := tx.UpdateItem(ctx, it); err != nil {
		return nil, err
	}
	if in.Actor == in.Creator {
		cl, err := tx.ClaimOf(ctx, it.ID)
		if err != nil {
			return nil, err
		}
		if cl != nil && strings.EqualFold(cl.Holder, in.Creator) && cl.Active(in.Now) {
			if err := tx.ReleaseClaim(ctx, it.ID, cl.Holder, in.Now); err != nil {
				return nil, err
			}
		}
	}
	out := &Opened{Item: it, PreviousStatus: from}
	for _, p := range prev {
		p.Status, p.UpdatedAt = baton.PRSuperseded, in.Now
		if err := tx.UpdatePR(ctx, p); err != nil {
			return nil, err
		}
		out.Superseded = append(out.Superseded, p.ID)
	}
	s := in.Draft.Snapshot
	pr := &baton.PR{ItemID: it.ID, BranchName: s.Branch, BaseBranch: s.Base, BaseSHA: s.BaseSHA, HeadSHA: s.HeadSHA,
		Commits: s.Commits, RepoDir: in.Draft.Dir, Diff: s.Diff, DiffTruncated: s.Truncated, Files: s.Files,
		Gates: withMissing(MergeGates(reported(in.Reported, cfg), in.Draft.Ran), cfg), Risk: Score(s.Files, cfg), Status: baton.PROpen,
		CreatedBy: in.Creator, CreatedAt: in.Now, UpdatedAt: in.Now}
	if err := tx.CreatePR(ctx, pr); err != nil {
		return nil, err
	}
	out.PR, out.Blocking = pr, Blocking(pr.Gates)
	return out, nil
}

// toReview moves an issue to review, through in_progress when it had not
// started (todo, or blocked waiting); one already in review stays there.
func toReview(it *baton.Item) error {
	if it.Status == baton.StatusReview {
		return nil
	}
	if it.Status == baton.StatusBlocked && it.ResumeStatus != "" {
		return baton.Errorf(baton.ErrInvalidTransition, "%s waits for its sub-tasks: it cannot go to review before they are done", it.ID).
			WithDetails("task_id", it.ID, "from", string(it.Status), "to", string(baton.StatusReview)).
			WithHint("finish or cancel the sub-tasks first (get_issue lists them)")
	}
	steps := []baton.Status{baton.StatusReview}
	if it.Status == baton.StatusTodo || it.Status == baton.StatusBlocked {
		steps = []baton.Status{baton.StatusInProgress, baton.StatusReview}
	}
	from := it.Status
	for _, s := range steps {
		if err := baton.Transition(it.ID, from, s); err != nil {
			return err
		}
		from = s
	}
	it.Status, it.BlockedReason = baton.StatusReview, ""
	return nil
}

// reported turns an agent's gate results into records: output trimmed.
// A gate the project configures stays required when it configures it so
// (the agent may make it required, never optional: a reported
// required: false must not let a failed required gate through); an
// unconfigured gate is required as the agent reported it.
func reported(rs []ReportedGate, cfg *baton.ProjectConfig) []baton.GateResult {
	out := make([]baton.GateResult, 0, len(rs))
	for _, r := range rs {
		g := baton.GateResult{Command: r.Command, Label: r.Label, ExitCode: r.ExitCode, Output: Trim(r.Output), Source: "reported"}
		if r.Required != nil {
			g.Required = *r.Required
		}
		if cg, ok := configuredGate(cfg, r.Label, r.Command); ok {
			g.Required = g.Required || cg.Required
		}
		out = append(out, g)
	}
	return out
}

// MergeGates keeps the results of old that no result of ran replaces (same
// label, or same command), then ran's: the gates baton ran are the word on
// the gates an agent reported.
func MergeGates(old, ran []baton.GateResult) []baton.GateResult {
	out := make([]baton.GateResult, 0, len(old)+len(ran))
	for _, g := range old {
		if !slices.ContainsFunc(ran, func(r baton.GateResult) bool { return r.Label == g.Label || r.Command == g.Command }) {
			out = append(out, g)
		}
	}
	return append(out, ran...)
}

// NotRun is the Source of the result a PR records for a required gate
// the project configures and nobody reported or ran: it blocks approval
// until `baton pr gates` runs it (or a new PR reports it).
const NotRun = "not_run"

// withMissing adds a not-run result for every required gate of cfg that
// gates have no result for (by label, case-insensitively, or command):
// a required gate nobody ran has not passed.
func withMissing(gates []baton.GateResult, cfg *baton.ProjectConfig) []baton.GateResult {
	for _, g := range cfg.Gates {
		if !g.Required {
			continue
		}
		if slices.ContainsFunc(gates, func(r baton.GateResult) bool {
			return strings.EqualFold(strings.TrimSpace(r.Label), strings.TrimSpace(g.Label)) || r.Command == g.Command
		}) {
			continue
		}
		gates = append(gates, baton.GateResult{Command: g.Command, Label: g.Label, ExitCode: -1, Required: true, Source: NotRun,
			Output: "not run: no result was reported for this required gate; `baton pr gates` runs it"})
	}
	return gates
}

// Blocking are the required gates that did not pass: while there is one
// the PR cannot be approved.
func Blocking(gates []baton.GateResult) []baton.GateResult {
	out := []baton.GateResult{}
	for _, g := range gates {
		if g.Required && !g.Passed() {
			out = append(out, g)
		}
	}
	return out
}

// Current returns the PR a judge reviews for an issue: its latest, which
// must be open.
func Current(ctx context.Context, tx baton.Tx, it *baton.Item) (*baton.PR, error) {
	ps, err := tx.PRs(ctx, baton.PRFilter{ItemID: it.ID, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, baton.Errorf(baton.ErrNotFound, "%s has no PR to review", it.ID).WithType("pr_not_found").
			WithDetails("task_id", it.ID).
			WithHint("a PR is opened when the worker completes the ready phase (complete_phase) or calls create_pr")
	}
	p := ps[0]
	if p.Status != baton.PROpen {
		return nil, baton.Errorf(baton.ErrInvalidTransition, "%s, the latest PR of %s, is already %s", p.ID, it.ID, p.Status).
			WithDetails("pr_id", p.ID, "task_id", it.ID, "status", string(p.Status)).
			WithHint("only an open PR is reviewed; the next one opens when the worker completes the rework")
	}
	return p, nil
}

// Verdict is a judge's decision on a PR.
type Verdict struct {
	Approve         bool
	Reason          string
	FixInstructions string
	Reviewer        string
	Now             time.Time
}

// Decide records a verdict on an open PR inside tx. Approval needs every
// required gate passed and leaves the issue in review for a human to
// merge; rejection sends the issue back to todo for rework, with the
// reason and fix instructions as a comment the worker reads in get_issue.
// An agent does not review its own PR.
func Decide(ctx context.Context, tx baton.Tx, p *baton.PR, v Verdict) (*baton.Item, *baton.Comment, error) {
	it, err := tx.Item(ctx, p.ItemID)
	if err != nil {
		return nil, nil, err
	}
	if p.Status != baton.PROpen {
		return nil, nil, baton.Errorf(baton.ErrInvalidTransition, "%s is already %s", p.ID, p.Status).
			WithDetails("pr_id", p.ID, "status", string(p.Status)).WithHint("only an open PR is reviewed")
	}
	if v.Reviewer != baton.User && strings.EqualFold(v.Reviewer, p.CreatedBy) {
		return nil, nil, baton.Errorf(baton.ErrPermissionDenied, "%s opened %s: an agent does not review its own PR", v.Reviewer, p.ID).
			WithType("self_review").WithDetails("pr_id", p.ID, "created_by", p.CreatedBy).
			WithHint("a judge (another agent) or the user reviews it")
	}
	if it.Status.Terminal() {
		return nil, nil, baton.Errorf(baton.ErrInvalidTransition, "%s is %s: its PR %s can no longer be reviewed", it.ID, it.Status, p.ID).
			WithDetails("task_id", it.ID, "pr_id", p.ID, "status", string(it.Status)).WithHint("nothing is left to review")
	}
	p.Reason, p.ReviewedBy, p.ReviewedAt, p.UpdatedAt = v.Reason, v.Reviewer, v.Now, v.Now
	if v.Approve {
		if b := Blocking(p.Gates); len(b) > 0 {
			labels := make([]string, len(b))
			for i, g := range b {
				switch {
				case g.Source == NotRun:
					labels[i] = g.Label + " (not run)"
				case g.TimedOut:
					labels[i] = g.Label + " (timed out)"
				default:
					labels[i] = fmt.Sprintf("%s (exit %d)", g.Label, g.ExitCode)
				}
			}
			return nil, nil, baton.Errorf(baton.ErrInvalidTransition, "%s cannot be approved: required gate %s did not pass", p.ID, strings.Join(labels, ", ")).
				WithType("gate_failed").WithDetails("pr_id", p.ID, "failed_gates", gateDetails(b)).
				WithHint("reject it with fix instructions from the gate output (reject_pr), or rerun the gates once fixed (baton pr gates %s)", p.ID)
		}
		if it.Status != baton.StatusReview {
			return nil, nil, baton.Errorf(baton.ErrInvalidTransition, "%s is %s, not in review: its PR %s cannot be approved", it.ID, it.Status, p.ID).
				WithDetails("task_id", it.ID, "pr_id", p.ID, "status", string(it.Status)).
				WithHint("a PR is approved while its issue is in review")
		}
		p.Status, p.FixInstructions = baton.PRApproved, ""
		return it, nil, tx.UpdatePR(ctx, p)
	}
	p.Status, p.FixInstructions = baton.PRRejected, v.FixInstructions
	if err := tx.UpdatePR(ctx, p); err != nil {
		return nil, nil, err
	}
	// review -> todo is the pipeline's own move, outside the state
	// machine's table (Symphony: "moves issue to todo for rework").
	it.Status, it.BlockedReason, it.ResumeStatus = baton.StatusTodo, "", ""
	it.UpdatedBy, it.UpdatedAt = v.Reviewer, v.Now
	if err := tx.UpdateItem(ctx, it); err != nil {
		return nil, nil, err
	}
	cm := &baton.Comment{ItemID: it.ID, Body: RejectionComment(p), CreatedBy: v.Reviewer, CreatedAt: v.Now}
	if err := tx.AddComment(ctx, cm); err != nil {
		return nil, nil, err
	}
	return it, cm, nil
}

// RejectionComment is the comment a rejection leaves on the issue.
func RejectionComment(p *baton.PR) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PR %s rejected", p.ID)
	if p.Reason != "" {
		fmt.Fprintf(&b, ": %s", p.Reason)
	}
	if p.FixInstructions != "" {
		fmt.Fprintf(&b, "\n\nFix instructions:\n%s", p.FixInstructions)
	}
	return b.String()
}

func gateDetails(gs []baton.GateResult) []map[string]any {
	out := make([]map[string]any, len(gs))
	for i, g := range gs {
		out[i] = map[string]any{"label": g.Label, "command": g.Command, "exit_code": g.ExitCode, "source": g.Source}
	}
	return out
}

// GateVerdict is the rejection the orchestrator records on a PR whose
// required gates failed when it was opened, so no judge is dispatched to
// review work that does not pass (symphony-pipeline §6): the fix
// instructions are the failed gates' output. ok is false when no required
// gate failed.
func GateVerdict(p *baton.PR, reviewer string, now time.Time) (v Verdict, ok bool) {
	b := Blocking(p.Gates)
	if len(b) == 0 {
		return Verdict{}, false
	}
	var fix strings.Builder
	names := make([]string, len(b))
	for i, g := range b {
		names[i] = g.Label
		if i > 0 {
			fix.WriteString("\n\n")
		}
		fmt.Fprintf(&fix, "Make the %s gate pass: `%s` exited %d", g.Label, g.Command, g.ExitCode)
		if g.Output != "" {
			fmt.Fprintf(&fix, ":\n%s", g.Output)
		}
	}
	return Verdict{Reason: "required gate " + strings.Join(names, ", ") + " failed", FixInstructions: fix.String(),
		Reviewer: reviewer, Now: now}, true
}
