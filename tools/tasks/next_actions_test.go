package tasks_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// blockedEntries maps task_id to blocked_reason of the "blocked" list.
func blockedEntries(t *testing.T, out map[string]any) map[string]string {
	t.Helper()
	list, ok := out["blocked"].([]any)
	if !ok {
		t.Fatalf("blocked is not a list: %#v", out["blocked"])
	}
	m := map[string]string{}
	for _, e := range list {
		b := e.(map[string]any)
		if got := keys(b); !slices.Equal(got, []string{"blocked_reason", "task_id", "title"}) {
			t.Errorf("blocked entry fields = %v", got)
		}
		m[b["task_id"].(string)] = b["blocked_reason"].(string)
	}
	return m
}

func TestNextActionsOnlyReadyTodo(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	todo := createIn(k, "todo", map[string]any{"title": "ready"})
	for _, s := range []string{"backlog", "in_progress", "blocked", "review", "done", "cancelled"} {
		createIn(k, s, map[string]any{"title": s})
	}
	out := k.OK("task_next_actions", map[string]any{})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{todo}) {
		t.Errorf("next_actions = %v, want only the todo task %s", got, todo)
	}
	if num(t, out["count"]) != 1 || out["project"] != "colibri" {
		t.Errorf("count/project = %v/%v, want 1/colibri", out["count"], out["project"])
	}
	if _, ok := out["blocked"]; ok {
		t.Errorf("blocked = %v without include_blocked, want the key absent", out["blocked"])
	}
	if got := keys(out); !slices.Equal(got, []string{"count", "next_actions", "project"}) {
		t.Errorf("output fields = %v", got)
	}
}

func TestNextActionShape(t *testing.T) {
	k := testkit.New(t)
	parent := create(k, map[string]any{"title": "Parent"})
	id := createIn(k, "todo", map[string]any{"title": "Wire it", "priority": "high", "assignee": "agent-bob",
		"estimate_hours": 4, "parent_id": parent})
	plain := createIn(k, "todo", map[string]any{"title": "Plain"})
	out := k.OK("task_next_actions", map[string]any{})
	acts := out["next_actions"].([]any)
	if len(acts) != 2 {
		t.Fatalf("next_actions = %v", acts)
	}
	a := acts[0].(map[string]any)
	want := map[string]any{"task_id": id, "title": "Wire it", "priority": "high", "assignee": "agent-bob",
		"estimate_hours": 4.0, "parent_id": parent, "dependencies_unmet": 0.0}
	for f, v := range want {
		if a[f] != v {
			t.Errorf("%s = %#v, want %#v", f, a[f], v)
		}
	}
	if got := keys(a); !slices.Equal(got, []string{"assignee", "dependencies_unmet", "estimate_hours", "parent_id", "priority", "task_id", "title"}) {
		t.Errorf("fields = %v", got)
	}
	b := acts[1].(map[string]any)
	if b["task_id"] != plain || b["assignee"] != "unassigned" || b["priority"] != "normal" || b["dependencies_unmet"] != 0.0 {
		t.Errorf("second action = %v", b)
	}
	for _, absent := range []string{"estimate_hours", "parent_id"} {
		if _, ok := b[absent]; ok {
			t.Errorf("%s present on a task without one: %v", absent, b)
		}
	}
}

func TestNextActionsOrder(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	low := createIn(k, "todo", map[string]any{"title": "low", "priority": "low"})
	normal1 := createIn(k, "todo", map[string]any{"title": "normal 1"})
	crit := createIn(k, "todo", map[string]any{"title": "critical", "priority": "critical"})
	high1 := createIn(k, "todo", map[string]any{"title": "high 1", "priority": "high"})
	normal2 := createIn(k, "todo", map[string]any{"title": "normal 2"})
	high2 := createIn(k, "todo", map[string]any{"title": "high 2", "priority": "high"})
	// Created last (highest sequence) but the oldest of the high ones, and a
	// canonical-4 item that sorts after low.
	oldest := storeItem(k, &baton.Item{Title: "old high", Status: baton.StatusTodo, Priority: baton.PriorityHigh, CreatedAt: epoch.Add(-time.Hour)})
	backlog := storeItem(k, &baton.Item{Title: "someday", Status: baton.StatusTodo, Priority: baton.PriorityBacklog, CreatedAt: clock.Now()})
	want := []string{crit, oldest, high1, high2, normal1, normal2, low, backlog}

	out := k.OK("task_next_actions", map[string]any{})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v (priority, then age)", got, want)
	}
	for _, limit := range []int{1, 3, 8, 100} {
		out := k.OK("task_next_actions", map[string]any{"limit": limit})
		n := min(limit, len(want))
		if got := ids(t, out, "next_actions"); !slices.Equal(got, want[:n]) {
			t.Errorf("limit %d: %v, want %v", limit, got, want[:n])
		}
		if num(t, out["count"]) != n {
			t.Errorf("limit %d: count = %v, want %d", limit, out["count"], n)
		}
	}
	if p := out["next_actions"].([]any)[7].(map[string]any)["priority"]; p != "low" {
		t.Errorf("canonical-4 priority reads %v, want low", p)
	}
}

