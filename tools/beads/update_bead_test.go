package beads_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestUpdateBeadTransitions drives update_bead's status from every
// canonical status to every bead status. errTo is the canonical target
// named in ERR_INVALID_TRANSITION when the state machine forbids the move.
func TestUpdateBeadTransitions(t *testing.T) {
	k := newKit(t)
	for _, tc := range []struct {
		from     baton.Status
		to       string
		want     baton.Status // canonical status after the call
		wantBead string
		errTo    baton.Status
	}{
		{from: baton.StatusBacklog, to: "open", want: baton.StatusBacklog, wantBead: "open"},
		{from: baton.StatusBacklog, to: "in_progress", want: baton.StatusInProgress, wantBead: "in_progress"},
		{from: baton.StatusBacklog, to: "closed", want: baton.StatusDone, wantBead: "closed"},
		{from: baton.StatusTodo, to: "open", want: baton.StatusTodo, wantBead: "open"},
		{from: baton.StatusTodo, to: "in_progress", want: baton.StatusInProgress, wantBead: "in_progress"},
		{from: baton.StatusTodo, to: "closed", want: baton.StatusDone, wantBead: "closed"},
		{from: baton.StatusInProgress, to: "open", want: baton.StatusTodo, wantBead: "open"},
		{from: baton.StatusInProgress, to: "in_progress", want: baton.StatusInProgress, wantBead: "in_progress"},
		{from: baton.StatusInProgress, to: "closed", want: baton.StatusDone, wantBead: "closed"},
		{from: baton.StatusBlocked, to: "open", want: baton.StatusTodo, wantBead: "open"},
		{from: baton.StatusBlocked, to: "in_progress", want: baton.StatusInProgress, wantBead: "in_progress"},
		{from: baton.StatusBlocked, to: "closed", want: baton.StatusDone, wantBead: "closed"},
		{from: baton.StatusReview, to: "open", errTo: baton.StatusTodo},
		{from: baton.StatusReview, to: "in_progress", want: baton.StatusReview, wantBead: "in_progress"},
		{from: baton.StatusReview, to: "closed", want: baton.StatusDone, wantBead: "closed"},
		{from: baton.StatusDone, to: "open", errTo: baton.StatusTodo},
		{from: baton.StatusDone, to: "in_progress", errTo: baton.StatusInProgress},
		{from: baton.StatusDone, to: "closed", errTo: baton.StatusDone},
		{from: baton.StatusCancelled, to: "open", errTo: baton.StatusTodo},
		{from: baton.StatusCancelled, to: "in_progress", errTo: baton.StatusInProgress},
		{from: baton.StatusCancelled, to: "closed", errTo: baton.StatusDone},
	} {
		t.Run(string(tc.from)+"->"+tc.to, func(t *testing.T) {
			k := k.on(t)
			id := k.StoreItem(&baton.Item{Status: tc.from, Progress: 40})
			args := map[string]any{"id": id, "status": tc.to}
			if tc.errTo != "" {
				e := k.fail("update_bead", args, baton.ErrInvalidTransition)
				if e.Details["from"] != string(tc.from) || e.Details["to"] != string(tc.errTo) {
					t.Errorf("details from/to = %v/%v, want %s/%s", e.Details["from"], e.Details["to"], tc.from, tc.errTo)
				}
				if it := k.item(id); it.Status != tc.from || it.Progress != 40 {
					t.Errorf("failed update changed the bead: %+v", it)
				}
				return
			}
			out, text := k.ok("update_bead", args)
			if text != "Updated bead "+id {
				t.Errorf("text = %q", text)
			}
			if out["status"] != tc.wantBead {
				t.Errorf("output status = %v, want %s", out["status"], tc.wantBead)
			}
			it := k.item(id)
			if it.Status != tc.want {
				t.Errorf("canonical status = %s, want %s", it.Status, tc.want)
			}
			if wantProgress := map[bool]int{true: 100, false: 40}[tc.want == baton.StatusDone]; it.Progress != wantProgress {
				t.Errorf("progress = %d, want %d", it.Progress, wantProgress)
			}
			if tc.to == "closed" {
				if got := strs(t, out["closed"]); !slices.Equal(got, []string{id}) {
					t.Errorf("closed = %v, want [%s]", got, id)
				}
			} else if _, has := out["closed"]; has {
				t.Errorf("closed present without closing: %v", out["closed"])
			}
		})
	}
}

func TestUpdateBeadLeavingBlockedClearsReason(t *testing.T) {
	k := newKit(t)
	for _, to := range []string{"open", "in_progress", "closed"} {
		id := k.StoreItem(&baton.Item{Status: baton.StatusBlocked, BlockedReason: "waiting for credentials"})
		k.ok("update_bead", map[string]any{"id": id, "status": to})
		if it := k.item(id); it.BlockedReason != "" {
			t.Errorf("to %s: blocked_reason kept: %q", to, it.BlockedReason)
		}
	}
}

