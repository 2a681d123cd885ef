package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/orchestrator"
)

// TestTickAdvancesThroughThePhasesOnApproval: a claim the tick checks
// sends the issue to review for a judge; the judge's approval, applied by
// the next tick, swaps the phase label, returns the issue to todo for the
// next phase's agent and marks both findings processed, each change with
// its event and its action. research -> architecture -> grooming -> ready.
func TestTickAdvancesThroughThePhasesOnApproval(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	judge := f.agent("judge-1", "judge", id, dir)
	for _, p := range []baton.Phase{baton.PhaseResearch, baton.PhaseArchitecture, baton.PhaseGrooming} {
		profile := "researcher"
		if p == baton.PhaseGrooming {
			profile = "planner"
		}
		a := f.agent(profile+"-1", profile, id, dir)
		pc, hash := f.claim(a, id, dir, p, nil)
		if !strings.HasPrefix(pc, "pc-") {
			t.Fatalf("claim id %s, want pc-N", pc)
		}
		if got, want := outcomes(f.once()), []string{pc + ":" + baton.OutcomeAwaitingVerdict}; !slices.Equal(got, want) {
			t.Fatalf("%s claim tick = %v, want %v", p, got, want)
		}
		if it := f.item(id); it.Status != baton.StatusReview || it.Phase() != p {
			t.Fatalf("after the %s claim: %s, want review in phase %s", p, describe(it), p)
		}
		pv := judge.OK("approve_phase", map[string]any{"phase": string(p), "artifact_hash": hash, "reason": "clear and complete"})["finding_id"].(string)
		r := f.once()
		if got, want := outcomes(r), []string{pv + ":" + baton.OutcomeAdvanced}; !slices.Equal(got, want) {
			t.Fatalf("%s approval tick = %v, want %v", p, got, want)
		}
		next := nextPhase[p]
		if tr := r.Transitions[0]; tr.NextPhase != string(next) || tr.Status != string(baton.StatusTodo) {
			t.Errorf("transition %+v, want next phase %s and status todo", tr, next)
		}
		it := f.item(id)
		if it.Status != baton.StatusTodo || it.Phase() != next || hasLabel(it, p.Label()) {
			t.Fatalf("after approving %s: %s, want todo with only phase:%s", p, describe(it), next)
		}
		cs := f.comments(id)
		if last := cs[len(cs)-1]; !strings.Contains(last, "Phase "+string(p)+" approved by judge-1") || !strings.Contains(last, "phase:"+string(next)) {
			t.Errorf("last comment %q does not announce the approval", last)
		}
	}
	if got := f.pending(); len(got) != 0 {
		t.Errorf("pending after the cycle: %v", got)
	}
	marks := f.marks(id)
	if len(marks) != 6 {
		t.Fatalf("%d marks, want 6 (3 claims, 3 verdicts)", len(marks))
	}
	for _, m := range marks {
		if m.ProcessedBy != orchestrator.Agent || m.ProcessedAt.IsZero() {
			t.Errorf("mark %+v lacks who and when", m)
		}
	}
	want := []string{"phase.awaiting_verdict " + id, "phase.advanced " + id}
	want = append(append(want, want...), want...)
	if got := f.events("phase.a"); !slices.Equal(got, want) {
		t.Errorf("tick events = %v, want %v", got, want)
	}
	if n := f.actions(); n != 6 {
		t.Errorf("%d orchestrator actions in the log, want 6 (one per finding)", n)
	}
}

// TestTickIsIdempotent: two ticks over one claim make one transition, one
// mark, one event and one action; the second tick finds nothing to do.
func TestTickIsIdempotent(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	pc, _ := f.claim(f.agent("researcher-1", "researcher", id, dir), id, dir, baton.PhaseResearch, nil)
	if got := outcomes(f.once()); !slices.Equal(got, []string{pc + ":" + baton.OutcomeAwaitingVerdict}) {
		t.Fatalf("first tick = %v", got)
	}
	if got := outcomes(f.once()); len(got) != 0 {
		t.Fatalf("second tick = %v, want nothing", got)
	}
	if n := len(f.marks(id)); n != 1 {
		t.Errorf("%d marks, want 1", n)
	}
	if got := f.events("phase.awaiting"); len(got) != 1 {
		t.Errorf("events %v, want one", got)
	}
	if n := f.actions(); n != 1 {
		t.Errorf("%d orchestrator actions, want 1", n)
	}
}

