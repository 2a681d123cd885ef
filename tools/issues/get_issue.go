package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/pipeline"
	"github.com/baton-dev/baton/tools/session"
)

type getIn struct {
	IssueID string `json:"issue_id,omitempty" jsonschema:"Issue ID (defaults to current issue)."`
}

type findingView struct {
	ID        string   `json:"id" jsonschema:"Finding id."`
	Category  string   `json:"category" jsonschema:"test_result, code_pattern, architecture, bug or gap; phase_completion (complete_phase) or phase_verdict (approve_phase, reject_phase)."`
	Summary   string   `json:"summary" jsonschema:"Short summary."`
	Details   string   `json:"details,omitempty" jsonschema:"Full details (a phase finding's claim or verdict, as JSON)."`
	Files     []string `json:"files" jsonschema:"Related file paths."`
	CreatedBy string   `json:"created_by" jsonschema:"Who recorded it."`
	CreatedAt string   `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	// The orchestrator's processing of a phase finding (phase_marks.go).
	Processed *bool  `json:"processed,omitempty" jsonschema:"Phase findings only: whether the orchestrator's tick has processed it."`
	Outcome   string `json:"outcome,omitempty" jsonschema:"Phase findings only, once processed: awaiting_verdict, pr_created, advanced, rejected, escalated, stale or ignored."`
	Reason    string `json:"processed_reason,omitempty" jsonschema:"Phase findings only, once processed: why the tick did what it did."`
}

type learningView struct {
	ID           string   `json:"id" jsonschema:"Learning id."`
	Pattern      string   `json:"pattern" jsonschema:"The reusable pattern."`
	Context      string   `json:"context,omitempty" jsonschema:"When and where it applies."`
	AppliesTo    []string `json:"applies_to" jsonschema:"Directory or file prefixes it is relevant to."`
	LearningType string   `json:"learning_type,omitempty" jsonschema:"convention, gotcha or pattern."`
	QualityScore int      `json:"quality_score" jsonschema:"0-100; new learnings start at 50."`
	Verified     bool     `json:"verified" jsonschema:"Whether a human verified it."`
	CreatedBy    string   `json:"created_by" jsonschema:"Who recorded it."`
	CreatedAt    string   `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

type commentView struct {
	ID        string `json:"id" jsonschema:"Comment id."`
	Content   string `json:"content" jsonschema:"Comment text."`
	CreatedBy string `json:"created_by" jsonschema:"Who wrote it."`
	CreatedAt string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

type getOut struct {
	ID          string         `json:"id" jsonschema:"Issue id."`
	Identifier  string         `json:"identifier" jsonschema:"Issue identifier (the same as id)."`
	Title       string         `json:"title" jsonschema:"Issue title."`
	Description string         `json:"description" jsonschema:"Issue description."`
	Status      string         `json:"status" jsonschema:"Current status."`
	Priority    int            `json:"priority" jsonschema:"1 urgent, 2 high, 3 medium, 4 low."`
	Labels      []string       `json:"labels" jsonschema:"Labels."`
	Assignee    string         `json:"assignee,omitempty" jsonschema:"Assignee, if any."`
	Project     string         `json:"project" jsonschema:"Project slug."`
	ParentID    string         `json:"parent_id,omitempty" jsonschema:"Parent issue, for a subtask."`
	DependsOn   []string       `json:"depends_on" jsonschema:"Issues this one depends on."`
	Subtasks    []string       `json:"subtasks" jsonschema:"Child issues."`
	Findings    []findingView  `json:"findings" jsonschema:"Findings, oldest first."`
	Learnings   []learningView `json:"learnings" jsonschema:"Learnings recorded on this issue, oldest first."`
	Comments    []commentView  `json:"comments" jsonschema:"Comments, oldest first."`
	Phase       string         `json:"phase" jsonschema:"Pipeline phase: research, architecture, grooming or ready (an issue without a phase:* label is ready)."`
	// The contract and settings the issue's agents work under.
	PhaseContract      *contractView        `json:"phase_contract,omitempty" jsonschema:"The contract of the issue's phase: the artifact to write and its required sections."`
	PhaseContractError string               `json:"phase_contract_error,omitempty" jsonschema:"Why the phase's contract file cannot be used, when it cannot."`
	ProjectConfig      *pipeline.ConfigView `json:"project_config" jsonschema:"The project's settings: quality gates to pass, sensitive paths, risk thresholds, worker and judge instructions."`
	PullRequest        *prView              `json:"pull_request,omitempty" jsonschema:"The issue's latest PR record, if it has one: after a rejection, what to fix."`
	FileReservations   []reservationView    `json:"file_reservations" jsonschema:"The active file reservations taken for the issue (they end with its claim), oldest first."`
	CreatedAt          string               `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	UpdatedAt          string               `json:"updated_at" jsonschema:"ISO-8601 UTC timestamp."`
}

// GetIssue is get_issue.
var GetIssue = tool.New(tool.Definition[getIn, getOut]{
	Name:        "get_issue",
	Toolset:     Toolset,
	Description: "Get details of an issue: title, description, status, priority, findings, learnings and comments. Defaults to the currently assigned issue.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"issue_id": issueIDRule},
	Output:      tool.Rules{"priority": tool.Range(1, 4), "file_reservations.expires_at": tool.DateTime()},
	Execute: func(ctx context.Context, c *tool.Call, in getIn) (getOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return getOut{}, err
		}
		out := getOut{ID: it.ID, Identifier: it.ID, Title: it.Title, Description: it.Description,
			Status: string(it.Status), Priority: priorityOut(it.Priority), Labels: nonNil(it.Labels),
			Assignee: it.Assignee, Project: it.Project, ParentID: it.ParentID,
			CreatedAt: baton.Timestamp(it.CreatedAt), UpdatedAt: baton.Timestamp(it.UpdatedAt)}
		// One statement says which lists hold anything; the empty ones,
		// most of them on most calls, are not read.
		holds, err := c.Tx.ItemHolds(ctx, it.ID)
		if err != nil {
			return out, err
		}
		out.DependsOn, out.Subtasks, out.Findings, out.Learnings, out.Comments, out.FileReservations =
			[]string{}, []string{}, []findingView{}, []learningView{}, []commentView{}, []reservationView{}
		if holds.Dependencies {
			if out.DependsOn, err = c.Tx.Dependencies(ctx, it.ID); err != nil {
				return out, err
			}
		}
		if holds.Children {
			if out.Subtasks, err = c.Tx.Children(ctx, it.ID); err != nil {
				return out, err
			}
		}
		if holds.Findings {
			fs, err := c.Tx.Findings(ctx, it.ID, 0)
			if err != nil {
				return out, err
			}
			for _, f := range fs {
				out.Findings = append(out.Findings, viewFinding(f))
			}
			if err := markFindings(ctx, c, it.ID, out.Findings); err != nil {
				return out, err
			}
		}
		if holds.Learnings {
			ls, err := c.Tx.Learnings(ctx, it.ID)
			if err != nil {
				return out, err
			}
			for _, l := range ls {
				out.Learnings = append(out.Learnings, viewLearning(l))
			}
		}
		if out.Phase, out.PhaseContract, out.PhaseContractError, out.ProjectConfig, err = phaseOf(ctx, c, it); err != nil {
			return out, err
		}
		if holds.Comments {
			cs, err := c.Tx.Comments(ctx, it.ID)
			if err != nil {
				return out, err
			}
			for _, cm := range cs {
				out.Comments = append(out.Comments, commentView{ID: cm.ID, Content: cm.Body, CreatedBy: cm.CreatedBy, CreatedAt: baton.Timestamp(cm.CreatedAt)})
			}
		}
		if holds.PRs {
			if out.PullRequest, err = latestPR(ctx, c, it.ID); err != nil {
				return out, err
			}
		}
		if holds.Reservations {
			if out.FileReservations, err = itemReservations(ctx, c, it.ID); err != nil {
				return out, err
			}
		}
		return out, nil
	},
})

func viewFinding(f *baton.Finding) findingView {
	return findingView{ID: f.ID, Category: f.Category, Summary: f.Summary, Details: f.Details,
		Files: nonNil(f.Files), CreatedBy: f.CreatedBy, CreatedAt: baton.Timestamp(f.CreatedAt)}
}

func viewLearning(l *baton.Learning) learningView {
	return learningView{ID: l.ID, Pattern: l.Pattern, Context: l.Context, AppliesTo: nonNil(l.AppliesTo),
		LearningType: l.Type, QualityScore: l.QualityScore, Verified: l.Verified, CreatedBy: l.CreatedBy,
		CreatedAt: baton.Timestamp(l.CreatedAt)}
}

// reservationView is an active file reservation taken for the issue.
type reservationView struct {
	ID          int64  `json:"file_reservation_id" jsonschema:"The reservation's id."`
	Agent       string `json:"agent" jsonschema:"Who holds it."`
	PathPattern string `json:"path_pattern" jsonschema:"The glob it reserves."`
	Exclusive   bool   `json:"exclusive" jsonschema:"Whether it is exclusive."`
	ExpiresAt   string `json:"expires_at" jsonschema:"ISO-8601 UTC time it lapses unless renewed."`
}

// itemReservations are the item's active file reservations, oldest first.
func itemReservations(ctx context.Context, c *tool.Call, itemID string) ([]reservationView, error) {
	rs, err := c.Tx.Reservations(ctx, baton.ReservationFilter{Item: itemID, Now: c.Now})
	if err != nil {
		return nil, err
	}
	out := make([]reservationView, 0, len(rs))
	for _, r := range rs {
		out = append(out, reservationView{ID: r.ID, Agent: r.Agent, PathPattern: r.Pattern, Exclusive: r.Exclusive,
			ExpiresAt: baton.Timestamp(r.ExpiresAt)})
	}
	return out, nil
}

// prView is an issue's latest PR as get_issue shows it (Symphony's issue
// API embeds the PR with its risk score).
type prView struct {
	ID              string   `json:"id" jsonschema:"PR record id."`
	Status          string   `json:"status" jsonschema:"open, approved, rejected, superseded or merged."`
	BranchName      string   `json:"branch_name" jsonschema:"Source branch."`
	BaseBranch      string   `json:"base_branch" jsonschema:"Target branch."`
	RiskLevel       string   `json:"risk_level" jsonschema:"low, medium or high."`
	RiskReasons     []string `json:"risk_reasons" jsonschema:"Why the PR has its risk level."`
	FailedGates     []string `json:"failed_gates" jsonschema:"Labels of gates that did not pass."`
	Reason          string   `json:"reason,omitempty" jsonschema:"The reviewer's reason."`
	FixInstructions string   `json:"fix_instructions,omitempty" jsonschema:"What the reviewer asks to fix (after a rejection)."`
	ReviewedBy      string   `json:"reviewed_by,omitempty" jsonschema:"Who reviewed it."`
	CreatedAt       string   `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

func latestPR(ctx context.Context, c *tool.Call, itemID string) (*prView, error) {
	ps, err := c.Tx.PRs(ctx, baton.PRFilter{ItemID: itemID, Limit: 1})
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	p := ps[0]
	v := &prView{ID: p.ID, Status: string(p.Status), BranchName: p.BranchName, BaseBranch: p.BaseBranch,
		RiskLevel: p.Risk.Level, RiskReasons: nonNil(p.Risk.Reasons), FailedGates: []string{}, Reason: p.Reason,
		FixInstructions: p.FixInstructions, ReviewedBy: p.ReviewedBy, CreatedAt: baton.Timestamp(p.CreatedAt)}
	for _, g := range p.Gates {
		if !g.Passed() {
			v.FailedGates = append(v.FailedGates, g.Label)
		}
	}
	return v, nil
}
