package phases_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/phases"
)

// TestVerdictsAreBoundToTheClaimedHash: a judge's verdict names the hash
// of the issue's latest claim of the phase; anything else is refused
// with what to do instead, and records nothing.
func TestVerdictsAreBoundToTheClaimedHash(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	otherID, otherDir := f.issue(baton.PhaseArchitecture)
	researcher := f.agent("researcher-1", "researcher", id, dir)
	judge := f.agent("judge-1", "judge", id, dir)
	args := f.artifact(dir, id, baton.PhaseResearch, research)
	pc := researcher.OK("complete_phase", args)["finding_id"].(string)
	hash := args["artifact_hash"].(string)
	stale := phases.Hash([]byte("an older draft"))
	for _, tc := range []struct {
		name, tool   string
		as           func() map[string]any
		judge        string // "" is judge-1 on the research issue
		code, typ    string
		message      string
		detailsClaim bool
	}{
		{"StaleHash", "approve_phase", func() map[string]any { return map[string]any{"phase": "research", "artifact_hash": stale} },
			"", baton.ErrConflict, "stale_hash", "artifact_hash " + stale[:12] + " is stale: " + id + "'s latest research claim (" + pc + ") is for " + hash[:12], true},
		{"StaleHashRejected", "reject_phase", func() map[string]any {
			return map[string]any{"phase": "research", "artifact_hash": stale, "reason": "no"}
		}, "", baton.ErrConflict, "stale_hash", "is stale", true},
		{"ReadyIsAPR", "approve_phase", func() map[string]any { return map[string]any{"phase": "ready", "artifact_hash": hash} },
			"", baton.ErrInvalidInput, "invalid_input", "the ready phase is judged as a PR, not as a phase artifact", false},
		{"NotTheIssuesPhase", "approve_phase", func() map[string]any { return map[string]any{"phase": "grooming", "artifact_hash": hash} },
			"", baton.ErrInvalidTransition, "invalid_transition", id + " is in phase research, not grooming", false},
		{"NoClaim", "approve_phase", func() map[string]any {
			return map[string]any{"phase": "architecture", "artifact_hash": hash, "issue_id": otherID}
		}, "", baton.ErrNotFound, "no_claim", otherID + " has no architecture completion claim to judge", false},
		{"OwnArtifact", "approve_phase", func() map[string]any { return map[string]any{"phase": "research", "artifact_hash": hash} },
			"researcher-1", baton.ErrPermissionDenied, "self_review", "researcher-1 claimed " + pc + ": an agent does not judge its own artifact", true},
		{"RejectionNeedsAReason", "reject_phase", func() map[string]any { return map[string]any{"phase": "research", "artifact_hash": hash} },
			"", baton.ErrInvalidInput, "invalid_input", "reason is required", false},
		{"HashNotHex", "approve_phase", func() map[string]any { return map[string]any{"phase": "research", "artifact_hash": "abc123..."} },
			"", baton.ErrInvalidInput, "invalid_input", "artifact_hash must match the pattern", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := judge
			if tc.judge != "" {
				k = f.agent(tc.judge, "judge", id, dir) // the claimant, as a judge
			}
			e := k.On(t).FailEnvelope(tc.tool, tc.as(), tc.code)
			if e.Type != tc.typ || !strings.Contains(e.Message, tc.message) || e.Hint == "" {
				t.Errorf("error %+v, want type %s and message containing %q", e, tc.typ, tc.message)
			}
			if tc.detailsClaim && e.Details["claim_id"] != pc {
				t.Errorf("details %v do not name the claim %s", e.Details, pc)
			}
		})
	}
	_ = otherDir
	if fs := f.findings(id); len(fs) != 1 {
		t.Errorf("refused verdicts recorded findings: %+v", fs)
	}
	// The right hash, in any case and with a sha256: prefix, is taken once.
	out := judge.OK("approve_phase", map[string]any{"phase": "research", "artifact_hash": "sha256:" + strings.ToUpper(hash), "reason": "sound"})
	if !strings.HasPrefix(out["finding_id"].(string), "pv-") || out["claim_id"] != pc || out["verdict"] != "approved" ||
		out["artifact_hash"] != hash || out["processed"] != false {
		t.Errorf("approval output %v", out)
	}
	e := f.agent("judge-2", "judge", id, dir).FailEnvelope("reject_phase",
		map[string]any{"phase": "research", "artifact_hash": hash, "reason": "second opinion"}, baton.ErrConflict)
	if e.Type != "already_judged" || !strings.Contains(e.Message, "claim "+pc+" was judged already: approved") {
		t.Errorf("second verdict: %+v", e)
	}
	// The judge spoke before the tick: one tick takes the claim, then the
	// verdict, in order.
	r := f.tick()
	var got []string
	for _, tr := range r.Transitions {
		got = append(got, tr.Outcome)
	}
	if !slices.Equal(got, []string{baton.OutcomeAwaitingVerdict, baton.OutcomeAdvanced}) {
		t.Errorf("tick outcomes %v", got)
	}
	if it := f.item(id); it.Phase() != baton.PhaseArchitecture {
		t.Errorf("issue after the tick: %s %v", it.Status, it.Labels)
	}
}

