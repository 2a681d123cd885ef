package tasks_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// allowed is the state machine as the spec and DESIGN.md state it
// (Colibri's table plus Symphony's in_progress -> todo).
var allowed = map[string][]string{
	"backlog":     {"todo", "cancelled"},
	"todo":        {"in_progress", "blocked", "cancelled"},
	"in_progress": {"review", "blocked", "todo", "cancelled"},
	"blocked":     {"todo", "in_progress", "cancelled"},
	"review":      {"done", "backlog", "blocked", "cancelled"},
	"done":        {},
	"cancelled":   {},
}

func TestStateMachine(t *testing.T) {
	k := testkit.New(t)
	for _, from := range statuses {
		for _, to := range statuses {
			t.Run(from+"_to_"+to, func(t *testing.T) {
				k := on(k, t)
				id := createIn(k, from, nil)
				before := get(k, id)
				args := map[string]any{"task_id": id, "status": to}
				if to == "blocked" && from != "blocked" {
					args["blocked_reason"] = "waiting on review of the schema"
				}
				switch {
				case from == to:
					// Not a transition: accepted, status unchanged, no previous_status.
					out := k.As("agent-bob").OK("task_update", args)
					if out["status"] != to {
						t.Errorf("status = %v, want %s", out["status"], to)
					}
					if p, ok := out["previous_status"]; ok {
						t.Errorf("previous_status = %v on a same-status update, want it absent", p)
					}
					after := get(k, id)
					if after["status"] != from || after["updated_by"] != "agent-bob" {
						t.Errorf("after same-status update: status %v updated_by %v", after["status"], after["updated_by"])
					}
					if from == "blocked" && after["blocked_reason"] != before["blocked_reason"] {
						t.Errorf("blocked_reason changed from %v to %v", before["blocked_reason"], after["blocked_reason"])
					}
				case slices.Contains(allowed[from], to):
					out := k.As("agent-bob").OK("task_update", args)
					if out["status"] != to || out["previous_status"] != from {
						t.Errorf("status/previous_status = %v/%v, want %s/%s", out["status"], out["previous_status"], to, from)
					}
					if out["updated_by"] != "agent-bob" {
						t.Errorf("updated_by = %v, want agent-bob", out["updated_by"])
					}
					after := get(k, id)
					if after["status"] != to {
						t.Errorf("task_get status = %v, want %s", after["status"], to)
					}
					reason, has := after["blocked_reason"]
					if to == "blocked" && reason != "waiting on review of the schema" {
						t.Errorf("blocked_reason = %v, want the reason given", reason)
					}
					if to != "blocked" && has {
						t.Errorf("blocked_reason = %v after moving to %s, want it cleared", reason, to)
					}
					if to == "done" && (after["progress"] != 100.0 || out["progress"] != 100.0) {
						t.Errorf("progress = %v (output %v) after done, want 100", after["progress"], out["progress"])
					}
				default:
					e := fail(k, "task_update", args, baton.ErrInvalidTransition)
					if e.Details["from"] != from || e.Details["to"] != to || e.Details["task_id"] != id {
						t.Errorf("details = %v, want task_id %s from %s to %s", e.Details, id, from, to)
					}
					if e.Type != "invalid_transition" || e.Hint == "" {
						t.Errorf("type %q hint %q", e.Type, e.Hint)
					}
					var got []string
					for _, s := range e.Details["allowed"].([]any) {
						got = append(got, s.(string))
					}
					if want := allowed[from]; !sameSet(got, want) {
						t.Errorf("details.allowed = %v, want %v", got, want)
					}
					if after := get(k, id); !reflect.DeepEqual(before, after) {
						t.Errorf("a rejected transition changed the task:\nbefore %v\nafter  %v", before, after)
					}
				}
			})
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestBlockedNeedsReason(t *testing.T) {
	k := testkit.New(t)
	for _, from := range []string{"todo", "in_progress", "review"} {
		t.Run(from, func(t *testing.T) {
			k := on(k, t)
			id := createIn(k, from, nil)
			before := get(k, id)
			e := fail(k, "task_update", map[string]any{"task_id": id, "status": "blocked", "description": "changed"}, baton.ErrInvalidInput)
			if e.Details["field"] != "blocked_reason" || e.Details["constraint"] != "required" {
				t.Errorf("details = %v, want field blocked_reason, constraint required", e.Details)
			}
			if !strings.Contains(e.Message, "blocked_reason") {
				t.Errorf("message %q does not name blocked_reason", e.Message)
			}
			if after := get(k, id); !reflect.DeepEqual(before, after) {
				t.Errorf("the rejected update changed the task:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
	t.Run("from a status that cannot block", func(t *testing.T) {
		k := on(k, t)
		id := createIn(k, "backlog", nil)
		fail(k, "task_update", map[string]any{"task_id": id, "status": "blocked"}, baton.ErrInvalidTransition)
	})
}

func TestBlockedReasonLifecycle(t *testing.T) {
	k := testkit.New(t)
	for _, to := range []string{"todo", "in_progress", "cancelled"} {
		t.Run("leaving blocked for "+to+" clears it", func(t *testing.T) {
			k := on(k, t)
			id := createIn(k, "blocked", nil)
			if r := get(k, id)["blocked_reason"]; r != "waiting for credentials" {
				t.Fatalf("blocked_reason = %v", r)
			}
			update(k, id, map[string]any{"status": to})
			if r, ok := get(k, id)["blocked_reason"]; ok {
				t.Errorf("blocked_reason = %v after leaving blocked, want it cleared", r)
			}
		})
	}
	t.Run("a blocked task's reason can be replaced", func(t *testing.T) {
		k := on(k, t)
		id := createIn(k, "blocked", nil)
		out := update(k, id, map[string]any{"blocked_reason": "now waiting for the vendor"})
		if _, ok := out["warnings"]; ok {
			t.Errorf("warnings = %v, want none", out["warnings"])
		}
		if r := get(k, id)["blocked_reason"]; r != "now waiting for the vendor" {
			t.Errorf("blocked_reason = %v", r)
		}
		update(k, id, map[string]any{"status": "blocked", "blocked_reason": "third reason"})
		if r := get(k, id)["blocked_reason"]; r != "third reason" {
			t.Errorf("blocked_reason = %v", r)
		}
	})
	t.Run("a reason for a task that is not blocked is ignored with a warning", func(t *testing.T) {
		k := on(k, t)
		id := createIn(k, "todo", nil)
		out := update(k, id, map[string]any{"status": "in_progress", "blocked_reason": "not really"})
		if out["status"] != "in_progress" || !hasWarning(out, "blocked_reason") {
			t.Errorf("output = %v, want in_progress with a warning about blocked_reason", out)
		}
		if r, ok := get(k, id)["blocked_reason"]; ok {
			t.Errorf("blocked_reason = %v stored on an unblocked task", r)
		}
	})
	t.Run("re-blocking needs a new reason", func(t *testing.T) {
		k := on(k, t)
		id := createIn(k, "blocked", nil)
		update(k, id, map[string]any{"status": "in_progress"})
		fail(k, "task_update", map[string]any{"task_id": id, "status": "blocked"}, baton.ErrInvalidInput)
	})
}

func hasWarning(out map[string]any, substr string) bool {
	ws, _ := out["warnings"].([]any)
	for _, w := range ws {
		if strings.Contains(w.(string), substr) {
			return true
		}
	}
	return false
}

func TestProgressAndWarnings(t *testing.T) {
	k := testkit.New(t)
	for _, tc := range []struct {
		name         string
		from         string
		args         map[string]any
		wantStatus   string
		wantProgress float64
		warning      string // substring of a warning, or "" for no warnings at all
	}{
		{"done without progress sets 100", "review", map[string]any{"status": "done"}, "done", 100, ""},
		{"done with progress 100", "review", map[string]any{"status": "done", "progress": 100}, "done", 100, ""},
		{"done with progress 80 keeps 80 and warns", "review", map[string]any{"status": "done", "progress": 80}, "done", 80, "progress is 80%"},
		{"progress 100 while in progress warns", "in_progress", map[string]any{"progress": 100}, "in_progress", 100, "Progress set to 100% but status != 'done'"},
		{"progress 100 moving to review warns", "in_progress", map[string]any{"status": "review", "progress": 100}, "review", 100, "Progress set to 100%"},
		{"progress 100 in backlog warns", "backlog", map[string]any{"progress": 100}, "backlog", 100, "Progress set to 100%"},
		{"progress 99 does not warn", "in_progress", map[string]any{"progress": 99}, "in_progress", 99, ""},
		{"progress 0", "in_progress", map[string]any{"progress": 0}, "in_progress", 0, ""},
		{"progress alone keeps the status", "todo", map[string]any{"progress": 30}, "todo", 30, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := on(k, t)
			id := createIn(k, tc.from, nil)
			out := update(k, id, tc.args)
			if out["status"] != tc.wantStatus || out["progress"] != tc.wantProgress {
				t.Errorf("status/progress = %v/%v, want %s/%v", out["status"], out["progress"], tc.wantStatus, tc.wantProgress)
			}
			got := get(k, id)
			if got["status"] != tc.wantStatus || got["progress"] != tc.wantProgress {
				t.Errorf("task_get status/progress = %v/%v, want %s/%v", got["status"], got["progress"], tc.wantStatus, tc.wantProgress)
			}
			if tc.warning == "" {
				if w, ok := out["warnings"]; ok {
					t.Errorf("warnings = %v, want the key absent", w)
				}
			} else if !hasWarning(out, tc.warning) {
				t.Errorf("warnings = %v, want one containing %q", out["warnings"], tc.warning)
			}
		})
	}
}

func TestUpdateFields(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	id := create(k, map[string]any{"description": "old", "labels": []string{"a", "b"}, "assignee": "agent-bob", "priority": "low"})

	out := update(k, id, map[string]any{"description": "new body", "priority": "critical", "assignee": "agent-carol", "labels": []string{"x", "y", "z"}})
	if got, want := keys(out), []string{"progress", "status", "task_id", "updated_at", "updated_by"}; !slices.Equal(got, want) {
		t.Errorf("output fields = %v, want %v (no previous_status without a transition)", got, want)
	}
	if out["task_id"] != id || out["status"] != "backlog" || out["progress"] != 0.0 || out["updated_by"] != "agent-alice" {
		t.Errorf("output = %v", out)
	}
	if at := parseStamp(t, out["updated_at"]); !at.Equal(clock.Peek()) {
		t.Errorf("updated_at = %v, want the call's time %v", at, clock.Peek())
	}
	got := get(k, id)
	if got["description"] != "new body" || got["priority"] != "critical" || got["assignee"] != "agent-carol" {
		t.Errorf("task = %v", got)
	}
	if l := got["labels"].([]any); len(l) != 3 || l[0] != "x" || l[2] != "z" {
		t.Errorf("labels = %v, want [x y z]", l)
	}
	if got["updated_at"] != out["updated_at"] || got["created_at"] == got["updated_at"] {
		t.Errorf("created_at %v updated_at %v, output updated_at %v", got["created_at"], got["updated_at"], out["updated_at"])
	}

	// Clearing: empty description, no labels, unassigned.
	update(k, id, map[string]any{"description": "", "labels": []string{}, "assignee": "unassigned"})
	got = get(k, id)
	if got["description"] != "" || got["assignee"] != "unassigned" || len(got["labels"].([]any)) != 0 {
		t.Errorf("after clearing: %v", got)
	}
	// Fields not named are left alone.
	update(k, id, map[string]any{"progress": 10})
	if after := get(k, id); after["priority"] != "critical" || after["title"] != "task" || after["progress"] != 10.0 {
		t.Errorf("a progress update changed other fields: %v", after)
	}
}

func TestUpdateNeedsAChange(t *testing.T) {
	k := testkit.New(t)
	id := create(k, nil)
	before := get(k, id)
	e := fail(k, "task_update", map[string]any{"task_id": id}, baton.ErrInvalidInput)
	if e.Details["field"] != "task_id" || e.Details["constraint"] == nil {
		t.Errorf("details = %v, want field task_id and a constraint", e.Details)
	}
	if e.Hint == "" {
		t.Error("no next_action_hint")
	}
	if after := get(k, id); !reflect.DeepEqual(before, after) {
		t.Errorf("changed: %v -> %v", before, after)
	}
}

func TestUpdateUnknownTask(t *testing.T) {
	k := testkit.New(t)
	e := fail(k, "task_update", map[string]any{"task_id": "COL-7", "status": "todo"}, baton.ErrTaskNotFound)
	if e.Details["task_id"] != "COL-7" {
		t.Errorf("details = %v", e.Details)
	}
}

func TestFailedUpdateChangesNothing(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	for _, tc := range []struct {
		name string
		from string
		args map[string]any
		code string
	}{
		{"invalid transition with other fields", "todo",
			map[string]any{"status": "done", "progress": 50, "description": "x", "labels": []string{"new"}, "priority": "critical", "assignee": "agent-bob"},
			baton.ErrInvalidTransition},
		{"terminal task", "done", map[string]any{"status": "todo", "progress": 10}, baton.ErrInvalidTransition},
		{"cancelled task", "cancelled", map[string]any{"status": "backlog"}, baton.ErrInvalidTransition},
		{"blocked without reason", "in_progress", map[string]any{"status": "blocked", "progress": 70, "description": "x"}, baton.ErrInvalidInput},
		{"one invalid field among valid ones", "todo", map[string]any{"progress": 50, "description": "x", "priority": "urgent"}, baton.ErrInvalidInput},
		{"unknown field among valid ones", "todo", map[string]any{"progress": 50, "updated_by": "mallory"}, baton.ErrInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := on(k, t)
			id := createIn(k, tc.from, map[string]any{"description": "original", "labels": []string{"keep"}, "priority": "low"})
			before := get(k, id)
			args := map[string]any{"task_id": id}
			for key, v := range tc.args {
				args[key] = v
			}
			fail(k, "task_update", args, tc.code)
			if after := get(k, id); !reflect.DeepEqual(before, after) {
				t.Errorf("the failed update changed the task:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}
