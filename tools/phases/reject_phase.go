package phases

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type rejectIn struct {
	Phase           string `json:"phase" jsonschema:"Phase being rejected: research, architecture or grooming (ready is reviewed as a PR)."`
	ArtifactHash    string `json:"artifact_hash" jsonschema:"Hash of the artifact being rejected: the SHA-256 its completion claim carries."`
	Reason          string `json:"reason" jsonschema:"Rejection reason."`
	FixInstructions string `json:"fix_instructions,omitempty" jsonschema:"What the agent should fix."`
	IssueID         string `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
}

// RejectPhase is reject_phase.
var RejectPhase = tool.New(tool.Definition[rejectIn, verdictOut]{
	Name:    "reject_phase",
	Event:   "phase.verdict",
	Toolset: Toolset,
	Description: "Record a judge rejection verdict on a phase artifact, bound to the artifact's hash (a stale hash is refused). " +
		"Adds a comment with the rejection details and fix instructions; the orchestrator returns the issue for rework on its next tick.",
	Profiles: []string{"judge"},
	Input: tool.Rules{
		"phase":            phaseRule,
		"artifact_hash":    hashRule,
		"reason":           tool.Length(1, 4000).NonBlank(),
		"fix_instructions": tool.MaxLen(8000),
		"issue_id":         issueIDRule,
	},
	Output: verdictOutRules,
	Execute: func(ctx context.Context, c *tool.Call, in rejectIn) (verdictOut, error) {
		out, err := recordVerdict(ctx, c, verdict{issueID: in.IssueID, phase: in.Phase, hash: in.ArtifactHash,
			verdict: baton.VerdictRejected, reason: in.Reason, fix: in.FixInstructions})
		if err != nil {
			return verdictOut{}, err
		}
		cm := &baton.Comment{ItemID: out.IssueID, Body: RejectionComment(out.Phase, out.ClaimID, in.Reason, in.FixInstructions),
			CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
		if err := c.Tx.AddComment(ctx, cm); err != nil {
			return verdictOut{}, err
		}
		out.CommentID = cm.ID
		out.Message = "Rejection " + out.FindingID + " recorded (processed: false) with comment " + cm.ID +
			": the orchestrator returns " + out.IssueID + " for rework of " + out.Phase + " on its next tick."
		return out, nil
	},
})

// RejectionComment is the comment a phase rejection leaves on the issue,
// which the agent reworking the phase reads in get_issue.
func RejectionComment(phase, claimID, reason, fix string) string {
	s := fmt.Sprintf("Phase %s rejected (claim %s): %s", phase, claimID, reason)
	if fix != "" {
		s += "\n\nFix instructions:\n" + fix
	}
	return s
}
