package beads_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestCreateBeadOutput(t *testing.T) {
	k := newKit(t)
	out, text := k.ok("create_bead", map[string]any{
		"title": "Add rate limiting to MCP tools", "description": "Implement per-agent rate limiting for tool calls",
		"type": "task", "priority": 2,
	})
	if text != "Created bead COL-1: Add rate limiting to MCP tools" {
		t.Errorf("text = %q", text)
	}
	if got, want := keys(out), []string{"created_by", "description", "id", "priority", "project", "status", "title", "type"}; !slices.Equal(got, want) {
		t.Errorf("fields = %v, want %v", got, want)
	}
	want := map[string]any{
		"id": "COL-1", "title": "Add rate limiting to MCP tools", "description": "Implement per-agent rate limiting for tool calls",
		"status": "open", "type": "task", "priority": float64(2), "project": testkit.Project, "created_by": "agent-alice",
	}
	for f, v := range want {
		if out[f] != v {
			t.Errorf("%s = %v, want %v", f, out[f], v)
		}
	}
	it := k.item("COL-1")
	if it.Status != baton.StatusTodo || it.Kind != baton.KindTask || it.Priority != 2 || it.CreatedBy != "agent-alice" ||
		it.UpdatedBy != "agent-alice" || it.Assignee != "" || it.Progress != 0 {
		t.Errorf("stored item = %+v", it)
	}
}

func TestCreateBeadTypesAndPriorities(t *testing.T) {
	k := newKit(t)
	for _, typ := range []string{"epic", "task", "bug"} {
		for p := 0; p <= 4; p++ {
			out, _ := k.ok("create_bead", map[string]any{"title": "t", "description": "d", "type": typ, "priority": p})
			it := k.item(out["id"].(string))
			if string(it.Kind) != typ || int(it.Priority) != p {
				t.Errorf("create %s P%d stored kind %s priority %d", typ, p, it.Kind, it.Priority)
			}
			if out["type"] != typ || out["priority"] != float64(p) {
				t.Errorf("create %s P%d output type %v priority %v", typ, p, out["type"], out["priority"])
			}
		}
	}
}

func TestCreateBeadCustomID(t *testing.T) {
	k := newKit(t)
	out, text := k.ok("create_bead", map[string]any{"title": "x", "description": "", "type": "bug", "priority": 1, "id": "adj-042"})
	if out["id"] != "adj-042" || text != "Created bead adj-042: x" {
		t.Errorf("custom id: %v / %q", out["id"], text)
	}
	e := k.fail("create_bead", map[string]any{"title": "again", "description": "", "type": "bug", "priority": 1, "id": "adj-042"}, baton.ErrConflict)
	if e.Details["id"] != "adj-042" {
		t.Errorf("conflict details = %v", e.Details)
	}
	// The conflict changed nothing: the first bead is intact.
	if it := k.item("adj-042"); it.Title != "x" {
		t.Errorf("first bead was overwritten: %+v", it)
	}
	// An id taken by another vocabulary conflicts too: it is the same row.
	k.ok("task_create", map[string]any{"title": "task", "project": testkit.Project})
	k.fail("create_bead", map[string]any{"title": "t", "description": "", "type": "task", "priority": 2, "id": "COL-2"}, baton.ErrConflict)
}

