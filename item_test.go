package baton_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/baton-dev/baton"
)

// TestTransitions checks every (from, to) pair against the table of
// DESIGN.md: Colibri's transitions plus in_progress -> todo.
func TestTransitions(t *testing.T) {
	allowed := map[baton.Status][]baton.Status{
		baton.StatusBacklog:    {baton.StatusTodo, baton.StatusCancelled},
		baton.StatusTodo:       {baton.StatusInProgress, baton.StatusBlocked, baton.StatusCancelled},
		baton.StatusInProgress: {baton.StatusReview, baton.StatusBlocked, baton.StatusCancelled, baton.StatusTodo},
		baton.StatusBlocked:    {baton.StatusTodo, baton.StatusInProgress, baton.StatusCancelled},
		baton.StatusReview:     {baton.StatusDone, baton.StatusBacklog, baton.StatusBlocked, baton.StatusCancelled},
	}
	for _, from := range baton.Statuses {
		for _, to := range baton.Statuses {
			want := slices.Contains(allowed[from], to)
			t.Run(fmt.Sprintf("%s->%s", from, to), func(t *testing.T) {
				if got := from.CanTransition(to); got != want {
					t.Fatalf("CanTransition = %v, want %v", got, want)
				}
				err := baton.Transition("T-1", from, to)
				if want {
					if err != nil {
						t.Fatalf("Transition: %v", err)
					}
					return
				}
				e := baton.AsError(err)
				if e == nil || e.Code != baton.ErrInvalidTransition {
					t.Fatalf("Transition error = %v, want ERR_INVALID_TRANSITION", err)
				}
				if e.Details["from"] != string(from) || e.Details["to"] != string(to) {
					t.Fatalf("details = %v, want from %s to %s", e.Details, from, to)
				}
				if e.Hint == "" {
					t.Fatal("no next_action_hint")
				}
			})
		}
	}
}

func TestTerminal(t *testing.T) {
	for _, s := range baton.Statuses {
		want := s == baton.StatusDone || s == baton.StatusCancelled
		if s.Terminal() != want || (len(s.Next()) == 0) != want {
			t.Errorf("%s: Terminal() = %v, Next() = %v", s, s.Terminal(), s.Next())
		}
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
	}
	if baton.Status("open").Valid() {
		t.Error("unknown status reported valid")
	}
}

func TestPriorityScale(t *testing.T) {
	for p := baton.Priority(-1); p <= 5; p++ {
		if want := p >= 0 && p <= 4; p.Valid() != want {
			t.Errorf("Priority(%d).Valid() = %v", p, p.Valid())
		}
	}
}

func TestErrorEnvelope(t *testing.T) {
	e := baton.Errorf(baton.ErrInvalidTransition, "cannot move %s", "T-1").WithDetails("from", "done").WithHint("do %s", "x")
	if e.Type != "invalid_transition" || e.Message != "cannot move T-1" || e.Hint != "do x" || e.Details["from"] != "done" {
		t.Fatalf("unexpected error %+v", e)
	}
	if got := baton.AsError(fmt.Errorf("boom")); got.Code != baton.ErrInternal {
		t.Fatalf("plain error became %s", got.Code)
	}
	if baton.AsError(nil) != nil || baton.ErrorCode(nil) != "" {
		t.Fatal("nil error not kept nil")
	}
	wrapped := fmt.Errorf("wrapped: %w", e)
	if baton.ErrorCode(wrapped) != baton.ErrInvalidTransition {
		t.Fatal("wrapped error lost its code")
	}
}