// TestTickDropsStaleClaims: a claim whose phase the issue has left by the
// time the tick reads it is marked processed as stale, and changes
// nothing else: no needs-revision label, no status change, no rejection
// counted.
func TestTickDropsStaleClaims(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	pc, _ := f.claim(f.agent("researcher-1", "researcher", id, dir), id, dir, baton.PhaseResearch, nil)
	f.setLabels(id, "phase:architecture", "backend")
	before := f.item(id)
	r := f.once()
	if got := outcomes(r); !slices.Equal(got, []string{pc + ":" + baton.OutcomeStale}) {
		t.Fatalf("tick = %v, want the claim stale", got)
	}
	if !strings.Contains(r.Transitions[0].Reason, "in phase architecture, not research") {
		t.Errorf("reason %q does not say why", r.Transitions[0].Reason)
	}
	after := f.item(id)
	if after.Status != before.Status || !slices.Equal(after.Labels, before.Labels) {
		t.Errorf("a stale claim changed the issue: %s -> %s", describe(before), describe(after))
	}
	if len(f.comments(id)) != 0 {
		t.Errorf("a stale claim left comments: %v", f.comments(id))
	}
}

// TestTickRejectsClaimsThatNoLongerHold: the tick validates on its own.
// An artifact edited or deleted after the claim, or a contract whose
// version moved on, rejects the claim: the issue goes back to todo with
// needs-revision and a comment saying why, and the rejection counts.
func TestTickRejectsClaimsThatNoLongerHold(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f *fixture, dir, id string)
		reason string
	}{
		{"ArtifactEdited", func(f *fixture, dir, id string) {
			write(t, dir, "docs/tickets/"+id+"/research.md", artifacts[baton.PhaseResearch]+"\nOne more line.\n")
		}, "artifact changed since the claim"},
		{"ArtifactDeleted", func(f *fixture, dir, id string) {
			if err := os.Remove(filepath.Join(dir, "docs", "tickets", id, "research.md")); err != nil {
				t.Fatal(err)
			}
		}, "artifact not found"},
		{"ContractVersionMovedOn", func(f *fixture, dir, id string) {
			// The project root's contract, the only one that counts.
			write(t, f.repo, "prompts/phases/research.md", "---\nversion: 2\ndispatch_profile: researcher\nartifact_path: research.md\n"+
				"required_sections: [Problem Statement, Recommendation]\nnext_phase: architecture\n---\n# Research v2\n")
		}, "contract_version 1 does not match the research contract's version 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			id, dir := f.issue(baton.PhaseResearch)
			pc, _ := f.claim(f.agent("researcher-1", "researcher", id, dir), id, dir, baton.PhaseResearch, nil)
			tc.change(f, dir, id)
			r := f.once()
			if got := outcomes(r); !slices.Equal(got, []string{pc + ":" + baton.OutcomeRejected}) {
				t.Fatalf("tick = %v, want the claim rejected", got)
			}
			if tr := r.Transitions[0]; !strings.Contains(tr.Reason, tc.reason) || tr.Rejections != 1 {
				t.Errorf("transition %+v, want reason containing %q and 1 rejection", tr, tc.reason)
			}
			it := f.item(id)
			if it.Status != baton.StatusTodo || !hasLabel(it, orchestrator.NeedsRevision) || it.Phase() != baton.PhaseResearch {
				t.Errorf("after the rejection: %s, want todo, needs-revision, still research", describe(it))
			}
			cs := f.comments(id)
			if len(cs) != 1 || !strings.HasPrefix(cs[0], "orchestrator: The orchestrator rejected claim "+pc) || !strings.Contains(cs[0], tc.reason) {
				t.Errorf("comments %q, want the orchestrator's rejection naming %s and why", cs, pc)
			}
		})
	}
}

