package beads_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

func TestCloseBeadFromEveryOpenStatus(t *testing.T) {
	k := newKit(t)
	for _, from := range nonTerminal {
		t.Run(string(from), func(t *testing.T) {
			k := k.on(t)
			id := k.StoreItem(&baton.Item{Status: from, Progress: 30, BlockedReason: map[bool]string{true: "waiting"}[from == baton.StatusBlocked]})
			out, text := k.as("agent-bob").ok("close_bead", map[string]any{"id": id, "reason": "All tasks completed"})
			if text != "Closed bead "+id {
				t.Errorf("text = %q", text)
			}
			if got, want := keys(out), []string{"closed", "id", "reason", "status"}; !slices.Equal(got, want) {
				t.Errorf("fields = %v, want %v", got, want)
			}
			if out["id"] != id || out["status"] != "closed" || out["reason"] != "All tasks completed" ||
				!slices.Equal(strs(t, out["closed"]), []string{id}) {
				t.Errorf("output = %v", out)
			}
			it := k.item(id)
			if it.Status != baton.StatusDone || it.Progress != 100 || it.CloseReason != "All tasks completed" ||
				it.BlockedReason != "" || it.UpdatedBy != "agent-bob" {
				t.Errorf("stored = %+v", it)
			}
			got, _ := k.ok("task_get", map[string]any{"task_id": id})
			if got["status"] != "done" || got["progress"] != float64(100) {
				t.Errorf("through task_get: %v", got)
			}
			if s := k.show(id); s["status"] != "closed" || s["close_reason"] != "All tasks completed" {
				t.Errorf("through show_bead: %v", s)
			}
		})
	}
}

func TestCloseBeadWithoutReason(t *testing.T) {
	k := newKit(t)
	id := k.create(nil)
	out, _ := k.ok("close_bead", map[string]any{"id": id})
	if _, has := out["reason"]; has {
		t.Errorf("reason present: %v", out)
	}
	if it := k.item(id); it.CloseReason != "" || it.Status != baton.StatusDone {
		t.Errorf("stored = %+v", it)
	}
	if _, has := k.show(id)["close_reason"]; has {
		t.Errorf("show_bead has a close_reason")
	}
}

func TestCloseBeadTwice(t *testing.T) {
	k := newKit(t)
	for _, from := range []baton.Status{baton.StatusDone, baton.StatusCancelled} {
		id := k.StoreItem(&baton.Item{Status: from, CloseReason: "first"})
		e := k.fail("close_bead", map[string]any{"id": id, "reason": "second"}, baton.ErrInvalidTransition)
		if e.Details["from"] != string(from) || e.Details["to"] != "done" {
			t.Errorf("details = %v", e.Details)
		}
		if it := k.item(id); it.Status != from || it.CloseReason != "first" {
			t.Errorf("second close changed the bead: %+v", it)
		}
	}
	id := k.create(nil)
	k.ok("close_bead", map[string]any{"id": id})
	k.fail("close_bead", map[string]any{"id": id}, baton.ErrInvalidTransition)
}

func TestCloseBeadErrorsAndLimits(t *testing.T) {
	k := newKit(t)
	k.fail("close_bead", map[string]any{"id": "COL-404"}, baton.ErrNotFound)
	k.fail("close_bead", map[string]any{"id": "adj-042"}, baton.ErrNotFound)
	ids := []string{k.create(nil), k.create(nil)}
	runLimitCases(t, k, []limitCase{
		{"id missing", "close_bead", map[string]any{"reason": "x"}, "id", "required"},
		{"id empty", "close_bead", map[string]any{"id": ""}, "id", "minLength"},
		{"id 129 chars", "close_bead", map[string]any{"id": strings.Repeat("i", 129)}, "id", "maxLength"},
		{"reason 1001 chars", "close_bead", map[string]any{"id": ids[0], "reason": strings.Repeat("r", 1001)}, "reason", "maxLength"},
		{"reason 1000 chars", "close_bead", map[string]any{"id": ids[0], "reason": strings.Repeat("r", 1000)}, "", ""},
		{"reason empty", "close_bead", map[string]any{"id": ids[1], "reason": ""}, "", ""},
		{"unknown field", "close_bead", map[string]any{"id": ids[1], "status": "closed"}, "status", "additionalProperties"},
	})
}