func TestCreateBeadLimits(t *testing.T) {
	k := newKit(t)
	base := map[string]any{"title": "t", "description": "", "type": "task", "priority": 2}
	c := func(extra map[string]any) map[string]any { return with(base, extra) }
	runLimitCases(t, k, []limitCase{
		{"title 0 chars", "create_bead", c(map[string]any{"title": ""}), "title", "minLength"},
		{"title 1 char", "create_bead", c(map[string]any{"title": "x"}), "", ""},
		{"title 256 chars", "create_bead", c(map[string]any{"title": strings.Repeat("a", 256)}), "", ""},
		{"title 257 chars", "create_bead", c(map[string]any{"title": strings.Repeat("a", 257)}), "title", "maxLength"},
		{"title 256 runes of 2 bytes", "create_bead", c(map[string]any{"title": strings.Repeat("é", 256)}), "", ""},
		{"title blank", "create_bead", c(map[string]any{"title": " \t\n"}), "title", "pattern"},
		{"title missing", "create_bead", c(map[string]any{"title": nil}), "title", "required"},
		{"title not a string", "create_bead", c(map[string]any{"title": 5}), "title", "type"},
		{"description empty", "create_bead", c(map[string]any{"description": ""}), "", ""},
		{"description 8000 chars", "create_bead", c(map[string]any{"description": strings.Repeat("d", 8000)}), "", ""},
		{"description 8001 chars", "create_bead", c(map[string]any{"description": strings.Repeat("d", 8001)}), "description", "maxLength"},
		{"description missing", "create_bead", c(map[string]any{"description": nil}), "description", "required"},
		{"type epic", "create_bead", c(map[string]any{"type": "epic"}), "", ""},
		{"type bug", "create_bead", c(map[string]any{"type": "bug"}), "", ""},
		{"type feature", "create_bead", c(map[string]any{"type": "feature"}), "type", "enum"},
		{"type chore", "create_bead", c(map[string]any{"type": "chore"}), "type", "enum"},
		{"type upper case", "create_bead", c(map[string]any{"type": "Task"}), "type", "enum"},
		{"type missing", "create_bead", c(map[string]any{"type": nil}), "type", "required"},
		{"priority 0", "create_bead", c(map[string]any{"priority": 0}), "", ""},
		{"priority 4", "create_bead", c(map[string]any{"priority": 4}), "", ""},
		{"priority 4.0", "create_bead", c(map[string]any{"priority": 4.0}), "", ""},
		{"priority -1", "create_bead", c(map[string]any{"priority": -1}), "priority", "minimum"},
		{"priority 5", "create_bead", c(map[string]any{"priority": 5}), "priority", "maximum"},
		{"priority 1.5", "create_bead", c(map[string]any{"priority": 1.5}), "", ""}, // the catalogue types it number (point 18)
		{"priority a string", "create_bead", c(map[string]any{"priority": "2"}), "priority", "type"},
		{"priority missing", "create_bead", c(map[string]any{"priority": nil}), "priority", "required"},
		{"id 1 char", "create_bead", c(map[string]any{"id": "a"}), "", ""},
		{"id 64 chars", "create_bead", c(map[string]any{"id": strings.Repeat("b", 64)}), "", ""},
		{"id 65 chars", "create_bead", c(map[string]any{"id": strings.Repeat("c", 65)}), "id", "pattern"},
		{"id with dot, dash, underscore", "create_bead", c(map[string]any{"id": "adj-010.2_x"}), "", ""},
		{"id empty", "create_bead", c(map[string]any{"id": ""}), "id", "minLength"},
		{"id starting with dash", "create_bead", c(map[string]any{"id": "-adj"}), "id", "pattern"},
		{"id starting with dot", "create_bead", c(map[string]any{"id": ".adj"}), "id", "pattern"},
		{"id with space", "create_bead", c(map[string]any{"id": "adj 1"}), "id", "pattern"},
		{"id with slash", "create_bead", c(map[string]any{"id": "adj/1"}), "id", "pattern"},
		{"unknown field", "create_bead", c(map[string]any{"assignee": "bob"}), "assignee", "additionalProperties"},
	})
}

func TestCreateBeadProject(t *testing.T) {
	k := newKit(t)
	// One project and no session default: the only project.
	if id := k.create(nil); k.item(id).Project != testkit.Project {
		t.Errorf("bead went to %s", k.item(id).Project)
	}
	k.AddProject("adjutant", "ADJ")
	// Two projects, no session default: ERR_INVALID_INPUT naming project.
	e := k.fail("create_bead", map[string]any{"title": "t", "description": "", "type": "task", "priority": 2}, baton.ErrInvalidInput)
	if e.Details["field"] != "project" || !slices.Equal(e.Details["projects"].([]string), []string{"adjutant", "colibri"}) {
		t.Errorf("details = %v", e.Details)
	}
	if !strings.Contains(e.Hint, "--project") || strings.Contains(e.Hint, "pass project") {
		t.Errorf("hint %q should point at --project, as create_bead has no project argument", e.Hint)
	}
	// The session's project wins.
	ka := k.inProject("adjutant")
	out, text := ka.ok("create_bead", map[string]any{"title": "t", "description": "", "type": "task", "priority": 2})
	if out["id"] != "ADJ-1" || out["project"] != "adjutant" || text != "Created bead ADJ-1: t" {
		t.Errorf("session project: %v / %q", out, text)
	}
	// An unknown session project is the store's error.
	k.inProject("nope").fail("create_bead", map[string]any{"title": "t", "description": "", "type": "task", "priority": 2}, baton.ErrProjectNotFound)
}

func TestCreateBeadIdentity(t *testing.T) {
	k := newKit(t)
	out, _ := k.as("agent-bob").ok("create_bead", map[string]any{"title": "t", "description": "", "type": "task", "priority": 2})
	if out["created_by"] != "agent-bob" {
		t.Errorf("created_by = %v", out["created_by"])
	}
	if it := k.item(out["id"].(string)); it.CreatedBy != "agent-bob" || it.UpdatedBy != "agent-bob" {
		t.Errorf("stored created_by/updated_by = %s/%s", it.CreatedBy, it.UpdatedBy)
	}
}

// A bead is a task: create_bead's row reads correctly through task_get,
// with the canonical priority mapped onto Colibri's names.
func TestCreateBeadReadsAsTask(t *testing.T) {
	k := newKit(t)
	for p, name := range []string{"critical", "high", "normal", "low", "low"} {
		id := k.create(map[string]any{"title": "cross", "description": "body", "priority": p, "type": "bug"})
		got, _ := k.ok("task_get", map[string]any{"task_id": id})
		if got["priority"] != name || got["status"] != "todo" || got["title"] != "cross" || got["description"] != "body" ||
			got["assignee"] != "unassigned" || got["project"] != testkit.Project || got["created_by"] != "agent-alice" {
			t.Errorf("P%d through task_get = %v", p, got)
		}
	}
}
