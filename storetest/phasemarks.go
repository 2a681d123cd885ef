package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// The phase-mark group (issue 14): phase_completion and phase_verdict
// findings get Symphony's pc- and pv- ids, stay pending until the
// orchestrator marks them, and are marked exactly once. The marks follow
// an item that moves.
var phaseMarkCases = []testCase{
	{"FindingIDs", testPhaseFindingIDs},
	{"PendingUntilMarked", testPhasePending},
	{"MarkedOnce", testPhaseMarkedOnce},
	{"MarksFollowAMove", testPhaseMarksFollowMove},
}

// phaseFinding adds a finding of category to id and returns its id.
func (e *env) phaseFinding(id, category string, min int) string {
	e.t.Helper()
	f := &baton.Finding{ItemID: id, Category: category, Summary: category + " " + id, Details: `{}`, CreatedBy: "agent-alice", CreatedAt: at(min)}
	e.update(func(tx baton.Tx) error { return tx.AddFinding(e.ctx, f) })
	return f.ID
}

func (e *env) pending(project string) []string {
	e.t.Helper()
	var out []string
	e.view(func(tx baton.Tx) error {
		fs, err := tx.PendingPhaseFindings(e.ctx, project)
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return err
	})
	return out
}

func (e *env) mark(m *baton.PhaseMark) error {
	return e.tryUpdate(func(tx baton.Tx) error { return tx.MarkPhaseFinding(e.ctx, m) })
}

func testPhaseFindingIDs(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	it := e.create(newItem("sym", "phased"))
	got := []string{
		e.phaseFinding(it.ID, "bug", 1),
		e.phaseFinding(it.ID, baton.CategoryPhaseCompletion, 2),
		e.phaseFinding(it.ID, baton.CategoryPhaseVerdict, 3),
	}
	for i, prefix := range []string{"F-", "pc-", "pv-"} {
		if !strings.HasPrefix(got[i], prefix) {
			t.Errorf("finding %d id = %s, want prefix %s", i, got[i], prefix)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(got)))) != 3 {
		t.Errorf("ids %v are not distinct", got)
	}
}

func testPhasePending(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	e.project("api", "API")
	a := e.create(newItem("sym", "a"))
	b := e.create(newItem("api", "b"))
	e.phaseFinding(a.ID, "gap", 1) // not a phase finding: never pending
	pc := e.phaseFinding(a.ID, baton.CategoryPhaseCompletion, 2)
	other := e.phaseFinding(b.ID, baton.CategoryPhaseCompletion, 3)
	pv := e.phaseFinding(a.ID, baton.CategoryPhaseVerdict, 4)
	if got, want := e.pending("sym"), []string{pc, pv}; !slices.Equal(got, want) {
		t.Errorf("pending(sym) = %v, want %v", got, want)
	}
	if got, want := e.pending(""), []string{pc, other, pv}; !slices.Equal(got, want) {
		t.Errorf("pending(all) = %v, want %v (oldest first)", got, want)
	}
	var before *baton.PhaseMark
	e.view(func(tx baton.Tx) (err error) { before, err = tx.PhaseMark(e.ctx, pc); return err })
	if before != nil {
		t.Errorf("PhaseMark of an unprocessed finding = %+v, want nil", before)
	}
	m := &baton.PhaseMark{FindingID: pc, Phase: "research", Outcome: baton.OutcomeAwaitingVerdict, Reason: "checked", ProcessedBy: "orchestrator", ProcessedAt: at(5)}
	if err := e.mark(m); err != nil {
		t.Fatal(err)
	}
	if got, want := e.pending("sym"), []string{pv}; !slices.Equal(got, want) {
		t.Errorf("pending(sym) after marking %s = %v, want %v", pc, got, want)
	}
	var after *baton.PhaseMark
	e.view(func(tx baton.Tx) (err error) { after, err = tx.PhaseMark(e.ctx, pc); return err })
	want := baton.PhaseMark{FindingID: pc, ItemID: a.ID, Category: baton.CategoryPhaseCompletion, Phase: "research",
		Outcome: baton.OutcomeAwaitingVerdict, Reason: "checked", ProcessedBy: "orchestrator", ProcessedAt: at(5)}
	if after == nil || *after != want {
		t.Errorf("PhaseMark = %+v, want %+v", after, want)
	}
}

