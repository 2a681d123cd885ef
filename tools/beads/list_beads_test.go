package beads_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestListBeadsStatusFilter(t *testing.T) {
	k := newKit(t)
	byStatus := map[baton.Status]string{}
	for _, s := range baton.Statuses {
		byStatus[s] = k.withStatus(baton.KindTask, s, "")
	}
	pick := func(ss ...baton.Status) []string {
		var out []string
		for _, s := range ss {
			out = append(out, byStatus[s])
		}
		return out
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		// As bd list, which Adjutant's list_beads runs: everything not closed.
		{"default is not closed", nil, pick(baton.StatusBacklog, baton.StatusTodo, baton.StatusBlocked, baton.StatusInProgress, baton.StatusReview)},
		{"open", map[string]any{"status": "open"}, pick(baton.StatusBacklog, baton.StatusTodo, baton.StatusBlocked)},
		{"in_progress", map[string]any{"status": "in_progress"}, pick(baton.StatusInProgress, baton.StatusReview)},
		{"closed", map[string]any{"status": "closed"}, pick(baton.StatusDone, baton.StatusCancelled)},
		{"all", map[string]any{"status": "all"}, pick(baton.Statuses...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := k.on(t)
			out, _ := k.ok("list_beads", tc.args)
			if got := beadIDs(t, out); !sameSet(got, tc.want) {
				t.Errorf("ids = %v, want %v", got, tc.want)
			}
			if out["count"] != float64(len(tc.want)) {
				t.Errorf("count = %v, want %d", out["count"], len(tc.want))
			}
		})
	}
}

func TestListBeadsText(t *testing.T) {
	k := newKit(t)
	if out, text := k.ok("list_beads", nil); text != "No beads found." || out["count"] != float64(0) || len(beadIDs(t, out)) != 0 {
		t.Errorf("empty list: %v %q", out, text)
	}
	k.create(map[string]any{"title": "Add rate limiting to MCP tools", "id": "adj-042"})
	k.StoreItem(&baton.Item{ID: "adj-043", Title: "Fix login timeout", Kind: baton.KindBug, Priority: 1, Status: baton.StatusReview, Assignee: "my-agent"})
	k.StoreItem(&baton.Item{ID: "adj-044", Title: "Waiting", Kind: baton.KindEpic, Priority: 0, Status: baton.StatusBlocked})
	k.StoreItem(&baton.Item{ID: "adj-045", Title: "Shiny", Kind: baton.KindFeature, Priority: 4, Status: baton.StatusDone})
	_, text := k.ok("list_beads", map[string]any{"status": "all"})
	want := strings.Join([]string{
		"[blocked] adj-044 (epic, P0): Waiting",
		"[in_progress] adj-043 (bug, P1): Fix login timeout",
		"[open] adj-042 (task, P2): Add rate limiting to MCP tools",
		"[closed] adj-045 (feature, P4): Shiny",
	}, "\n")
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
	if _, text := k.ok("list_beads", map[string]any{"status": "in_progress", "assignee": "nobody"}); text != "No beads found." {
		t.Errorf("filtered empty: %q", text)
	}
}

func TestListBeadsStructured(t *testing.T) {
	k := newKit(t)
	k.StoreItem(&baton.Item{ID: "adj-1", Title: "a", Kind: baton.KindBug, Priority: 1, Status: baton.StatusInProgress, Assignee: "my-agent",
		Description: "not listed", Labels: []string{"x"}})
	k.StoreItem(&baton.Item{ID: "adj-2", Title: "b", Kind: baton.KindChore, Priority: 3, Status: baton.StatusTodo})
	out, _ := k.ok("list_beads", map[string]any{"status": "all"})
	if got, want := keys(out), []string{"beads", "count", "total"}; !slices.Equal(got, want) {
		t.Errorf("fields = %v", got)
	}
	beads := out["beads"].([]any)
	first, second := beads[0].(map[string]any), beads[1].(map[string]any)
	if got, want := keys(first), []string{"assignee", "id", "priority", "status", "title", "type"}; !slices.Equal(got, want) {
		t.Errorf("bead fields = %v, want %v", got, want)
	}
	if first["id"] != "adj-1" || first["title"] != "a" || first["status"] != "in_progress" || first["type"] != "bug" ||
		first["priority"] != float64(1) || first["assignee"] != "my-agent" {
		t.Errorf("first = %v", first)
	}
	// Unassigned: no assignee field; a kind from another vocabulary reads as is.
	if got, want := keys(second), []string{"id", "priority", "status", "title", "type"}; !slices.Equal(got, want) {
		t.Errorf("unassigned bead fields = %v, want %v", got, want)
	}
	if second["type"] != "chore" || second["status"] != "open" {
		t.Errorf("second = %v", second)
	}
}

func TestListBeadsOrder(t *testing.T) {
	k := newKit(t)
	a := k.create(map[string]any{"priority": 3})
	b := k.create(map[string]any{"priority": 0})
	c := k.create(map[string]any{"priority": 3})
	d := k.create(map[string]any{"priority": 1})
	e := k.create(map[string]any{"priority": 0})
	f := k.create(map[string]any{"priority": 4})
	g := k.create(map[string]any{"priority": 2})
	out, _ := k.ok("list_beads", nil)
	if got, want := beadIDs(t, out), []string{e, b, d, g, c, a, f}; !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v (priority, then newest, as bd list)", got, want)
	}
}