func TestCloseLastChildClosesEpic(t *testing.T) {
	k := newKit(t)
	epic := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
	a := k.withStatus(baton.KindTask, baton.StatusInProgress, epic)
	b := k.withStatus(baton.KindBug, baton.StatusTodo, epic)

	// One child still open: the epic stays open.
	out, text := k.ok("close_bead", map[string]any{"id": a})
	if text != "Closed bead "+a || !slices.Equal(strs(t, out["closed"]), []string{a}) {
		t.Errorf("first child: %q %v", text, out["closed"])
	}
	if k.item(epic).Status != baton.StatusTodo {
		t.Fatalf("epic closed with a child open")
	}

	// The last one closes the epic too.
	out, text = k.as("agent-bob").ok("close_bead", map[string]any{"id": b, "reason": "fixed"})
	if want := "Closed bead " + b + "\nClosed epic " + epic + " (all children closed)"; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if got := strs(t, out["closed"]); !slices.Equal(got, []string{b, epic}) {
		t.Errorf("closed = %v", got)
	}
	e := k.item(epic)
	if e.Status != baton.StatusDone || e.Progress != 100 || e.CloseReason != "all children closed" || e.UpdatedBy != "agent-bob" {
		t.Errorf("epic = %+v", e)
	}
	if k.item(b).CloseReason != "fixed" {
		t.Errorf("child lost its reason")
	}
}

// Cancelled children are finished too: they do not hold an epic open.
func TestCancelledChildrenCountAsClosed(t *testing.T) {
	k := newKit(t)
	epic := k.withStatus(baton.KindEpic, baton.StatusInProgress, "")
	k.withStatus(baton.KindTask, baton.StatusCancelled, epic)
	k.withStatus(baton.KindTask, baton.StatusDone, epic)
	last := k.withStatus(baton.KindTask, baton.StatusReview, epic)
	out, _ := k.ok("close_bead", map[string]any{"id": last})
	if got := strs(t, out["closed"]); !slices.Equal(got, []string{last, epic}) {
		t.Errorf("closed = %v", got)
	}
}

func TestCloseCascadesThroughNestedEpics(t *testing.T) {
	k := newKit(t)
	top := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
	mid := k.withStatus(baton.KindEpic, baton.StatusBacklog, top)
	other := k.withStatus(baton.KindTask, baton.StatusTodo, top)
	leaf := k.withStatus(baton.KindTask, baton.StatusTodo, mid)

	// top still has an open child (other): only mid closes.
	out, text := k.ok("close_bead", map[string]any{"id": leaf})
	if got := strs(t, out["closed"]); !slices.Equal(got, []string{leaf, mid}) {
		t.Errorf("closed = %v", got)
	}
	if want := "Closed bead " + leaf + "\nClosed epic " + mid + " (all children closed)"; text != want {
		t.Errorf("text = %q", text)
	}
	if k.item(top).Status != baton.StatusTodo {
		t.Errorf("top closed while %s is open", other)
	}

	// Now the last open descendant: top closes.
	out, _ = k.ok("close_bead", map[string]any{"id": other})
	if got := strs(t, out["closed"]); !slices.Equal(got, []string{other, top}) {
		t.Errorf("closed = %v", got)
	}

	// Three levels at once, innermost first.
	a := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
	b := k.withStatus(baton.KindEpic, baton.StatusTodo, a)
	c := k.withStatus(baton.KindEpic, baton.StatusTodo, b)
	d := k.withStatus(baton.KindTask, baton.StatusTodo, c)
	out, text = k.ok("close_bead", map[string]any{"id": d})
	if got := strs(t, out["closed"]); !slices.Equal(got, []string{d, c, b, a}) {
		t.Errorf("closed = %v", got)
	}
	want := "Closed bead " + d + "\nClosed epic " + c + " (all children closed)\nClosed epic " + b +
		" (all children closed)\nClosed epic " + a + " (all children closed)"
	if text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
}

