package phases

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type verdictOut struct {
	FindingID    string `json:"finding_id" jsonschema:"The verdict's id (pv-N): a phase_verdict finding."`
	IssueID      string `json:"issue_id" jsonschema:"The issue judged."`
	Category     string `json:"category" jsonschema:"Always phase_verdict."`
	Phase        string `json:"phase" jsonschema:"The phase judged."`
	ArtifactHash string `json:"artifact_hash" jsonschema:"The hash of the artifact judged (lowercase hex): the claim's."`
	Verdict      string `json:"verdict" jsonschema:"approved or rejected."`
	ClaimID      string `json:"claim_id" jsonschema:"The phase_completion claim (pc-N) the verdict is on."`
	CommentID    string `json:"comment_id,omitempty" jsonschema:"The comment a rejection added with its reason and fix instructions."`
	Processed    bool   `json:"processed" jsonschema:"Always false: the orchestrator applies the verdict on its next tick."`
	CreatedAt    string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	Message      string `json:"message" jsonschema:"What happens next."`
}

var verdictOutRules = tool.Rules{"category": tool.Enum(baton.CategoryPhaseVerdict), "phase": phaseRule,
	"verdict": tool.Enum(baton.VerdictApproved, baton.VerdictRejected)}

// verdict is what approve_phase and reject_phase were asked to record.
type verdict struct {
	issueID, phase, hash, verdict, reason, fix string
}

// recordVerdict checks a verdict against the claim it judges and records
// it as a phase_verdict finding: the issue must be in the phase, its
// latest claim of the phase must carry the hash (a verdict on a stale hash
// is refused), the tick must not have refused that claim, no verdict may
// be on it yet, and the judge may not be the agent that claimed.
func recordVerdict(ctx context.Context, c *tool.Call, v verdict) (verdictOut, error) {
	it, err := session.Issue(ctx, c, v.issueID)
	if err != nil {
		return verdictOut{}, err
	}
	phase := baton.Phase(v.phase)
	if !phase.PreReady() {
		return verdictOut{}, baton.Errorf(baton.ErrInvalidInput, "the ready phase is judged as a PR, not as a phase artifact").
			WithDetails("field", "phase", "constraint", "pre_ready", "phase", v.phase).
			WithHint("review the issue's PR with approve_pr or reject_pr")
	}
	if it.Status.Terminal() {
		return verdictOut{}, baton.Errorf(baton.ErrInvalidTransition, "%s is %s: there is no phase left to judge", it.ID, it.Status).
			WithDetails("task_id", it.ID, "status", string(it.Status)).WithHint("nothing is left to review")
	}
	if err := phaseOf(it, "phase", v.phase); err != nil {
		return verdictOut{}, err
	}
	st, err := orchestrator.LatestClaim(ctx, c.Tx, it.ID, phase)
	if err != nil {
		return verdictOut{}, err
	}
	if st == nil {
		return verdictOut{}, baton.Errorf(baton.ErrNotFound, "%s has no %s completion claim to judge", it.ID, phase).
			WithType("no_claim").WithDetails("task_id", it.ID, "phase", v.phase).
			WithHint("a verdict judges the artifact an agent claimed with complete_phase; wait for the claim (get_issue lists it as a phase_completion finding)")
	}
	want := normHash(v.hash)
	if st.Body.ArtifactHash != want {
		return verdictOut{}, baton.Errorf(baton.ErrConflict, "artifact_hash %s is stale: %s's latest %s claim (%s) is for %s", short(want), it.ID, phase, st.Claim.ID, short(st.Body.ArtifactHash)).
			WithType("stale_hash").WithDetails("field", "artifact_hash", "artifact_hash", want, "claim_id", st.Claim.ID,
			"claimed_hash", st.Body.ArtifactHash, "artifact_path", st.Body.ArtifactPath).
			WithHint("read %s as claimed now and judge that version: pass artifact_hash %s", st.Body.ArtifactPath, st.Body.ArtifactHash)
	}
	if m := st.Mark; m != nil && m.Outcome != baton.OutcomeAwaitingVerdict {
		return verdictOut{}, baton.Errorf(baton.ErrConflict, "the orchestrator did not accept claim %s (%s: %s): there is nothing to judge", st.Claim.ID, m.Outcome, m.Reason).
			WithType("claim_refused").WithDetails("claim_id", st.Claim.ID, "outcome", m.Outcome, "reason", m.Reason).
			WithHint("wait for the agent to fix the artifact and claim the phase again")
	}
	if st.Verdict != nil {
		return verdictOut{}, baton.Errorf(baton.ErrConflict, "claim %s was judged already: %s (%s)", st.Claim.ID, st.VerdictBody.Verdict, st.Verdict.ID).
			WithType("already_judged").WithDetails("claim_id", st.Claim.ID, "verdict_id", st.Verdict.ID, "verdict", st.VerdictBody.Verdict).
			WithHint("one verdict per claim: the next claim of the phase can be judged again")
	}
	if c.Principal.Agent != baton.User && strings.EqualFold(c.Principal.Agent, st.Claim.CreatedBy) {
		return verdictOut{}, baton.Errorf(baton.ErrPermissionDenied, "%s claimed %s: an agent does not judge its own artifact", c.Principal.Agent, st.Claim.ID).
			WithType("self_review").WithDetails("claim_id", st.Claim.ID, "created_by", st.Claim.CreatedBy).
			WithHint("a judge (another agent) or the user judges it")
	}
	body := baton.PhaseVerdict{Phase: v.phase, ArtifactHash: want, Verdict: v.verdict, Reason: v.reason,
		FixInstructions: v.fix, ClaimID: st.Claim.ID}
	details, err := json.Marshal(body)
	if err != nil {
		return verdictOut{}, err
	}
	summary := fmt.Sprintf("%s %s artifact %s", v.verdict, phase, short(want))
	if v.reason != "" {
		summary += ": " + v.reason
	}
	f := &baton.Finding{ItemID: it.ID, Category: baton.CategoryPhaseVerdict, Summary: clip(summary, 500), Details: string(details),
		Files: []string{}, CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
	if st.Body.ArtifactPath != "" {
		f.Files = []string{st.Body.ArtifactPath}
	}
	if err := c.Tx.AddFinding(ctx, f); err != nil {
		return verdictOut{}, err
	}
	return verdictOut{FindingID: f.ID, IssueID: it.ID, Category: f.Category, Phase: v.phase, ArtifactHash: want,
		Verdict: v.verdict, ClaimID: st.Claim.ID, CreatedAt: baton.Timestamp(f.CreatedAt)}, nil
}

// clip cuts s to at most n characters.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
