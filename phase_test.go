package baton

import (
	"slices"
	"testing"
)

func TestPhaseOrderAndNext(t *testing.T) {
	want := []Phase{"research", "architecture", "grooming", "ready"}
	if !slices.Equal(Phases, want) {
		t.Fatalf("Phases = %v", Phases)
	}
	for i, p := range want {
		next, ok := p.Next()
		if i == len(want)-1 {
			if ok {
				t.Errorf("ready has a next phase %s", next)
			}
			continue
		}
		if !ok || next != want[i+1] {
			t.Errorf("%s.Next() = %s, %v", p, next, ok)
		}
	}
	if Phase("deploy").Valid() || !PhaseGrooming.Valid() {
		t.Error("Valid is wrong")
	}
}

// An item without a phase label is ready (migration mode); any other phase
// label, a custom pipeline's included, keeps it out of ready work.
func TestPhaseOfLabels(t *testing.T) {
	for _, tc := range []struct {
		labels   []string
		phase    Phase
		preReady bool
	}{
		{nil, PhaseReady, false},
		{[]string{"backend"}, PhaseReady, false},
		{[]string{"backend", "phase:research"}, PhaseResearch, true},
		{[]string{"phase:architecture"}, PhaseArchitecture, true},
		{[]string{"phase:grooming"}, PhaseGrooming, true},
		{[]string{"phase:ready", "ui"}, PhaseReady, false},
		{[]string{"phase:custom"}, "custom", true},
	} {
		if got := PhaseOf(tc.labels); got != tc.phase || got.PreReady() != tc.preReady {
			t.Errorf("PhaseOf(%v) = %s (pre-ready %v), want %s (%v)", tc.labels, got, got.PreReady(), tc.phase, tc.preReady)
		}
	}
}

func TestWithPhaseReplacesInPlace(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		p    Phase
		want []string
	}{
		{[]string{"a", "phase:research", "b"}, PhaseArchitecture, []string{"a", "phase:architecture", "b"}},
		{[]string{"a"}, PhaseReady, []string{"a", "phase:ready"}},
		{nil, PhaseResearch, []string{"phase:research"}},
		{[]string{"phase:research", "x", "phase:custom"}, PhaseGrooming, []string{"phase:grooming", "x"}},
	} {
		if got := WithPhase(tc.in, tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("WithPhase(%v, %s) = %v, want %v", tc.in, tc.p, got, tc.want)
		}
	}
}

func TestCheckPhaseLabelsAllowsOne(t *testing.T) {
	for _, ok := range [][]string{nil, {"x"}, {"phase:research"}, {"phase:custom", "x"}, {"phase:ready", "phase:ready"}} {
		if err := CheckPhaseLabels(ok); err != nil {
			t.Errorf("CheckPhaseLabels(%v): %v", ok, err)
		}
	}
	err := CheckPhaseLabels([]string{"phase:research", "x", "phase:ready"})
	e := AsError(err)
	if e == nil || e.Code != ErrInvalidInput || e.Details["constraint"] != "one_phase_label" || e.Hint == "" {
		t.Fatalf("two phases: %v", err)
	}
}

// Replacing labels keeps the phase unless they name another one, which
// only the orchestrator may set.
func TestKeepPhase(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new []string
		want     []string
		fails    bool
	}{
		{"kept when left out", []string{"phase:grooming", "a"}, []string{"b"}, []string{"b", "phase:grooming"}, false},
		{"same phase named", []string{"phase:grooming"}, []string{"phase:grooming", "b"}, []string{"phase:grooming", "b"}, false},
		{"no phase before", []string{"a"}, []string{"phase:research"}, []string{"phase:research"}, false},
		{"no phase at all", nil, []string{"a"}, []string{"a"}, false},
		{"another phase refused", []string{"phase:research"}, []string{"phase:ready"}, nil, true},
		{"two phases refused", nil, []string{"phase:research", "phase:ready"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KeepPhase("SYM-1", tc.old, tc.new)
			if tc.fails {
				if e := AsError(err); e == nil || e.Code != ErrInvalidInput {
					t.Fatalf("want ERR_INVALID_INPUT, got %v, %v", got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("KeepPhase = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestReadinessExcludesPreReadyPhases(t *testing.T) {
	for _, tc := range []struct {
		labels []string
		ready  bool
	}{
		{nil, true}, {[]string{"phase:ready"}, true}, {[]string{"phase:research"}, false},
		{[]string{"phase:architecture"}, false}, {[]string{"phase:grooming"}, false}, {[]string{"phase:custom"}, false},
	} {
		r := Readiness{Item: &Item{Status: StatusTodo, Labels: tc.labels}}
		if r.Ready() != tc.ready {
			t.Errorf("labels %v: Ready() = %v", tc.labels, r.Ready())
		}
	}
}