// TestTickReturnsTheIssueForReworkOnAJudgesRejection: the judge's
// rejection (its comment carries the fix instructions) sends the issue
// back to todo with needs-revision; the reworked claim is judged again
// and its approval clears needs-revision.
func TestTickReturnsTheIssueForReworkOnAJudgesRejection(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseArchitecture)
	researcher := f.agent("researcher-1", "researcher", id, dir)
	judge := f.agent("judge-1", "judge", id, dir)
	_, hash := f.claim(researcher, id, dir, baton.PhaseArchitecture, nil)
	f.once()
	pv := judge.OK("reject_phase", map[string]any{"phase": "architecture", "artifact_hash": hash, "reason": "Missing rollback strategy",
		"fix_instructions": "Add a rollout section covering how to revert"})["finding_id"].(string)
	r := f.once()
	if got := outcomes(r); !slices.Equal(got, []string{pv + ":" + baton.OutcomeRejected}) {
		t.Fatalf("tick = %v, want the rejection applied", got)
	}
	it := f.item(id)
	if it.Status != baton.StatusTodo || !hasLabel(it, orchestrator.NeedsRevision) || it.Phase() != baton.PhaseArchitecture {
		t.Fatalf("after the rejection: %s", describe(it))
	}
	// The fix instructions reach the agent through get_issue.
	got := researcher.OK("get_issue", nil)
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), "Add a rollout section covering how to revert") {
		t.Errorf("get_issue does not show the fix instructions: %s", b)
	}
	// Rework: a new artifact, a new claim, an approval.
	rel, hash2 := f.writeArtifact(dir, id, baton.PhaseArchitecture, artifacts[baton.PhaseArchitecture]+"\n## Rollout\n\nRevert the flag.\n")
	researcher.OK("complete_phase", map[string]any{"completed_phase": "architecture", "contract_version": 1, "artifact_path": rel,
		"artifact_hash": hash2, "summary": "with a rollout", "recommended_next_phase": "grooming", "project_path": dir})
	f.once()
	judge.OK("approve_phase", map[string]any{"phase": "architecture", "artifact_hash": hash2})
	f.once()
	it = f.item(id)
	if it.Phase() != baton.PhaseGrooming || hasLabel(it, orchestrator.NeedsRevision) || it.Status != baton.StatusTodo {
		t.Errorf("after the approved rework: %s, want todo in grooming without needs-revision", describe(it))
	}
}

// TestTickBlocksAfterThreeRejections: the third rejection of one phase
// blocks the issue with "phase <p> rejected 3 times" and a message to the
// human; once the human sends it back, the count starts again.
func TestTickBlocksAfterThreeRejections(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	researcher := f.agent("researcher-1", "researcher", id, dir)
	judge := f.agent("judge-1", "judge", id, dir)
	reject := func(n int) *orchestrator.TickReport {
		body := artifacts[baton.PhaseResearch] + strings.Repeat("\nAnother attempt.", n)
		rel, hash := f.writeArtifact(dir, id, baton.PhaseResearch, body)
		researcher.OK("complete_phase", map[string]any{"completed_phase": "research", "contract_version": 1, "artifact_path": rel,
			"artifact_hash": hash, "summary": "attempt", "recommended_next_phase": "architecture", "project_path": dir})
		f.once()
		judge.OK("reject_phase", map[string]any{"phase": "research", "artifact_hash": hash, "reason": "not convincing"})
		return f.once()
	}
	for n := 1; n <= 2; n++ {
		r := reject(n)
		if tr := r.Transitions[0]; tr.Outcome != baton.OutcomeRejected || tr.Rejections != n {
			t.Fatalf("rejection %d: %+v", n, tr)
		}
	}
	r := reject(3)
	tr := r.Transitions[0]
	if tr.Outcome != baton.OutcomeEscalated || tr.Rejections != 3 || tr.MessageID == "" {
		t.Fatalf("third rejection: %+v, want escalated with a message", tr)
	}
	it := f.item(id)
	if it.Status != baton.StatusBlocked || it.BlockedReason != "phase research rejected 3 times" {
		t.Fatalf("after three rejections: %s", describe(it))
	}
	var msgs []*baton.Message
	if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) (err error) {
		msgs, err = tx.ReadMessages(f.ctx, baton.User, baton.MessageFilter{To: baton.User})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].AgentID != orchestrator.Agent || !strings.Contains(msgs[0].Body, id+" (slow claims) needs you: phase research rejected 3 times") {
		t.Fatalf("messages to the user: %+v", msgs)
	}
	// The human sends it back for another attempt: the count restarts.
	if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error {
		it, err := tx.Item(f.ctx, id)
		if err != nil {
			return err
		}
		it.Status, it.BlockedReason, it.UpdatedBy = baton.StatusTodo, "", "user"
		return tx.UpdateItem(f.ctx, it)
	}); err != nil {
		t.Fatal(err)
	}
	if tr := reject(4).Transitions[0]; tr.Outcome != baton.OutcomeRejected || tr.Rejections != 1 {
		t.Errorf("first rejection after the human's decision: %+v, want rejected (1)", tr)
	}
}