func TestListBeadsAssigneeAndTypeFilters(t *testing.T) {
	k := newKit(t)
	mine := k.StoreItem(&baton.Item{Kind: baton.KindBug, Assignee: "my-agent"})
	mineTask := k.StoreItem(&baton.Item{Kind: baton.KindTask, Assignee: "my-agent"})
	theirs := k.StoreItem(&baton.Item{Kind: baton.KindBug, Assignee: "other"})
	nobody := k.StoreItem(&baton.Item{Kind: baton.KindEpic})
	feature := k.StoreItem(&baton.Item{Kind: baton.KindFeature})
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"no filter", nil, []string{mine, mineTask, theirs, nobody, feature}},
		{"assignee", map[string]any{"assignee": "my-agent"}, []string{mine, mineTask}},
		{"unassigned", map[string]any{"assignee": "unassigned"}, []string{nobody, feature}},
		{"type bug", map[string]any{"type": "bug"}, []string{mine, theirs}},
		{"type epic", map[string]any{"type": "epic"}, []string{nobody}},
		{"type task", map[string]any{"type": "task"}, []string{mineTask}},
		{"assignee and type", map[string]any{"assignee": "my-agent", "type": "bug"}, []string{mine}},
		{"no match", map[string]any{"assignee": "other", "type": "epic"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := k.on(t)
			out, _ := k.ok("list_beads", tc.args)
			if got := beadIDs(t, out); !sameSet(got, tc.want) {
				t.Errorf("ids = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestListBeadsProject(t *testing.T) {
	k := newKit(t)
	col := k.create(nil)
	k.AddProject("adjutant", "ADJ")
	adj := k.StoreItem(&baton.Item{Project: "adjutant"})
	// Two projects and no session default: the caller must say which.
	e := k.fail("list_beads", nil, baton.ErrInvalidInput)
	if e.Details["field"] != "project" {
		t.Errorf("details = %v", e.Details)
	}
	for slug, want := range map[string]string{testkit.Project: col, "adjutant": adj} {
		out, _ := k.inProject(slug).ok("list_beads", map[string]any{"status": "all"})
		if got := beadIDs(t, out); !slices.Equal(got, []string{want}) {
			t.Errorf("project %s: %v, want [%s]", slug, got, want)
		}
	}
	k.inProject("nope").fail("list_beads", nil, baton.ErrProjectNotFound)
}

// A task made through the tasks tools is a bead: backlog reads as open,
// Colibri's priority names as the canonical numbers.
func TestTasksListAsBeads(t *testing.T) {
	k := newKit(t)
	for _, p := range []string{"critical", "high", "normal", "low"} {
		k.ok("task_create", map[string]any{"title": "task " + p, "project": testkit.Project, "priority": p, "assignee": "my-agent"})
	}
	out, text := k.ok("list_beads", map[string]any{"assignee": "my-agent"})
	want := "[open] COL-1 (task, P0): task critical\n[open] COL-2 (task, P1): task high\n" +
		"[open] COL-3 (task, P2): task normal\n[open] COL-4 (task, P3): task low"
	if text != want || out["count"] != float64(4) {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
	k.ok("task_update", map[string]any{"task_id": "COL-2", "status": "todo"})
	k.ok("task_update", map[string]any{"task_id": "COL-2", "status": "in_progress"})
	k.ok("task_update", map[string]any{"task_id": "COL-2", "status": "review"})
	_, text = k.ok("list_beads", map[string]any{"status": "in_progress"})
	if text != "[in_progress] COL-2 (task, P1): task high" {
		t.Errorf("review as in_progress: %q", text)
	}
}

func TestListBeadsLimits(t *testing.T) {
	k := newKit(t)
	runLimitCases(t, k, []limitCase{
		{"status open", "list_beads", map[string]any{"status": "open"}, "", ""},
		{"status all", "list_beads", map[string]any{"status": "all"}, "", ""},
		{"status blocked", "list_beads", map[string]any{"status": "blocked"}, "status", "enum"},
		{"status todo", "list_beads", map[string]any{"status": "todo"}, "status", "enum"},
		{"status empty", "list_beads", map[string]any{"status": ""}, "status", "enum"},
		{"type feature", "list_beads", map[string]any{"type": "feature"}, "type", "enum"},
		{"type empty", "list_beads", map[string]any{"type": ""}, "type", "enum"},
		{"assignee empty", "list_beads", map[string]any{"assignee": ""}, "assignee", "minLength"},
		{"assignee blank", "list_beads", map[string]any{"assignee": " "}, "assignee", "pattern"},
		{"assignee 128 chars", "list_beads", map[string]any{"assignee": strings.Repeat("a", 128)}, "", ""},
		{"assignee 129 chars", "list_beads", map[string]any{"assignee": strings.Repeat("a", 129)}, "assignee", "maxLength"},
		{"unknown field", "list_beads", map[string]any{"limit": 5}, "limit", "additionalProperties"},
	})
}
