package issues_test

import (
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestCreateSubtask(t *testing.T) {
	k := testkit.New(t)
	parent := issueIn(k, "in_progress", map[string]any{"title": "Parent"})
	w := bound(k, parent).As("agent-bob")
	out := w.OK("create_subtask", map[string]any{"title": "Add unit tests for dispatcher priority sorting",
		"description": "Judges before workers", "priority": 2, "labels": []string{"tests"}})
	equal(t, "output fields", keys(out), []string{"depends_on", "identifier", "issue_id", "labels", "parent_id",
		"priority", "status", "title"})
	sub := out["issue_id"].(string)
	if sub != "COL-2" || out["parent_id"] != parent || out["status"] != "todo" || out["priority"] != 2.0 {
		t.Errorf("output = %v", out)
	}
	equal(t, "labels", strs(t, out, "labels"), []string{"tests", "phase:ready"})
	got := getIssue(k, sub)
	if got["parent_id"] != parent || got["project"] != "colibri" || got["description"] != "Judges before workers" {
		t.Errorf("subtask = %v", got)
	}
	p := taskGet(k, parent)
	if p["status"] != "blocked" || !strings.Contains(p["blocked_reason"].(string), sub) || p["updated_by"] != "agent-bob" {
		t.Errorf("parent status/blocked_reason/updated_by = %v/%v/%v, want blocked naming %s",
			p["status"], p["blocked_reason"], p["updated_by"], sub)
	}
	equal(t, "subtasks", strs(t, getIssue(k, parent), "subtasks"), []string{sub})

	// Default priority is 3; a second subtask is named in the reason too.
	out = w.OK("create_subtask", map[string]any{"title": "second"})
	if out["priority"] != 3.0 || out["status"] != "todo" {
		t.Errorf("second subtask = %v", out)
	}
	if br := taskGet(k, parent)["blocked_reason"].(string); !strings.Contains(br, sub) || !strings.Contains(br, out["issue_id"].(string)) {
		t.Errorf("blocked_reason = %q, want both subtasks", br)
	}
	for _, p := range []any{0, 5} {
		invalid(w, "create_subtask", map[string]any{"title": "t", "priority": p}, "priority")
	}
	invalid(w, "create_subtask", map[string]any{"title": ""}, "title")
	fail(w, "create_subtask", map[string]any{"issue_id": "COL-99", "title": "t"}, baton.ErrTaskNotFound)
}

// A finished issue takes no subtasks, and the refusal changes nothing.
func TestCreateSubtaskOfFinishedIssue(t *testing.T) {
	for _, status := range []string{"done", "cancelled"} {
		t.Run(status, func(t *testing.T) {
			k := testkit.New(t)
			parent := issueIn(k, status, nil)
			e := fail(bound(k, parent), "create_subtask", map[string]any{"title": "late"}, baton.ErrInvalidTransition)
			if e.Details["task_id"] != parent || e.Details["from"] != status {
				t.Errorf("details = %v", e.Details)
			}
			if got := getIssue(k, parent); got["status"] != status || len(strs(t, got, "subtasks")) != 0 {
				t.Errorf("parent after refusal = %v/%v", got["status"], got["subtasks"])
			}
			if id := issue(k, nil); id != "COL-2" {
				t.Errorf("next issue = %s, want COL-2: the refused subtask consumed a number", id)
			}
		})
	}
}

// finishers finish a subtask (status todo) by different vocabularies.
var finishers = map[string]func(k *testkit.Kit, id string){
	// Colibri all the way to done.
	"task_update done": func(k *testkit.Kit, id string) { drive(k, id, "done") },
	// Cancelling counts as finishing.
	"task_update cancelled": func(k *testkit.Kit, id string) {
		k.OK("task_update", map[string]any{"task_id": id, "status": "cancelled"})
	},
	// Symphony's agent submits for review with update_issue_status, and
	// the review is closed as done.
	"update_issue_status review, then done": func(k *testkit.Kit, id string) {
		k.OK("task_update", map[string]any{"task_id": id, "status": "in_progress"})
		bound(k, id).OK("update_issue_status", map[string]any{"status": "review", "reason": "implemented"})
		if got := status0(k, id); got != "review" {
			k.T.Fatalf("%s after update_issue_status = %s", id, got)
		}
		k.OK("task_update", map[string]any{"task_id": id, "status": "done"})
	},
	// A bead closes it.
	"close_bead": func(k *testkit.Kit, id string) {
		if _, ok := k.Registry.Get("close_bead"); !ok {
			k.T.Skip("no close_bead tool registered")
		}
		k.OK("close_bead", map[string]any{"id": id, "reason": "done"})
	},
}

// The parent is blocked while any subtask is unfinished and then returns to
// the status it had, whichever vocabulary finished the last subtask.
func TestSubtasksBlockParentUntilDone(t *testing.T) {
	for _, tc := range []struct {
		parent        string
		first, second string
	}{
		{"in_progress", "task_update done", "task_update done"},
		{"in_progress", "task_update cancelled", "update_issue_status review, then done"},
		{"in_progress", "update_issue_status review, then done", "task_update cancelled"},
		{"in_progress", "update_issue_status review, then done", "update_issue_status review, then done"},
		{"todo", "task_update done", "update_issue_status review, then done"},
		{"backlog", "task_update cancelled", "task_update done"},
		{"review", "task_update done", "task_update cancelled"},
		{"in_progress", "task_update done", "close_bead"},
	} {
		t.Run(tc.parent+"/"+tc.first+"/"+tc.second, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			parent := issueIn(k, tc.parent, nil)
			w := bound(k, parent)
			one := w.OK("create_subtask", map[string]any{"title": "one"})["issue_id"].(string)
			two := w.OK("create_subtask", map[string]any{"title": "two"})["issue_id"].(string)
			if got := status0(k, parent); got != "blocked" {
				t.Fatalf("parent with open subtasks is %s, want blocked", got)
			}

			finishers[tc.first](k, one)
			p := taskGet(k, parent)
			if p["status"] != "blocked" || p["blocked_reason"] == nil {
				t.Fatalf("parent with one subtask left is %v (%v), want still blocked", p["status"], p["blocked_reason"])
			}

			finishers[tc.second](k, two)
			p = taskGet(k, parent)
			if p["status"] != tc.parent {
				t.Fatalf("parent after the last subtask = %v, want its previous status %s", p["status"], tc.parent)
			}
			if br, ok := p["blocked_reason"]; ok {
				t.Errorf("restored parent keeps blocked_reason %v", br)
			}
			// It is a normal issue again: it can be blocked and moved on.
			if tc.parent == "in_progress" {
				w.OK("update_issue_status", map[string]any{"status": "review"})
			}
		})
	}
}