// TestTickIgnoresVerdictsThatJudgeNothingAwaiting: verdicts the tools
// would refuse, written straight to the store, are marked ignored and
// change nothing: a hash that is not the claim's, a claim a later one
// superseded, a second verdict on one claim.
func TestTickIgnoresVerdictsThatJudgeNothingAwaiting(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	researcher := f.agent("researcher-1", "researcher", id, dir)
	first, hash := f.claim(researcher, id, dir, baton.PhaseResearch, nil)
	f.once()
	verdict := func(claim, h, v string) string {
		b, _ := json.Marshal(baton.PhaseVerdict{Phase: "research", ArtifactHash: h, Verdict: v, Reason: "r", ClaimID: claim})
		fd := &baton.Finding{ItemID: id, Category: baton.CategoryPhaseVerdict, Summary: v, Details: string(b), CreatedBy: "judge-1"}
		if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error { return tx.AddFinding(f.ctx, fd) }); err != nil {
			t.Fatal(err)
		}
		return fd.ID
	}
	wrong := verdict(first, strings.Repeat("ab", 32), baton.VerdictApproved)
	r := f.once()
	if got := outcomes(r); !slices.Equal(got, []string{wrong + ":" + baton.OutcomeIgnored}) || !strings.Contains(r.Transitions[0].Reason, "is not the claim's") {
		t.Fatalf("wrong-hash verdict: %v %+v", got, r.Transitions)
	}
	if it := f.item(id); it.Status != baton.StatusReview || it.Phase() != baton.PhaseResearch {
		t.Fatalf("an ignored verdict moved the issue: %s", describe(it))
	}
	// Two verdicts on the same claim: the first decides.
	rej := verdict(first, hash, baton.VerdictRejected)
	late := verdict(first, hash, baton.VerdictApproved)
	if got, want := outcomes(f.once()), []string{rej + ":" + baton.OutcomeRejected, late + ":" + baton.OutcomeIgnored}; !slices.Equal(got, want) {
		t.Fatalf("two verdicts on one claim: %v, want %v", got, want)
	}
	// A verdict on a claim a later claim superseded.
	second, _ := f.claim(researcher, id, dir, baton.PhaseResearch, map[string]any{"summary": "again"})
	old := verdict(first, hash, baton.VerdictApproved)
	got := outcomes(f.once())
	if want := []string{second + ":" + baton.OutcomeAwaitingVerdict, old + ":" + baton.OutcomeIgnored}; !slices.Equal(got, want) {
		t.Fatalf("verdict on a superseded claim: %v, want %v", got, want)
	}
	if it := f.item(id); it.Phase() != baton.PhaseResearch {
		t.Errorf("the issue advanced on an ignored verdict: %s", describe(it))
	}
}

// TestTickPromotesTheApprovedArtifact: a claim with promote_to has its
// artifact copied there, in the project's root, once a judge approves.
func TestTickPromotesTheApprovedArtifact(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	_, hash := f.claim(f.agent("researcher-1", "researcher", id, dir), id, dir, baton.PhaseResearch,
		map[string]any{"promote_to": "docs/research/claims-pool.md"})
	f.once()
	target := filepath.Join(f.repo, "docs", "research", "claims-pool.md")
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("promoted before the approval: %v", err)
	}
	f.agent("judge-1", "judge", id, dir).OK("approve_phase", map[string]any{"phase": "research", "artifact_hash": hash})
	r := f.once()
	if tr := r.Transitions[0]; tr.PromotedTo != "docs/research/claims-pool.md" {
		t.Errorf("transition %+v does not name the promotion", tr)
	}
	b, err := os.ReadFile(target)
	if err != nil || string(b) != artifacts[baton.PhaseResearch] {
		t.Fatalf("promoted file: %q, %v", b, err)
	}
}

// failingStore is the real store whose write transactions all fail after
// running: a commit that does not happen.
type failingStore struct{ baton.Store }

func (s failingStore) Update(ctx context.Context, fn func(baton.Tx) error) error {
	err := s.Store.Update(ctx, func(tx baton.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errors.New("the commit failed")
	})
	return err
}