// TestVerdictOnAClaimTheTickRefused: once the orchestrator rejected a
// claim there is nothing to judge until the next claim.
func TestVerdictOnAClaimTheTickRefused(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	args := f.artifact(dir, id, baton.PhaseResearch, research)
	pc := f.agent("researcher-1", "researcher", id, dir).OK("complete_phase", args)["finding_id"].(string)
	write(t, dir, args["artifact_path"].(string), research+"\nEdited after the claim.\n")
	f.tick()
	e := f.agent("judge-1", "judge", id, dir).FailEnvelope("approve_phase",
		map[string]any{"phase": "research", "artifact_hash": args["artifact_hash"]}, baton.ErrConflict)
	if e.Type != "claim_refused" || !strings.Contains(e.Message, "the orchestrator did not accept claim "+pc+" (rejected: artifact changed since the claim") {
		t.Errorf("error %+v", e)
	}
}

// TestRejectPhaseCommentsTheFixInstructions: a rejection adds a comment
// with its reason and fix instructions, which the agent reads in
// get_issue.
func TestRejectPhaseCommentsTheFixInstructions(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseArchitecture)
	researcher := f.agent("researcher-1", "researcher", id, dir)
	args := f.artifact(dir, id, baton.PhaseArchitecture, design)
	pc := researcher.OK("complete_phase", args)["finding_id"].(string)
	out := f.agent("judge-1", "judge", id, dir).OK("reject_phase", map[string]any{"phase": "architecture",
		"artifact_hash": args["artifact_hash"], "reason": "Missing rollback strategy",
		"fix_instructions": "Add a rollout section covering how to revert if the migration fails"})
	if out["verdict"] != "rejected" || out["comment_id"] == nil || out["claim_id"] != pc {
		t.Fatalf("output %v", out)
	}
	want := "Phase architecture rejected (claim " + pc + "): Missing rollback strategy\n\nFix instructions:\n" +
		"Add a rollout section covering how to revert if the migration fails"
	var found bool
	for _, c := range researcher.OK("get_issue", nil)["comments"].([]any) {
		m := c.(map[string]any)
		if m["id"] == out["comment_id"] && m["content"] == want && m["created_by"] == "judge-1" {
			found = true
		}
	}
	if !found {
		t.Errorf("get_issue does not show the comment %q", want)
	}
}

// TestPhaseToolsGoToTheCatalogueProfiles: complete_phase is the phase
// agents' (researcher, planner, worker), the verdicts the judge's; another
// profile's call is refused before its arguments are looked at.
func TestPhaseToolsGoToTheCatalogueProfiles(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	for _, tc := range []struct {
		tool    string
		allowed []string
	}{
		{"complete_phase", []string{"researcher", "planner", "worker"}},
		{"approve_phase", []string{"judge"}},
		{"reject_phase", []string{"judge"}},
	} {
		for _, profile := range baton.BuiltinProfiles {
			res := f.agent("agent-"+profile, profile, id, dir).Call(tc.tool, map[string]any{})
			denied := res.Err != nil && res.Err.Code == baton.ErrPermissionDenied
			if want := !slices.Contains(tc.allowed, profile); denied != want {
				t.Errorf("%s as %s: denied %v, want %v (%s)", tc.tool, profile, denied, want, res.Text)
			}
		}
	}
}
