package beads_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestShowBeadText(t *testing.T) {
	k := newKit(t)
	k.StoreItem(&baton.Item{ID: "adj-010.2", Title: "Dependency"})
	k.StoreItem(&baton.Item{ID: "adj-042", Title: "Add rate limiting to MCP tools", Status: baton.StatusInProgress, Priority: 2,
		Assignee: "my-agent", Description: "Implement per-agent rate limiting..."})
	k.Depend("adj-042", "adj-010.2")
	out, text := k.ok("show_bead", map[string]any{"id": "adj-042"})
	want := "ID: adj-042\nTitle: Add rate limiting to MCP tools\nStatus: in_progress\nType: task\nPriority: P2\n" +
		"Assignee: my-agent\nDescription: Implement per-agent rate limiting...\nDependencies:\n  - adj-010.2 (depends)"
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
	if got, want := keys(out), []string{"assignee", "dependencies", "description", "id", "priority", "project", "status", "title", "type"}; !slices.Equal(got, want) {
		t.Errorf("fields = %v, want %v", got, want)
	}
	if out["id"] != "adj-042" || out["status"] != "in_progress" || out["type"] != "task" || out["priority"] != float64(2) ||
		out["assignee"] != "my-agent" || out["project"] != testkit.Project {
		t.Errorf("output = %v", out)
	}
	deps := out["dependencies"].([]any)
	if len(deps) != 1 || deps[0].(map[string]any)["id"] != "adj-010.2" || deps[0].(map[string]any)["type"] != "depends" {
		t.Errorf("dependencies = %v", deps)
	}
}

// Unassigned and without relations, every line is still there.
func TestShowBeadEmptyFields(t *testing.T) {
	k := newKit(t)
	id := k.create(map[string]any{"title": "Lonely", "type": "bug", "priority": 4})
	out, text := k.ok("show_bead", map[string]any{"id": id})
	want := "ID: " + id + "\nTitle: Lonely\nStatus: open\nType: bug\nPriority: P4\nAssignee: unassigned\nDescription:\nDependencies: none"
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
	if _, has := out["assignee"]; has {
		t.Errorf("assignee present while unassigned")
	}
	if _, has := out["parent"]; has {
		t.Errorf("parent present without one")
	}
	if deps, ok := out["dependencies"].([]any); !ok || len(deps) != 0 {
		t.Errorf("dependencies = %v, want []", out["dependencies"])
	}
}

func TestShowBeadRelations(t *testing.T) {
	k := newKit(t)
	epic := k.StoreItem(&baton.Item{ID: "adj-1", Kind: baton.KindEpic, Title: "Epic"})
	mid := k.StoreItem(&baton.Item{ID: "adj-2", Title: "Middle", ParentID: epic, Description: "line one\nline two"})
	k.StoreItem(&baton.Item{ID: "adj-3", ParentID: mid})
	k.StoreItem(&baton.Item{ID: "adj-4", ParentID: mid, Status: baton.StatusDone})
	k.StoreItem(&baton.Item{ID: "adj-5"})
	k.StoreItem(&baton.Item{ID: "adj-0"})
	k.Depend(mid, "adj-5")
	k.Depend(mid, "adj-0")
	out, text := k.ok("show_bead", map[string]any{"id": mid})
	want := "ID: adj-2\nTitle: Middle\nStatus: open\nType: task\nPriority: P0\nAssignee: unassigned\n" +
		"Description: line one\nline two\nDependencies:\n  - adj-0 (depends)\n  - adj-5 (depends)\n  - adj-1 (parent)\n" +
		"  - adj-3 (child)\n  - adj-4 (child)"
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
	if out["parent"] != epic {
		t.Errorf("parent = %v", out["parent"])
	}
	var got []string
	for _, d := range out["dependencies"].([]any) {
		m := d.(map[string]any)
		got = append(got, m["id"].(string)+" "+m["type"].(string))
	}
	if want := []string{"adj-0 depends", "adj-5 depends", "adj-1 parent", "adj-3 child", "adj-4 child"}; !slices.Equal(got, want) {
		t.Errorf("dependencies = %v, want %v", got, want)
	}
	// The epic lists its child only.
	if _, text := k.ok("show_bead", map[string]any{"id": epic}); !strings.HasSuffix(text, "\nType: epic\nPriority: P0\nAssignee: unassigned\nDescription:\nDependencies:\n  - adj-2 (child)") {
		t.Errorf("epic text = %q", text)
	}
}

// Every canonical status reads in the bead vocabulary.
func TestShowBeadStatuses(t *testing.T) {
	k := newKit(t)
	want := map[baton.Status]string{
		baton.StatusBacklog: "open", baton.StatusTodo: "open", baton.StatusBlocked: "blocked",
		baton.StatusInProgress: "in_progress", baton.StatusReview: "in_progress",
		baton.StatusDone: "closed", baton.StatusCancelled: "closed",
	}
	for _, s := range baton.Statuses {
		id := k.withStatus(baton.KindTask, s, "")
		out, text := k.ok("show_bead", map[string]any{"id": id})
		if out["status"] != want[s] || !strings.Contains(text, "\nStatus: "+want[s]+"\n") {
			t.Errorf("%s reads as %v", s, out["status"])
		}
	}
}

// A task made with task_create reads correctly through show_bead.
func TestTaskShowsAsBead(t *testing.T) {
	k := newKit(t)
	parent, _ := k.ok("task_create", map[string]any{"title": "parent", "project": testkit.Project})
	created, _ := k.ok("task_create", map[string]any{"title": "Wire up", "project": testkit.Project, "priority": "high",
		"description": "body", "assignee": "agent-bob", "parent_id": parent["task_id"]})
	id := created["task_id"].(string)
	out, text := k.ok("show_bead", map[string]any{"id": id})
	want := "ID: " + id + "\nTitle: Wire up\nStatus: open\nType: task\nPriority: P1\nAssignee: agent-bob\nDescription: body\n" +
		"Dependencies:\n  - " + parent["task_id"].(string) + " (parent)"
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
	if out["status"] != "open" || out["priority"] != float64(1) || out["parent"] != parent["task_id"] {
		t.Errorf("output = %v", out)
	}
}

func TestShowBeadErrorsAndLimits(t *testing.T) {
	k := newKit(t)
	e := k.fail("show_bead", map[string]any{"id": "adj-404"}, baton.ErrNotFound)
	if e.Details["id"] != "adj-404" {
		t.Errorf("details = %v", e.Details)
	}
	id := k.create(nil)
	runLimitCases(t, k, []limitCase{
		{"id missing", "show_bead", nil, "id", "required"},
		{"id empty", "show_bead", map[string]any{"id": ""}, "id", "minLength"},
		{"id 128 chars", "show_bead", map[string]any{"id": id}, "", ""},
		{"id 129 chars", "show_bead", map[string]any{"id": strings.Repeat("i", 129)}, "id", "maxLength"},
		{"id a number", "show_bead", map[string]any{"id": 42}, "id", "type"},
		{"unknown field", "show_bead", map[string]any{"id": id, "verbose": true}, "verbose", "additionalProperties"},
	})
}
