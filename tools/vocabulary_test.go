package tools_test

import (
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
)

// TestOneItemThreeVocabularies: an item made through any vocabulary reads
// correctly through the other two, by DESIGN.md's mappings: priorities
// (Colibri names, Symphony 1-4, beads 0-4 as is) and statuses (beads'
// open = backlog|todo, closed = done|cancelled).
func TestOneItemThreeVocabularies(t *testing.T) {
	k := testkit.New(t)
	k.Principal.Project = testkit.Project
	k.OK("task_create", `{"title":"From Colibri","project":"colibri","priority":"critical"}`)                   // COL-1
	k.OK("create_issue", `{"title":"From Symphony","priority":2}`)                                              // COL-2
	k.OK("create_bead", `{"title":"From Adjutant","description":"d","type":"bug","priority":3,"id":"adj-042"}`) // adj-042
	k.OK("create_bead", `{"title":"Backlog bead","description":"d","type":"task","priority":4}`)                // COL-4: adj-042 took sequence 3

	cases := []struct {
		id                           string
		colibri                      string // task_get priority
		symphony                     float64
		bead                         float64
		taskStatus, issue, beadState string
	}{
		{"COL-1", "critical", 1, 0, "backlog", "backlog", "open"},
		{"COL-2", "high", 2, 1, "backlog", "backlog", "open"},
		{"adj-042", "low", 4, 3, "todo", "todo", "open"},
		{"COL-4", "low", 4, 4, "todo", "todo", "open"},
	}
	for _, c := range cases {
		task := k.OK("task_get", map[string]any{"task_id": c.id})
		issue := k.OK("get_issue", map[string]any{"issue_id": c.id})
		bead := k.OK("show_bead", map[string]any{"id": c.id})
		if task["priority"] != c.colibri || issue["priority"] != c.symphony || bead["priority"] != c.bead {
			t.Errorf("%s priorities: task %v, issue %v, bead %v; want %s, %v, %v", c.id, task["priority"], issue["priority"], bead["priority"], c.colibri, c.symphony, c.bead)
		}
		if task["status"] != c.taskStatus || issue["status"] != c.issue || bead["status"] != c.beadState {
			t.Errorf("%s statuses: task %v, issue %v, bead %v", c.id, task["status"], issue["status"], bead["status"])
		}
		if task["title"] != issue["title"] || issue["title"] != bead["title"] {
			t.Errorf("%s titles differ: %v / %v / %v", c.id, task["title"], issue["title"], bead["title"])
		}
	}

	// Closing through beads is done everywhere; giving up through Symphony
	// is todo everywhere.
	k.OK("close_bead", `{"id":"adj-042","reason":"fixed"}`)
	if task := k.OK("task_get", `{"task_id":"adj-042"}`); task["status"] != "done" || task["progress"] != 100.0 {
		t.Errorf("closed bead reads as task %v", task)
	}
	k.OK("task_update", `{"task_id":"COL-2","status":"todo"}`)
	k.OK("task_update", `{"task_id":"COL-2","status":"in_progress"}`)
	k.OK("update_issue_status", `{"issue_id":"COL-2","status":"todo","reason":"stuck"}`)
	if bead := k.OK("show_bead", `{"id":"COL-2"}`); bead["status"] != "open" {
		t.Errorf("given-up issue reads as bead %v", bead["status"])
	}
	if list := k.OK("list_beads", `{"status":"closed"}`); list["count"] != 1.0 {
		t.Errorf("closed beads = %v", list)
	}
}