// A subtask created after the earlier ones finished blocks the parent again,
// and it returns to the same status again.
func TestSubtaskAfterRestore(t *testing.T) {
	k := testkit.New(t)
	parent := issueIn(k, "in_progress", nil)
	w := bound(k, parent)
	one := w.OK("create_subtask", map[string]any{"title": "one"})["issue_id"].(string)
	drive(k, one, "done")
	if got := status0(k, parent); got != "in_progress" {
		t.Fatalf("parent = %s, want in_progress", got)
	}
	two := w.OK("create_subtask", map[string]any{"title": "two"})["issue_id"].(string)
	if got := status0(k, parent); got != "blocked" {
		t.Fatalf("parent = %s, want blocked by the new subtask", got)
	}
	drive(k, two, "done")
	if got := status0(k, parent); got != "in_progress" {
		t.Errorf("parent = %s, want in_progress", got)
	}
}

// Blocking nests: a subtask blocked by its own subtask returns to its
// status, which does not finish it, so the grandparent stays blocked.
func TestNestedSubtasks(t *testing.T) {
	k := testkit.New(t)
	top := issueIn(k, "in_progress", nil)
	mid := bound(k, top).OK("create_subtask", map[string]any{"title": "mid"})["issue_id"].(string)
	k.OK("task_update", map[string]any{"task_id": mid, "status": "in_progress"})
	leaf := bound(k, mid).OK("create_subtask", map[string]any{"title": "leaf"})["issue_id"].(string)
	if status0(k, mid) != "blocked" || status0(k, top) != "blocked" {
		t.Fatalf("mid/top = %s/%s, want both blocked", status0(k, mid), status0(k, top))
	}
	drive(k, leaf, "done")
	if got := status0(k, mid); got != "in_progress" {
		t.Errorf("mid after leaf done = %s, want in_progress", got)
	}
	if got := status0(k, top); got != "blocked" {
		t.Errorf("top after leaf done = %s, want still blocked by mid", got)
	}
	drive(k, mid, "done")
	if got := status0(k, top); got != "in_progress" {
		t.Errorf("top after mid done = %s, want in_progress", got)
	}
}

// A parent a human had already blocked returns to blocked, for the human's
// reason, when its subtasks are done.
func TestSubtasksOfBlockedParent(t *testing.T) {
	k := testkit.New(t)
	parent := issueIn(k, "in_progress", nil)
	w := bound(k, parent)
	w.OK("update_issue_status", map[string]any{"status": "blocked", "reason": "need database credentials"})
	sub := w.OK("create_subtask", map[string]any{"title": "sub"})["issue_id"].(string)
	drive(k, sub, "done")
	p := taskGet(k, parent)
	if p["status"] != "blocked" {
		t.Errorf("parent = %v, want blocked as before", p["status"])
	}
	if p["blocked_reason"] != "need database credentials" {
		t.Errorf("blocked_reason = %#v, want the human's reason back", p["blocked_reason"])
	}
}

// Once someone else moves a parent out of the subtask block, the subtasks
// no longer decide its status: finishing them later must not undo a block
// set since for another reason.
func TestSubtasksDoNotLiftLaterBlock(t *testing.T) {
	k := testkit.New(t)
	parent := issueIn(k, "in_progress", nil)
	w := bound(k, parent)
	sub := w.OK("create_subtask", map[string]any{"title": "sub"})["issue_id"].(string)
	// A human unblocks the parent by hand, then it is blocked for another
	// reason.
	w.OK("update_issue_status", map[string]any{"status": "todo", "reason": "work on it in parallel"})
	w.OK("update_issue_status", map[string]any{"status": "blocked", "reason": "need database credentials"})
	drive(k, sub, "done")
	p := taskGet(k, parent)
	if p["status"] != "blocked" || p["blocked_reason"] != "need database credentials" {
		t.Errorf("parent = %v (%v), want still blocked for the credentials", p["status"], p["blocked_reason"])
	}

	// Unblocked by hand and left alone, finishing the subtasks leaves it be.
	k2 := testkit.New(t)
	parent = issueIn(k2, "in_progress", nil)
	sub = bound(k2, parent).OK("create_subtask", map[string]any{"title": "sub"})["issue_id"].(string)
	k2.OK("task_update", map[string]any{"task_id": parent, "status": "in_progress"})
	drive(k2, sub, "done")
	if got := status0(k2, parent); got != "in_progress" {
		t.Errorf("parent = %s, want in_progress", got)
	}
}