func TestNextActionsDefaultLimit(t *testing.T) {
	k := testkit.New(t)
	for i := 0; i < 25; i++ {
		createIn(k, "todo", nil)
	}
	out := k.OK("task_next_actions", map[string]any{})
	if num(t, out["count"]) != 20 || len(ids(t, out, "next_actions")) != 20 {
		t.Errorf("count = %v, want the default limit 20", out["count"])
	}
	if got := ids(t, out, "next_actions"); !slices.Equal(got, seqIDs(20)) {
		t.Errorf("next_actions = %v, want the 20 oldest", got)
	}
}

func TestNextActionsProject(t *testing.T) {
	t.Run("the only project is the default", func(t *testing.T) {
		k := testkit.New(t)
		id := createIn(k, "todo", nil)
		out := k.OK("task_next_actions", map[string]any{})
		if out["project"] != "colibri" || !slices.Equal(ids(t, out, "next_actions"), []string{id}) {
			t.Errorf("output = %v", out)
		}
	})
	t.Run("empty project", func(t *testing.T) {
		k := testkit.New(t)
		out := k.OK("task_next_actions", map[string]any{"include_blocked": true})
		if out["project"] != "colibri" || num(t, out["count"]) != 0 || len(ids(t, out, "next_actions")) != 0 {
			t.Errorf("output = %v, want no actions", out)
		}
		if b, ok := out["blocked"].([]any); !ok || len(b) != 0 {
			t.Errorf("blocked = %#v, want [] with include_blocked", out["blocked"])
		}
	})

	k := testkit.New(t)
	k.AddProject("other", "OTH")
	col := createIn(k, "todo", nil)
	oth := k.OK("task_create", map[string]any{"title": "other", "project": "other"})["task_id"].(string)
	update(k, oth, map[string]any{"status": "todo"})

	t.Run("two projects and no default", func(t *testing.T) {
		e := fail(on(k, t), "task_next_actions", map[string]any{}, baton.ErrInvalidInput)
		if e.Details["field"] != "project" || e.Details["constraint"] != "required" {
			t.Errorf("details = %v, want field project, constraint required", e.Details)
		}
		if !strings.Contains(e.Message, "project") || e.Hint == "" {
			t.Errorf("message %q hint %q", e.Message, e.Hint)
		}
	})
	t.Run("named project", func(t *testing.T) {
		for project, want := range map[string]string{"colibri": col, "other": oth} {
			out := on(k, t).OK("task_next_actions", map[string]any{"project": project})
			if out["project"] != project || !slices.Equal(ids(t, out, "next_actions"), []string{want}) {
				t.Errorf("project %s: %v", project, out)
			}
		}
	})
	t.Run("session project", func(t *testing.T) {
		kk := on(k, t)
		kk.Principal.Project = "colibri"
		out := kk.OK("task_next_actions", map[string]any{})
		if out["project"] != "colibri" || !slices.Equal(ids(t, out, "next_actions"), []string{col}) {
			t.Errorf("output = %v", out)
		}
		kk.Principal.Project = "other"
		out = kk.OK("task_next_actions", map[string]any{})
		if out["project"] != "other" || !slices.Equal(ids(t, out, "next_actions"), []string{oth}) {
			t.Errorf("output = %v", out)
		}
		// A named project wins over the session's.
		out = kk.OK("task_next_actions", map[string]any{"project": "colibri"})
		if out["project"] != "colibri" {
			t.Errorf("project = %v, want the named colibri", out["project"])
		}
	})
	t.Run("unknown project", func(t *testing.T) {
		e := fail(on(k, t), "task_next_actions", map[string]any{"project": "nope"}, baton.ErrProjectNotFound)
		if e.Details["project"] != "nope" {
			t.Errorf("details = %v", e.Details)
		}
		kk := on(k, t)
		kk.Principal.Project = "gone"
		fail(kk, "task_next_actions", map[string]any{}, baton.ErrProjectNotFound)
	})
}