// TestTickUndoesAPromotionThatDoesNotCommit: when the approval's
// transaction fails, the promoted file goes again (and the folders made
// for it), and the verdict stays pending for the next tick, which then
// promotes for good.
func TestTickUndoesAPromotionThatDoesNotCommit(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	_, hash := f.claim(f.agent("researcher-1", "researcher", id, dir), id, dir, baton.PhaseResearch,
		map[string]any{"promote_to": "docs/research/new/claims-pool.md"})
	f.once()
	pv := f.agent("judge-1", "judge", id, dir).OK("approve_phase", map[string]any{"phase": "research", "artifact_hash": hash})["finding_id"].(string)
	broken := &orchestrator.Phases{Store: failingStore{f.k.Store}, Log: quiet}
	r, _ := broken.Once(f.ctx)
	if len(r.Errors) != 1 || len(r.Transitions) != 0 {
		t.Fatalf("failing tick: %+v, want one error and no transition", r)
	}
	if _, err := os.Stat(filepath.Join(f.repo, "docs", "research")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the promotion of a failed tick is still there: %v", err)
	}
	if got := f.pending(); !slices.Equal(got, []string{pv}) {
		t.Fatalf("pending after the failed tick = %v, want %v", got, []string{pv})
	}
	if got := outcomes(f.once()); !slices.Equal(got, []string{pv + ":" + baton.OutcomeAdvanced}) {
		t.Fatalf("next tick = %v", got)
	}
	if _, err := os.Stat(filepath.Join(f.repo, "docs", "research", "new", "claims-pool.md")); err != nil {
		t.Errorf("promotion after the good tick: %v", err)
	}
}

// TestRunTicksUntilItsContextEnds: Run, as baton serve starts it, picks
// up a claim on its own within a few ticks and stops with its context.
func TestRunTicksUntilItsContextEnds(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	f.claim(f.agent("researcher-1", "researcher", id, dir), id, dir, baton.PhaseResearch, nil)
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() {
		(&orchestrator.Phases{Store: f.k.Store, Log: quiet, Every: 10 * time.Millisecond}).Run(ctx)
		close(done)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(f.pending()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not stop when its context ended")
	}
	if it := f.item(id); it.Status != baton.StatusReview {
		t.Errorf("Run did not process the claim: %s", describe(it))
	}
}

// TestPoint6PromotionNeverOverwritesTheOperatorsFile: a promote_to that
// names an existing file of the project is refused at the approval (the
// file stays as it was, the issue goes back to rework with the reason);
// a file the same issue promoted on an earlier approval is replaced.
func TestPoint6PromotionNeverOverwritesTheOperatorsFile(t *testing.T) {
	f := newFixture(t)
	mine := "# The operator's own notes\n"
	write(t, f.repo, "docs/notes.md", mine)
	id, dir := f.issue(baton.PhaseResearch)
	researcher, judge := f.agent("researcher-1", "researcher", id, dir), f.agent("judge-1", "judge", id, dir)
	_, hash := f.claim(researcher, id, dir, baton.PhaseResearch, map[string]any{"promote_to": "docs/notes.md"})
	f.once()
	judge.OK("approve_phase", map[string]any{"phase": "research", "artifact_hash": hash})
	f.once()
	if b, _ := os.ReadFile(filepath.Join(f.repo, "docs", "notes.md")); string(b) != mine {
		t.Fatalf("the operator's file was overwritten: %q", b)
	}
	it := f.item(id)
	if it.Phase() != baton.PhaseResearch || !hasLabel(it, orchestrator.NeedsRevision) {
		t.Fatalf("after the refused promotion: %s", describe(it))
	}
	if cs := f.comments(id); len(cs) == 0 || !strings.Contains(cs[len(cs)-1], "promote_to docs/notes.md exists already") {
		t.Fatalf("comments %q do not say why", cs)
	}
	// Research promoted to a new path, then architecture to the same one.
	_, hash = f.claim(researcher, id, dir, baton.PhaseResearch, map[string]any{"promote_to": "docs/design/pool.md"})
	f.once()
	judge.OK("approve_phase", map[string]any{"phase": "research", "artifact_hash": hash})
	f.once()
	if it := f.item(id); it.Phase() != baton.PhaseArchitecture {
		t.Fatalf("research not approved: %s", describe(it))
	}
	_, hash = f.claim(f.agent("planner-1", "planner", id, dir), id, dir, baton.PhaseArchitecture, map[string]any{"promote_to": "docs/design/pool.md"})
	f.once()
	judge.OK("approve_phase", map[string]any{"phase": "architecture", "artifact_hash": hash})
	f.once()
	if b, _ := os.ReadFile(filepath.Join(f.repo, "docs", "design", "pool.md")); string(b) != artifacts[baton.PhaseArchitecture] {
		t.Fatalf("the issue's own earlier promotion was not replaced: %q", b)
	}
	if it := f.item(id); it.Phase() != baton.PhaseGrooming {
		t.Fatalf("architecture not approved: %s", describe(it))
	}
}
