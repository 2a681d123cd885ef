package tasks_test

import (
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestCreateOutput(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	for i := 1; i <= 3; i++ {
		out := k.OK("task_create", map[string]any{
			"title": "Wire up task_create MCP handler", "project": "colibri", "priority": "high",
			"labels": []string{"phase-0", "mcp"}, "estimate_hours": 4,
		})
		if got, want := keys(out), []string{"created_at", "created_by", "sequence", "status", "task_id"}; !slices.Equal(got, want) {
			t.Fatalf("output fields = %v, want %v", got, want)
		}
		if want := seqIDs(i)[i-1]; out["task_id"] != want {
			t.Errorf("task_id = %v, want %s", out["task_id"], want)
		}
		if num(t, out["sequence"]) != i {
			t.Errorf("sequence = %v, want %d", out["sequence"], i)
		}
		if out["status"] != "backlog" {
			t.Errorf("status = %v, want backlog", out["status"])
		}
		if out["created_by"] != "agent-alice" {
			t.Errorf("created_by = %v, want agent-alice", out["created_by"])
		}
		if at := parseStamp(t, out["created_at"]); !at.Equal(clock.Peek()) {
			t.Errorf("created_at = %v, want the call's time %v", at, clock.Peek())
		}
	}
}

func TestCreateSequenceIsPerProject(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	for _, tc := range []struct {
		project, id string
		seq         int
	}{
		{"colibri", "COL-1", 1},
		{"other", "OTH-1", 1},
		{"colibri", "COL-2", 2},
		{"other", "OTH-2", 2},
		{"other", "OTH-3", 3},
		{"colibri", "COL-3", 3},
	} {
		out := k.OK("task_create", map[string]any{"title": "t", "project": tc.project})
		if out["task_id"] != tc.id || num(t, out["sequence"]) != tc.seq {
			t.Errorf("create in %s = %v/%v, want %s/%d", tc.project, out["task_id"], out["sequence"], tc.id, tc.seq)
		}
	}
}

func TestCreateErrors(t *testing.T) {
	k := testkit.New(t)
	create(k, nil) // COL-1

	e := fail(k, "task_create", map[string]any{"title": "t", "project": "nope"}, baton.ErrProjectNotFound)
	if e.Details["project"] != "nope" {
		t.Errorf("details = %v, want project nope", e.Details)
	}
	e = fail(k, "task_create", map[string]any{"title": "t", "project": "colibri", "parent_id": "COL-99"}, baton.ErrTaskNotFound)
	if e.Details["task_id"] != "COL-99" {
		t.Errorf("details = %v, want task_id COL-99", e.Details)
	}
	fail(k, "task_create", map[string]any{"title": "", "project": "colibri"}, baton.ErrInvalidInput)
	fail(k, "task_create", map[string]any{"title": "t", "project": "colibri", "created_by": "mallory"}, baton.ErrInvalidInput)

	// A sub-task lives in its parent's project.
	k.AddProject("other", "OTH")
	e = fail(k, "task_create", map[string]any{"title": "t", "project": "other", "parent_id": "COL-1"}, baton.ErrInvalidInput)
	if e.Details["field"] != "parent_id" {
		t.Errorf("details = %v, want field parent_id", e.Details)
	}

	// None of the failed calls used up a number.
	out := k.OK("task_create", map[string]any{"title": "t", "project": "colibri"})
	if out["task_id"] != "COL-2" || num(t, out["sequence"]) != 2 {
		t.Errorf("after failed creates got %v/%v, want COL-2/2", out["task_id"], out["sequence"])
	}
	list := k.OK("task_list", map[string]any{})
	if got := ids(t, list, "tasks"); len(got) != 2 {
		t.Errorf("tasks after failed creates = %v, want only COL-1 and COL-2", got)
	}
}

func TestCreateDefaults(t *testing.T) {
	k := testkit.New(t)
	id := create(k, map[string]any{"title": "Only a title"})
	got := get(k, id)
	want := map[string]any{
		"task_id": id, "title": "Only a title", "description": "", "project": "colibri",
		"status": "backlog", "priority": "normal", "progress": 0.0, "assignee": "unassigned",
		"created_by": "agent-alice", "updated_by": "agent-alice",
	}
	for f, v := range want {
		if got[f] != v {
			t.Errorf("%s = %#v, want %#v", f, got[f], v)
		}
	}
	if l, ok := got["labels"].([]any); !ok || len(l) != 0 {
		t.Errorf("labels = %#v, want []", got["labels"])
	}
	for _, absent := range []string{"estimate_hours", "parent_id", "blocked_reason", "thought_trail", "dependents"} {
		if v, ok := got[absent]; ok {
			t.Errorf("%s = %v, want it absent", absent, v)
		}
	}
	if got["created_at"] != got["updated_at"] {
		t.Errorf("created_at %v != updated_at %v on a new task", got["created_at"], got["updated_at"])
	}

	// Assigning "unassigned" explicitly is the same as leaving it out.
	id2 := create(k, map[string]any{"assignee": "unassigned"})
	if a := get(k, id2)["assignee"]; a != "unassigned" {
		t.Errorf("assignee = %v, want unassigned", a)
	}
	list := k.OK("task_list", map[string]any{"assignee": "unassigned"})
	if got := ids(t, list, "tasks"); len(got) != 2 {
		t.Errorf("unassigned tasks = %v, want both", got)
	}
}

func TestGetAllFields(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	parent := create(k, map[string]any{"title": "Parent"})
	id := create(k, map[string]any{
		"title": "Wire up task_create MCP handler", "description": "Implement P0.3.2\n\n- validate\n- store",
		"priority": "high", "labels": []string{"phase-0", "mcp", "backend"}, "assignee": "agent-bob",
		"estimate_hours": 4.5, "parent_id": parent,
	})
	createdAt := clock.Peek()
	update(k.As("agent-carol"), id, map[string]any{"status": "todo"})
	update(k.As("agent-carol"), id, map[string]any{"status": "blocked", "blocked_reason": "needs the schema", "progress": 45})
	updatedAt := clock.Peek()

	got := get(k, id)
	want := map[string]any{
		"task_id": "COL-2", "title": "Wire up task_create MCP handler", "description": "Implement P0.3.2\n\n- validate\n- store",
		"project": "colibri", "status": "blocked", "priority": "high", "progress": 45.0, "assignee": "agent-bob",
		"estimate_hours": 4.5, "created_by": "agent-alice", "updated_by": "agent-carol",
		"parent_id": parent, "blocked_reason": "needs the schema",
	}
	for f, v := range want {
		if got[f] != v {
			t.Errorf("%s = %#v, want %#v", f, got[f], v)
		}
	}
	if l := got["labels"].([]any); len(l) != 3 || l[0] != "phase-0" || l[1] != "mcp" || l[2] != "backend" {
		t.Errorf("labels = %v, want [phase-0 mcp backend] in order", l)
	}
	if at := parseStamp(t, got["created_at"]); !at.Equal(createdAt) {
		t.Errorf("created_at = %v, want %v", at, createdAt)
	}
	if at := parseStamp(t, got["updated_at"]); !at.Equal(updatedAt) {
		t.Errorf("updated_at = %v, want %v", at, updatedAt)
	}
	wantKeys := []string{"assignee", "blocked_reason", "created_at", "created_by", "description", "estimate_hours",
		"labels", "parent_id", "priority", "progress", "project", "status", "task_id", "title", "updated_at", "updated_by"}
	if got := keys(got); !slices.Equal(got, wantKeys) {
		t.Errorf("fields = %v, want %v", got, wantKeys)
	}
}

func TestGetDependentsAndThoughtTrail(t *testing.T) {
	k := testkit.New(t)
	parent := create(k, map[string]any{"title": "Parent"})
	other := create(k, map[string]any{"title": "Unrelated"})
	c1 := create(k, map[string]any{"title": "Child 1", "parent_id": parent})
	c2 := create(k, map[string]any{"title": "Child 2", "parent_id": parent})
	grandchild := create(k, map[string]any{"title": "Grandchild", "parent_id": c1})

	out := k.OK("task_get", map[string]any{"task_id": parent, "include_dependents": true})
	if d, ok := out["dependents"].([]any); !ok || len(d) != 2 || d[0] != c1 || d[1] != c2 {
		t.Errorf("dependents of %s = %#v, want [%s %s] (direct children, oldest first)", parent, out["dependents"], c1, c2)
	}
	if _, ok := out["thought_trail"]; ok {
		t.Errorf("thought_trail present without include_thought_trail: %v", out["thought_trail"])
	}
	out = k.OK("task_get", map[string]any{"task_id": c1, "include_dependents": true})
	if d, ok := out["dependents"].([]any); !ok || len(d) != 1 || d[0] != grandchild {
		t.Errorf("dependents of %s = %#v, want [%s]", c1, out["dependents"], grandchild)
	}
	if out["parent_id"] != parent {
		t.Errorf("parent_id of %s = %v, want %s", c1, out["parent_id"], parent)
	}
	out = k.OK("task_get", map[string]any{"task_id": other, "include_dependents": true})
	if d, ok := out["dependents"].([]any); !ok || len(d) != 0 {
		t.Errorf("dependents of a childless task = %#v, want []", out["dependents"])
	}
	out = k.OK("task_get", map[string]any{"task_id": parent, "include_thought_trail": true})
	if tt, ok := out["thought_trail"].([]any); !ok || len(tt) != 0 {
		t.Errorf("thought_trail = %#v, want []", out["thought_trail"])
	}
	if _, ok := out["dependents"]; ok {
		t.Errorf("dependents present without include_dependents: %v", out["dependents"])
	}
}

func TestGetUnknownTask(t *testing.T) {
	k := testkit.New(t)
	create(k, nil)
	for _, id := range []string{"COL-2", "col-1", "T-0001", "OTH-1"} {
		e := fail(k, "task_get", map[string]any{"task_id": id}, baton.ErrTaskNotFound)
		if e.Details["task_id"] != id {
			t.Errorf("details = %v, want task_id %s", e.Details, id)
		}
		if e.Hint == "" {
			t.Errorf("%s: no next_action_hint", id)
		}
	}
}

func TestIdentityComesFromThePrincipal(t *testing.T) {
	k := testkit.New(t)
	out := k.OK("task_create", map[string]any{"title": "t", "project": "colibri"})
	id := out["task_id"].(string)
	if out["created_by"] != "agent-alice" {
		t.Errorf("created_by = %v, want agent-alice", out["created_by"])
	}
	bob := k.As("agent-bob")
	up := update(bob, id, map[string]any{"status": "todo"})
	if up["updated_by"] != "agent-bob" {
		t.Errorf("update output updated_by = %v, want agent-bob", up["updated_by"])
	}
	got := get(k, id)
	if got["created_by"] != "agent-alice" || got["updated_by"] != "agent-bob" {
		t.Errorf("created_by/updated_by = %v/%v, want agent-alice/agent-bob", got["created_by"], got["updated_by"])
	}
	// Bob's own task is his; Alice's later update makes her the updater.
	bobs := bob.OK("task_create", map[string]any{"title": "t", "project": "colibri"})
	if bobs["created_by"] != "agent-bob" {
		t.Errorf("created_by = %v, want agent-bob", bobs["created_by"])
	}
	update(k, id, map[string]any{"progress": 5})
	got = get(k, id)
	if got["created_by"] != "agent-alice" || got["updated_by"] != "agent-alice" {
		t.Errorf("created_by/updated_by = %v/%v, want agent-alice/agent-alice", got["created_by"], got["updated_by"])
	}
	// Arguments cannot claim another identity.
	e := fail(bob, "task_update", map[string]any{"task_id": id, "progress": 6, "updated_by": "agent-alice"}, baton.ErrInvalidInput)
	checkInvalid(t, e, "updated_by", "additionalProperties")
	if got := get(k, id); got["updated_by"] != "agent-alice" || got["progress"] != 5.0 {
		t.Errorf("rejected update changed the task: %v", got)
	}
}