func TestNextActionsDependencies(t *testing.T) {
	k := testkit.New(t)
	dep := createIn(k, "todo", map[string]any{"title": "foundation"})  // COL-1
	waiter := createIn(k, "todo", map[string]any{"title": "building"}) // COL-2
	k.Depend(waiter, dep)

	out := k.OK("task_next_actions", map[string]any{})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{dep}) {
		t.Errorf("next_actions = %v, want only %s", got, dep)
	}
	if _, ok := out["blocked"]; ok {
		t.Errorf("blocked present without include_blocked")
	}
	out = k.OK("task_next_actions", map[string]any{"include_blocked": true})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{dep}) {
		t.Errorf("next_actions = %v, want only %s", got, dep)
	}
	b := blockedEntries(t, out)
	if len(b) != 1 || !strings.Contains(b[waiter], dep) {
		t.Errorf("blocked = %v, want %s with a reason naming %s", b, waiter, dep)
	}

	// Unfinished in any way still holds it back.
	for _, s := range []string{"in_progress", "review"} {
		update(k, dep, map[string]any{"status": s})
		if got := ids(t, k.OK("task_next_actions", map[string]any{}), "next_actions"); slices.Contains(got, waiter) {
			t.Errorf("dependency in %s: %s is a next action", s, waiter)
		}
	}
	update(k, dep, map[string]any{"status": "done"})
	out = k.OK("task_next_actions", map[string]any{"include_blocked": true})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{waiter}) {
		t.Fatalf("next_actions = %v, want %s once its dependency is done", got, waiter)
	}
	if u := out["next_actions"].([]any)[0].(map[string]any)["dependencies_unmet"]; u != 0.0 {
		t.Errorf("dependencies_unmet = %v, want 0", u)
	}
	if b := blockedEntries(t, out); len(b) != 0 {
		t.Errorf("blocked = %v, want none", b)
	}
}

func TestNextActionsCancelledDependencyReleases(t *testing.T) {
	k := testkit.New(t)
	dep := createIn(k, "todo", nil)
	waiter := createIn(k, "todo", nil)
	k.Depend(waiter, dep)
	update(k, dep, map[string]any{"status": "cancelled"})
	if got := ids(t, k.OK("task_next_actions", map[string]any{}), "next_actions"); !slices.Equal(got, []string{waiter}) {
		t.Errorf("next_actions = %v, want %s (a cancelled dependency is finished)", got, waiter)
	}
}

func TestNextActionsSeveralDependencies(t *testing.T) {
	k := testkit.New(t)
	a := createIn(k, "todo", nil)
	b := create(k, nil) // backlog: unfinished
	c := createIn(k, "todo", nil)
	k.Depend(c, a)
	k.Depend(c, b)
	out := k.OK("task_next_actions", map[string]any{"include_blocked": true})
	reason := blockedEntries(t, out)[c]
	if !strings.Contains(reason, a) || !strings.Contains(reason, b) {
		t.Errorf("reason %q does not name both %s and %s", reason, a, b)
	}
	update(k, a, map[string]any{"status": "cancelled"})
	reason = blockedEntries(t, k.OK("task_next_actions", map[string]any{"include_blocked": true}))[c]
	if strings.Contains(reason, a) || !strings.Contains(reason, b) {
		t.Errorf("reason %q: want only %s named once %s is cancelled", reason, b, a)
	}
}