// An item in backlog can only start through todo; the result is the same
// as the two task_update calls.
func TestUpdateBeadStartFromBacklogReadsAsTask(t *testing.T) {
	k := newKit(t)
	id, _ := k.ok("task_create", map[string]any{"title": "t", "project": testkit.Project})
	tid := id["task_id"].(string)
	k.ok("update_bead", map[string]any{"id": tid, "status": "in_progress", "assignee": "my-agent"})
	got, _ := k.ok("task_get", map[string]any{"task_id": tid})
	if got["status"] != "in_progress" || got["assignee"] != "my-agent" || got["updated_by"] != "agent-alice" {
		t.Errorf("through task_get: %v", got)
	}
}

func TestUpdateBeadFields(t *testing.T) {
	k := newKit(t)
	id := k.create(map[string]any{"title": "old", "description": "old body", "priority": 3, "type": "bug"})
	k.ok("update_bead", map[string]any{"id": id, "assignee": "agent-carol"})

	for _, tc := range []struct {
		name  string
		args  map[string]any
		check func(*baton.Item) bool
	}{
		{"title", map[string]any{"title": "new"}, func(it *baton.Item) bool { return it.Title == "new" }},
		{"description", map[string]any{"description": "new body"}, func(it *baton.Item) bool { return it.Description == "new body" }},
		{"description emptied", map[string]any{"description": ""}, func(it *baton.Item) bool { return it.Description == "" }},
		{"priority 0", map[string]any{"priority": 0}, func(it *baton.Item) bool { return it.Priority == 0 }},
		{"priority 4", map[string]any{"priority": 4}, func(it *baton.Item) bool { return it.Priority == 4 }},
		{"assignee", map[string]any{"assignee": "my-agent"}, func(it *baton.Item) bool { return it.Assignee == "my-agent" }},
		{"assignee cleared by empty", map[string]any{"assignee": ""}, func(it *baton.Item) bool { return it.Assignee == "" }},
		{"assignee set again", map[string]any{"assignee": "my-agent"}, func(it *baton.Item) bool { return it.Assignee == "my-agent" }},
		{"assignee cleared by unassigned", map[string]any{"assignee": "unassigned"}, func(it *baton.Item) bool { return it.Assignee == "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := k.on(t)
			before := k.item(id)
			out, text := k.as("agent-bob").ok("update_bead", with(map[string]any{"id": id}, tc.args))
			if text != "Updated bead "+id {
				t.Errorf("text = %q", text)
			}
			after := k.item(id)
			if !tc.check(after) {
				t.Errorf("not applied: %+v", after)
			}
			if after.UpdatedBy != "agent-bob" {
				t.Errorf("updated_by = %s", after.UpdatedBy)
			}
			// Only the given field changes.
			if after.Status != before.Status || after.Kind != before.Kind || after.Progress != before.Progress ||
				after.ParentID != before.ParentID || after.CreatedBy != before.CreatedBy {
				t.Errorf("other fields changed: before %+v after %+v", before, after)
			}
			unchanged := map[string]bool{
				"title":       before.Title == after.Title,
				"description": before.Description == after.Description,
				"priority":    before.Priority == after.Priority,
				"assignee":    before.Assignee == after.Assignee,
			}
			for f, same := range unchanged {
				if _, given := tc.args[f]; !given && !same {
					t.Errorf("%s changed without being given: before %+v after %+v", f, before, after)
				}
			}
			// Structured output is the bead after the update.
			if out["id"] != id || out["title"] != after.Title || out["description"] != after.Description ||
				out["priority"] != float64(after.Priority) || out["type"] != "bug" || out["status"] != "open" {
				t.Errorf("output = %v", out)
			}
			if after.Assignee == "" {
				if _, has := out["assignee"]; has {
					t.Errorf("assignee present while unassigned: %v", out["assignee"])
				}
			} else if out["assignee"] != after.Assignee {
				t.Errorf("assignee = %v, want %s", out["assignee"], after.Assignee)
			}
		})
	}
}

func TestUpdateBeadFieldsAndStatusTogether(t *testing.T) {
	k := newKit(t)
	id := k.create(nil)
	out, _ := k.ok("update_bead", map[string]any{"id": id, "status": "in_progress", "assignee": "my-agent", "priority": 1})
	if out["status"] != "in_progress" || out["assignee"] != "my-agent" || out["priority"] != float64(1) {
		t.Errorf("output = %v", out)
	}
	// Closing with field changes keeps them.
	k.ok("update_bead", map[string]any{"id": id, "status": "closed", "title": "finished"})
	if it := k.item(id); it.Status != baton.StatusDone || it.Title != "finished" || it.Progress != 100 {
		t.Errorf("closed with title: %+v", it)
	}
}