// Only epics close on their own; the cascade stops at the first parent
// that is not an open epic.
func TestCascadeStopsAtNonEpicOrClosedParent(t *testing.T) {
	k := newKit(t)
	for _, tc := range []struct {
		name   string
		kind   baton.Kind
		status baton.Status
	}{
		{"task parent", baton.KindTask, baton.StatusInProgress},
		{"feature parent", baton.KindFeature, baton.StatusTodo},
		{"cancelled epic", baton.KindEpic, baton.StatusCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := k.on(t)
			grand := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
			parent := k.withStatus(tc.kind, tc.status, grand)
			child := k.withStatus(baton.KindTask, baton.StatusTodo, parent)
			out, text := k.ok("close_bead", map[string]any{"id": child})
			if got := strs(t, out["closed"]); !slices.Equal(got, []string{child}) || text != "Closed bead "+child {
				t.Errorf("closed = %v, text %q", got, text)
			}
			if k.item(parent).Status != tc.status || k.item(grand).Status != baton.StatusTodo {
				t.Errorf("parent or grandparent changed")
			}
		})
	}
}

func TestUpdateToClosedCascades(t *testing.T) {
	k := newKit(t)
	epic := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
	child := k.withStatus(baton.KindTask, baton.StatusInProgress, epic)
	out, text := k.ok("update_bead", map[string]any{"id": child, "status": "closed"})
	if want := "Updated bead " + child + "\nClosed epic " + epic + " (all children closed)"; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if got := strs(t, out["closed"]); !slices.Equal(got, []string{child, epic}) {
		t.Errorf("closed = %v", got)
	}
	if k.item(epic).Status != baton.StatusDone {
		t.Errorf("epic not closed")
	}
}

// Closing an epic by hand is allowed with children open; they stay as they
// are and a warning names them.
func TestCloseEpicWithOpenChildren(t *testing.T) {
	k := newKit(t)
	epic := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
	open := k.withStatus(baton.KindTask, baton.StatusTodo, epic)
	k.withStatus(baton.KindTask, baton.StatusDone, epic)
	out, text := k.ok("close_bead", map[string]any{"id": epic})
	if text != "Closed bead "+epic {
		t.Errorf("text = %q", text)
	}
	w := strs(t, out["warnings"])
	if len(w) != 1 || !strings.Contains(w[0], open) {
		t.Errorf("warnings = %v", w)
	}
	if k.item(open).Status != baton.StatusTodo {
		t.Errorf("child changed")
	}
	// An epic whose children are all closed closes without a warning.
	epic2 := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
	k.withStatus(baton.KindTask, baton.StatusDone, epic2)
	if out, _ := k.ok("close_bead", map[string]any{"id": epic2}); out["warnings"] != nil {
		t.Errorf("warnings = %v", out["warnings"])
	}
}

// An epic claimed by another agent is not closed behind its holder's back;
// the child's close still succeeds.
func TestCascadeSkipsClaimedEpic(t *testing.T) {
	k := newKit(t)
	epic := k.withStatus(baton.KindEpic, baton.StatusTodo, "")
	child := k.withStatus(baton.KindTask, baton.StatusTodo, epic)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		_, err := tx.Claim(ctx, epic, "agent-bob", time.Hour, time.Now())
		return err
	}); err != nil {
		t.Fatalf("claim: %v", err)
	}
	out, text := k.ok("close_bead", map[string]any{"id": child})
	if text != "Closed bead "+child || !slices.Equal(strs(t, out["closed"]), []string{child}) {
		t.Errorf("text %q closed %v", text, out["closed"])
	}
	if w := strs(t, out["warnings"]); len(w) != 1 || !strings.Contains(w[0], epic) || !strings.Contains(w[0], "agent-bob") {
		t.Errorf("warnings = %v", w)
	}
	if k.item(child).Status != baton.StatusDone || k.item(epic).Status.Terminal() {
		t.Errorf("child %s, epic %s", k.item(child).Status, k.item(epic).Status)
	}
}