func TestNextActionsSubtasks(t *testing.T) {
	k := testkit.New(t)
	parent := createIn(k, "todo", map[string]any{"title": "parent"})
	child := create(k, map[string]any{"title": "child", "parent_id": parent}) // backlog

	out := k.OK("task_next_actions", map[string]any{"include_blocked": true})
	if got := ids(t, out, "next_actions"); len(got) != 0 {
		t.Errorf("next_actions = %v, want none: the parent waits on its subtask, the subtask is in backlog", got)
	}
	if b := blockedEntries(t, out); len(b) != 1 || !strings.Contains(b[parent], child) {
		t.Errorf("blocked = %v, want %s with a reason naming %s", b, parent, child)
	}

	update(k, child, map[string]any{"status": "todo"})
	out = k.OK("task_next_actions", map[string]any{"include_blocked": true})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{child}) {
		t.Errorf("next_actions = %v, want the subtask %s", got, child)
	}
	if p := out["next_actions"].([]any)[0].(map[string]any)["parent_id"]; p != parent {
		t.Errorf("parent_id = %v, want %s", p, parent)
	}
	if _, held := blockedEntries(t, out)[parent]; !held {
		t.Errorf("parent not held back while its subtask is todo")
	}

	update(k, child, map[string]any{"status": "in_progress"})
	update(k, child, map[string]any{"status": "review"})
	update(k, child, map[string]any{"status": "done"})
	out = k.OK("task_next_actions", map[string]any{"include_blocked": true})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{parent}) {
		t.Errorf("next_actions = %v, want the parent %s once its subtask is done", got, parent)
	}
	if b := blockedEntries(t, out); len(b) != 0 {
		t.Errorf("blocked = %v, want none", b)
	}
}

func TestNextActionsBlockedTasks(t *testing.T) {
	k := testkit.New(t)
	ready := createIn(k, "todo", map[string]any{"title": "ready"})
	blocked := create(k, map[string]any{"title": "stuck"})
	update(k, blocked, map[string]any{"status": "todo"})
	update(k, blocked, map[string]any{"status": "blocked", "blocked_reason": "waiting for API keys"})

	out := k.OK("task_next_actions", map[string]any{})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{ready}) {
		t.Errorf("next_actions = %v, want %s", got, ready)
	}
	if _, ok := out["blocked"]; ok {
		t.Errorf("blocked = %v without include_blocked, want the key absent", out["blocked"])
	}
	out = k.OK("task_next_actions", map[string]any{"include_blocked": false})
	if _, ok := out["blocked"]; ok {
		t.Errorf("blocked present with include_blocked false")
	}
	out = k.OK("task_next_actions", map[string]any{"include_blocked": true})
	if got := ids(t, out, "next_actions"); !slices.Equal(got, []string{ready}) {
		t.Errorf("next_actions = %v, want %s", got, ready)
	}
	list := out["blocked"].([]any)
	if len(list) != 1 {
		t.Fatalf("blocked = %v", list)
	}
	entry := list[0].(map[string]any)
	if entry["task_id"] != blocked || entry["title"] != "stuck" || entry["blocked_reason"] != "waiting for API keys" {
		t.Errorf("blocked entry = %v", entry)
	}
	if num(t, out["count"]) != 1 {
		t.Errorf("count = %v: blocked tasks are not counted", out["count"])
	}

	// The blocked list is not cut by limit.
	for i := 0; i < 3; i++ {
		createIn(k, "blocked", nil)
	}
	out = k.OK("task_next_actions", map[string]any{"include_blocked": true, "limit": 1})
	if b := blockedEntries(t, out); len(b) != 4 {
		t.Errorf("blocked has %d entries with limit 1, want all 4", len(b))
	}

	// Unblocking makes it a next action again.
	update(k, blocked, map[string]any{"status": "todo"})
	out = k.OK("task_next_actions", map[string]any{"include_blocked": true})
	if got := ids(t, out, "next_actions"); !slices.Contains(got, blocked) {
		t.Errorf("next_actions = %v, want %s after unblocking", got, blocked)
	}
}

func TestNextActionsBlockedAndWaiting(t *testing.T) {
	k := testkit.New(t)
	dep := create(k, nil)
	id := createIn(k, "blocked", nil)
	k.Depend(id, dep)
	reason := blockedEntries(t, k.OK("task_next_actions", map[string]any{"include_blocked": true}))[id]
	if !strings.Contains(reason, "waiting for credentials") || !strings.Contains(reason, dep) {
		t.Errorf("reason %q: want both the blocked_reason and the dependency %s", reason, dep)
	}
}