func testPhaseMarkedOnce(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	it := e.create(newItem("sym", "a"))
	pc := e.phaseFinding(it.ID, baton.CategoryPhaseCompletion, 1)
	plain := e.phaseFinding(it.ID, "bug", 2)
	if err := e.mark(&baton.PhaseMark{FindingID: pc, Phase: "research", Outcome: baton.OutcomeStale, ProcessedBy: "tick-1"}); err != nil {
		t.Fatal(err)
	}
	be := wantCode(t, e.mark(&baton.PhaseMark{FindingID: pc, Phase: "research", Outcome: baton.OutcomeRejected, ProcessedBy: "tick-2"}), baton.ErrConflict)
	if be.Type != "already_processed" {
		t.Errorf("second mark: type %q, want already_processed", be.Type)
	}
	wantCode(t, e.mark(&baton.PhaseMark{FindingID: "pc-999", Phase: "research", Outcome: baton.OutcomeStale, ProcessedBy: "x"}), baton.ErrNotFound)
	wantCode(t, e.mark(&baton.PhaseMark{FindingID: plain, Phase: "research", Outcome: baton.OutcomeStale, ProcessedBy: "x"}), baton.ErrInvalidInput)
	var marks []*baton.PhaseMark
	e.view(func(tx baton.Tx) (err error) { marks, err = tx.PhaseMarks(e.ctx, it.ID); return err })
	if len(marks) != 1 || marks[0].Outcome != baton.OutcomeStale || marks[0].ProcessedBy != "tick-1" {
		t.Errorf("marks after a refused second mark = %+v, want the first one alone", marks)
	}
	// The refused marks left the transaction usable and changed nothing.
	if got := e.pending("sym"); len(got) != 0 {
		t.Errorf("pending = %v, want none", got)
	}
}

func testPhaseMarksFollowMove(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	e.project("api", "API")
	it := e.create(newItem("sym", "a"))
	pc := e.phaseFinding(it.ID, baton.CategoryPhaseCompletion, 1)
	pv := e.phaseFinding(it.ID, baton.CategoryPhaseVerdict, 2)
	if err := e.mark(&baton.PhaseMark{FindingID: pc, Phase: "research", Outcome: baton.OutcomeAwaitingVerdict, ProcessedBy: "t", ProcessedAt: at(3)}); err != nil {
		t.Fatal(err)
	}
	var moved *baton.Item
	e.update(func(tx baton.Tx) (err error) { moved, err = tx.MoveItem(e.ctx, it.ID, "api"); return err })
	if got, want := e.pending("api"), []string{pv}; !slices.Equal(got, want) {
		t.Errorf("pending(api) after the move = %v, want %v", got, want)
	}
	if got := e.pending("sym"); len(got) != 0 {
		t.Errorf("pending(sym) after the move = %v, want none", got)
	}
	for _, id := range []string{moved.ID, it.ID} {
		var marks []*baton.PhaseMark
		e.view(func(tx baton.Tx) (err error) { marks, err = tx.PhaseMarks(e.ctx, id); return err })
		if len(marks) != 1 || marks[0].FindingID != pc || marks[0].ItemID != moved.ID {
			t.Errorf("PhaseMarks(%s) = %+v, want the mark of %s on %s", id, marks, pc, moved.ID)
		}
	}
	var none []*baton.PhaseMark
	e.view(func(tx baton.Tx) (err error) { none, err = tx.PhaseMarks(e.ctx, "SYM-404"); return err })
	if none == nil || len(none) != 0 {
		t.Errorf("PhaseMarks of an unknown item = %v, want an empty list", none)
	}
}
