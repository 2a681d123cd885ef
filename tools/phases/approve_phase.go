package phases

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type approveIn struct {
	Phase        string `json:"phase" jsonschema:"Phase being approved: research, architecture or grooming (ready is reviewed as a PR)."`
	ArtifactHash string `json:"artifact_hash" jsonschema:"Hash of the artifact being approved: the SHA-256 its completion claim carries."`
	Reason       string `json:"reason,omitempty" jsonschema:"Approval reason."`
	IssueID      string `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
}

// ApprovePhase is approve_phase.
var ApprovePhase = tool.New(tool.Definition[approveIn, verdictOut]{
	Name:    "approve_phase",
	Event:   "phase.verdict",
	Toolset: Toolset,
	Description: "Record a judge approval verdict on a phase artifact, bound to the artifact's hash (a stale hash is refused). " +
		"Does NOT perform the transition: the orchestrator reads the verdict on its next tick and advances the phase.",
	Profiles: []string{"judge"},
	Input: tool.Rules{
		"phase":         phaseRule,
		"artifact_hash": hashRule,
		"reason":        tool.MaxLen(4000),
		"issue_id":      issueIDRule,
	},
	Output: verdictOutRules,
	Execute: func(ctx context.Context, c *tool.Call, in approveIn) (verdictOut, error) {
		out, err := recordVerdict(ctx, c, verdict{issueID: in.IssueID, phase: in.Phase, hash: in.ArtifactHash,
			verdict: baton.VerdictApproved, reason: in.Reason})
		if err != nil {
			return verdictOut{}, err
		}
		out.Message = "Approval " + out.FindingID + " recorded (processed: false): the orchestrator advances " + out.IssueID +
			" past " + out.Phase + " on its next tick."
		return out, nil
	},
})