// A closed bead keeps its status, but its other fields may be corrected,
// as for terminal tasks (docs/decisions.md).
func TestUpdateClosedBeadFields(t *testing.T) {
	k := newKit(t)
	id := k.create(nil)
	k.ok("close_bead", map[string]any{"id": id})
	out, _ := k.ok("update_bead", map[string]any{"id": id, "description": "post-mortem"})
	if out["status"] != "closed" || k.item(id).Description != "post-mortem" {
		t.Errorf("output = %v", out)
	}
}

func TestUpdateBeadErrors(t *testing.T) {
	k := newKit(t)
	id := k.create(nil)
	e := k.fail("update_bead", map[string]any{"id": id}, baton.ErrInvalidInput)
	if e.Details["constraint"] != "at_least_one_change" {
		t.Errorf("details = %v", e.Details)
	}
	k.fail("update_bead", map[string]any{"id": "COL-999", "title": "x"}, baton.ErrNotFound)
	k.fail("update_bead", map[string]any{"id": "adj-404", "status": "closed"}, baton.ErrNotFound)
}

func TestUpdateBeadLimits(t *testing.T) {
	k := newKit(t)
	id := k.create(nil)
	u := func(extra map[string]any) map[string]any { return with(map[string]any{"id": id}, extra) }
	runLimitCases(t, k, []limitCase{
		{"id missing", "update_bead", map[string]any{"title": "x"}, "id", "required"},
		{"id empty", "update_bead", map[string]any{"id": "", "title": "x"}, "id", "minLength"},
		{"id 129 chars", "update_bead", map[string]any{"id": strings.Repeat("i", 129), "title": "x"}, "id", "maxLength"},
		{"status open", "update_bead", u(map[string]any{"status": "open"}), "", ""},
		{"status blocked", "update_bead", u(map[string]any{"status": "blocked"}), "status", "enum"},
		{"status todo", "update_bead", u(map[string]any{"status": "todo"}), "status", "enum"},
		{"status done", "update_bead", u(map[string]any{"status": "done"}), "status", "enum"},
		{"status all", "update_bead", u(map[string]any{"status": "all"}), "status", "enum"},
		{"title 0 chars", "update_bead", u(map[string]any{"title": ""}), "title", "minLength"},
		{"title 256 chars", "update_bead", u(map[string]any{"title": strings.Repeat("a", 256)}), "", ""},
		{"title 257 chars", "update_bead", u(map[string]any{"title": strings.Repeat("a", 257)}), "title", "maxLength"},
		{"title blank", "update_bead", u(map[string]any{"title": "   "}), "title", "pattern"},
		{"description 8000 chars", "update_bead", u(map[string]any{"description": strings.Repeat("d", 8000)}), "", ""},
		{"description 8001 chars", "update_bead", u(map[string]any{"description": strings.Repeat("d", 8001)}), "description", "maxLength"},
		{"assignee 128 chars", "update_bead", u(map[string]any{"assignee": strings.Repeat("a", 128)}), "", ""},
		{"assignee 129 chars", "update_bead", u(map[string]any{"assignee": strings.Repeat("a", 129)}), "assignee", "maxLength"},
		{"assignee blank", "update_bead", u(map[string]any{"assignee": "  "}), "assignee", "pattern"},
		{"priority 0", "update_bead", u(map[string]any{"priority": 0}), "", ""},
		{"priority 4", "update_bead", u(map[string]any{"priority": 4}), "", ""},
		{"priority -1", "update_bead", u(map[string]any{"priority": -1}), "priority", "minimum"},
		{"priority 5", "update_bead", u(map[string]any{"priority": 5}), "priority", "maximum"},
		{"priority 2.5", "update_bead", u(map[string]any{"priority": 2.5}), "", ""}, // the catalogue types it number (point 18)
		{"priority null", "update_bead", u(map[string]any{"priority": nil, "title": "x"}), "", ""},
		{"unknown field", "update_bead", u(map[string]any{"type": "bug"}), "type", "additionalProperties"},
	})
}

// The store refuses a change under another agent's claim; update_bead
// passes its ERR_CLAIMED on and changes nothing.
func TestUpdateBeadUnderAnotherClaim(t *testing.T) {
	k := newKit(t)
	id := k.create(nil)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		_, err := tx.Claim(ctx, id, "agent-bob", time.Hour, time.Now())
		return err
	}); err != nil {
		t.Fatalf("claim: %v", err)
	}
	k.fail("update_bead", map[string]any{"id": id, "title": "mine"}, baton.ErrClaimed)
	k.fail("close_bead", map[string]any{"id": id}, baton.ErrClaimed)
	if it := k.item(id); it.Title != "bead" || it.Status.Terminal() {
		t.Errorf("refused update changed the bead: %+v", it)
	}
	// The holder may.
	k.as("agent-bob").ok("update_bead", map[string]any{"id": id, "title": "bob's"})
}
