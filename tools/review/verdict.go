package review

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type approveIn struct {
	Reason  string `json:"reason,omitempty" jsonschema:"Approval reason."`
	IssueID string `json:"issue_id,omitempty" jsonschema:"Issue whose PR to approve; defaults to the issue this session is bound to."`
}

type rejectIn struct {
	Reason          string `json:"reason,omitempty" jsonschema:"Rejection reason."`
	FixInstructions string `json:"fix_instructions,omitempty" jsonschema:"What the worker should fix."`
	IssueID         string `json:"issue_id,omitempty" jsonschema:"Issue whose PR to reject; defaults to the issue this session is bound to."`
}

type verdictOut struct {
	PRID            string `json:"pr_id" jsonschema:"The PR reviewed."`
	IssueID         string `json:"issue_id" jsonschema:"Its issue."`
	Status          string `json:"status" jsonschema:"The PR's status: approved or rejected."`
	IssueStatus     string `json:"issue_status" jsonschema:"The issue's status after the call: review (approved, waiting for a human to merge) or todo (rework)."`
	Reason          string `json:"reason,omitempty" jsonschema:"The reason recorded."`
	FixInstructions string `json:"fix_instructions,omitempty" jsonschema:"The fix instructions recorded."`
	RiskLevel       string `json:"risk_level" jsonschema:"The PR's risk level: low, medium or high."`
	ReviewedBy      string `json:"reviewed_by" jsonschema:"Who reviewed it (the caller)."`
	ReviewedAt      string `json:"reviewed_at" jsonschema:"ISO-8601 UTC timestamp."`
	CommentID       string `json:"comment_id,omitempty" jsonschema:"The comment that tells the worker what to fix (rejection)."`
}

var verdictRules = tool.Rules{"status": tool.Enum(string(baton.PRApproved), string(baton.PRRejected)), "risk_level": riskRule}

// ApprovePR is approve_pr.
var ApprovePR = tool.New(tool.Definition[approveIn, verdictOut]{
	Name:    "approve_pr",
	Event:   "pr.approved",
	Toolset: Toolset,
	Description: "Approve the current PR. Sets PR status to approved. Issue stays in review for human merge. " +
		"Refused while a required gate has failed.",
	Profiles: []string{"judge"},
	Input:    tool.Rules{"reason": tool.MaxLen(4000), "issue_id": issueIDRule},
	Output:   verdictRules,
	Execute: func(ctx context.Context, c *tool.Call, in approveIn) (verdictOut, error) {
		return decide(ctx, c, in.IssueID, review.Verdict{Approve: true, Reason: in.Reason})
	},
})

// RejectPR is reject_pr.
var RejectPR = tool.New(tool.Definition[rejectIn, verdictOut]{
	Name:    "reject_pr",
	Event:   "pr.rejected",
	Toolset: Toolset,
	Description: "Reject the current PR. Sets PR status to rejected, moves issue to todo for rework. " +
		"The reason and fix instructions reach the worker as a comment on the issue (get_issue).",
	Profiles: []string{"judge"},
	Input:    tool.Rules{"reason": tool.MaxLen(4000), "fix_instructions": tool.MaxLen(8000), "issue_id": issueIDRule},
	Output:   verdictRules,
	Execute: func(ctx context.Context, c *tool.Call, in rejectIn) (verdictOut, error) {
		return decide(ctx, c, in.IssueID, review.Verdict{Reason: in.Reason, FixInstructions: in.FixInstructions})
	},
})

func decide(ctx context.Context, c *tool.Call, issueID string, v review.Verdict) (verdictOut, error) {
	it, err := session.Issue(ctx, c, issueID)
	if err != nil {
		return verdictOut{}, err
	}
	p, err := review.Current(ctx, c.Tx, it)
	if err != nil {
		return verdictOut{}, err
	}
	v.Reviewer, v.Now = c.Principal.Agent, c.Now
	it, cm, err := review.Decide(ctx, c.Tx, p, v)
	if err != nil {
		return verdictOut{}, err
	}
	out := verdictOut{PRID: p.ID, IssueID: it.ID, Status: string(p.Status), IssueStatus: string(it.Status), Reason: p.Reason,
		FixInstructions: p.FixInstructions, RiskLevel: p.Risk.Level, ReviewedBy: p.ReviewedBy, ReviewedAt: baton.Timestamp(p.ReviewedAt)}
	if cm != nil {
		out.CommentID = cm.ID
	}
	return out, nil
}
