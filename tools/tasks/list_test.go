package tasks_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// listFixture creates, one second apart from epoch+1s:
//
//	COL-1 "Wire up task_create handler"  high     agent-bob   [mcp backend]  in_progress
//	COL-2 "Write tests"                  normal   unassigned  [tests]        todo
//	COL-3 "Fix the flaky build"          critical agent-carol [ci backend]   cancelled
//	COL-4 "Document the API"             low      unassigned  []             backlog
//	COL-5 "Someday maybe"                (canonical 4, reads low)            backlog
//	OTH-1 "Other project task"           normal   unassigned  []             backlog (project other)
func listFixture(t *testing.T) (*testkit.Kit, *testkit.Clock) {
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	clock := withClock(k, time.Second)
	create(k, map[string]any{"title": "Wire up task_create handler", "description": "Implement the MCP handler",
		"priority": "high", "assignee": "agent-bob", "labels": []string{"mcp", "backend"}})
	create(k, map[string]any{"title": "Write tests", "description": "table tests for the wiring", "labels": []string{"tests"}})
	create(k, map[string]any{"title": "Fix the flaky build", "description": "CI fails at random",
		"priority": "critical", "assignee": "agent-carol", "labels": []string{"ci", "backend"}})
	create(k, map[string]any{"title": "Document the API", "priority": "low"})
	storeItem(k, &baton.Item{Title: "Someday maybe", Priority: baton.PriorityBacklog, CreatedAt: clock.Now(), Labels: []string{}})
	k.OK("task_create", map[string]any{"title": "Other project task", "project": "other"})
	update(k, "COL-1", map[string]any{"status": "todo"})
	update(k, "COL-1", map[string]any{"status": "in_progress"})
	update(k, "COL-2", map[string]any{"status": "todo"})
	update(k, "COL-3", map[string]any{"status": "cancelled"})
	return k, clock
}

// at is the creation time of the fixture's n-th item (1-based, OTH-1 is 6).
func at(n int) string { return epoch.Add(time.Duration(n) * time.Second).Format(time.RFC3339) }

func TestListFilters(t *testing.T) {
	k, _ := listFixture(t)
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string // sorted by created asc
	}{
		{"no filter", map[string]any{}, []string{"COL-1", "COL-2", "COL-3", "COL-4", "COL-5", "OTH-1"}},
		{"project", map[string]any{"project": "colibri"}, []string{"COL-1", "COL-2", "COL-3", "COL-4", "COL-5"}},
		{"other project", map[string]any{"project": "other"}, []string{"OTH-1"}},
		{"one status", map[string]any{"status": []string{"backlog"}}, []string{"COL-4", "COL-5", "OTH-1"}},
		{"several statuses", map[string]any{"status": []string{"todo", "in_progress"}}, []string{"COL-1", "COL-2"}},
		{"status with no match", map[string]any{"status": []string{"review", "done"}}, []string{}},
		{"empty status list filters nothing", map[string]any{"project": "colibri", "status": []string{}}, []string{"COL-1", "COL-2", "COL-3", "COL-4", "COL-5"}},
		{"priority low includes canonical backlog", map[string]any{"priority": []string{"low"}}, []string{"COL-4", "COL-5"}},
		{"priority normal", map[string]any{"priority": []string{"normal"}}, []string{"COL-2", "OTH-1"}},
		{"several priorities", map[string]any{"priority": []string{"critical", "high"}}, []string{"COL-1", "COL-3"}},
		{"assignee", map[string]any{"assignee": "agent-bob"}, []string{"COL-1"}},
		{"assignee unassigned", map[string]any{"assignee": "unassigned"}, []string{"COL-2", "COL-4", "COL-5", "OTH-1"}},
		{"assignee nobody has", map[string]any{"assignee": "agent-zed"}, []string{}},
		{"label", map[string]any{"label": "backend"}, []string{"COL-1", "COL-3"}},
		{"label one task has", map[string]any{"label": "tests"}, []string{"COL-2"}},
		{"label nobody has", map[string]any{"label": "frontend"}, []string{}},
		{"created_after", map[string]any{"created_after": at(3)}, []string{"COL-4", "COL-5", "OTH-1"}},
		{"created_before", map[string]any{"created_before": at(3)}, []string{"COL-1", "COL-2"}},
		{"created between", map[string]any{"created_after": at(1), "created_before": at(5)}, []string{"COL-2", "COL-3", "COL-4"}},
		{"created_after with an offset", map[string]any{"created_after": epoch.Add(3 * time.Second).In(time.FixedZone("CEST", 2*3600)).Format(time.RFC3339)}, []string{"COL-4", "COL-5", "OTH-1"}},
		{"created_after with fractional seconds", map[string]any{"created_after": epoch.Add(5500 * time.Millisecond).Format(time.RFC3339Nano)}, []string{"OTH-1"}},
		{"search title prefix", map[string]any{"search": "wir"}, []string{"COL-1", "COL-2"}},
		{"search title word", map[string]any{"search": "flaky"}, []string{"COL-3"}},
		{"search description only", map[string]any{"search": "random"}, []string{"COL-3"}},
		{"search any case", map[string]any{"search": "HANDLER"}, []string{"COL-1"}},
		{"search every word must match", map[string]any{"search": "flaky build"}, []string{"COL-3"}},
		{"search words from title and description", map[string]any{"search": "fix random"}, []string{"COL-3"}},
		{"search words that never meet", map[string]any{"search": "flaky tests"}, []string{}},
		{"search no match", map[string]any{"search": "kubernetes"}, []string{}},
		{"search operators (point 16)", map[string]any{"search": "flaky OR handler NOT \"table tests\""}, []string{"COL-1", "COL-3"}},
		{"combined", map[string]any{"project": "colibri", "label": "backend", "status": []string{"in_progress", "cancelled"}, "priority": []string{"critical"}}, []string{"COL-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := on(k, t)
			args := map[string]any{"sort_by": "created", "sort_order": "asc"}
			for key, v := range tc.args {
				args[key] = v
			}
			out := k.OK("task_list", args)
			got := ids(t, out, "tasks")
			if !slices.Equal(got, tc.want) {
				t.Errorf("tasks = %v, want %v", got, tc.want)
			}
			if num(t, out["total_count"]) != len(tc.want) || num(t, out["returned_count"]) != len(tc.want) {
				t.Errorf("total_count/returned_count = %v/%v, want %d", out["total_count"], out["returned_count"], len(tc.want))
			}
		})
	}
}

func TestListTaskShape(t *testing.T) {
	k, _ := listFixture(t)
	out := k.OK("task_list", map[string]any{"project": "colibri", "assignee": "agent-bob"})
	tasks := out["tasks"].([]any)
	if len(tasks) != 1 {
		t.Fatalf("tasks = %v", tasks)
	}
	task := tasks[0].(map[string]any)
	want := map[string]any{"task_id": "COL-1", "title": "Wire up task_create handler", "project": "colibri",
		"status": "in_progress", "priority": "high", "progress": 0.0, "assignee": "agent-bob"}
	for f, v := range want {
		if task[f] != v {
			t.Errorf("%s = %#v, want %#v", f, task[f], v)
		}
	}
	wantKeys := []string{"assignee", "created_at", "priority", "progress", "project", "status", "task_id", "title", "updated_at"}
	if got := keys(task); !slices.Equal(got, wantKeys) {
		t.Errorf("fields = %v, want %v", got, wantKeys)
	}
	if c := parseStamp(t, task["created_at"]); !c.Equal(epoch.Add(time.Second)) {
		t.Errorf("created_at = %v, want %v", c, epoch.Add(time.Second))
	}
	if u := parseStamp(t, task["updated_at"]); !u.After(parseStamp(t, task["created_at"])) {
		t.Errorf("updated_at %v not after created_at %v", u, task["created_at"])
	}
	// Canonical priority 4 reads as low, in the list as in task_get.
	out = k.OK("task_list", map[string]any{"search": "someday"})
	if p := out["tasks"].([]any)[0].(map[string]any)["priority"]; p != "low" {
		t.Errorf("priority of a canonical-4 item = %v, want low", p)
	}
	if p := get(k, "COL-5")["priority"]; p != "low" {
		t.Errorf("task_get priority of a canonical-4 item = %v, want low", p)
	}
}

func TestListErrors(t *testing.T) {
	k, _ := listFixture(t)
	e := fail(k, "task_list", map[string]any{"project": "nope"}, baton.ErrProjectNotFound)
	if e.Details["project"] != "nope" {
		t.Errorf("details = %v", e.Details)
	}
	for _, tc := range []struct{ field, value string }{
		{"created_after", "yesterday"},
		{"created_after", "2026-04-08"},
		{"created_before", "2026-04-08 22:15:30"},
		{"created_before", "2026-13-01T00:00:00Z"},
	} {
		e := fail(k, "task_list", map[string]any{tc.field: tc.value}, baton.ErrInvalidInput)
		checkInvalid(t, e, tc.field, "format")
	}
}

func TestListSorting(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	// Created A..D in order; updated D, A, C, B in order.
	for _, p := range []string{"high", "low", "critical", "normal"} {
		create(k, map[string]any{"priority": p})
	}
	const A, B, C, D = "COL-1", "COL-2", "COL-3", "COL-4"
	update(k, D, map[string]any{"progress": 20})
	update(k, A, map[string]any{"progress": 90})
	update(k, C, map[string]any{"progress": 40})
	update(k, B, map[string]any{"progress": 70})
	for _, tc := range []struct {
		sortBy, order string
		want          []string
	}{
		{"created", "asc", []string{A, B, C, D}},
		{"created", "desc", []string{D, C, B, A}},
		{"updated", "asc", []string{D, A, C, B}},
		{"updated", "desc", []string{B, C, A, D}},
		{"priority", "desc", []string{C, A, D, B}}, // critical, high, normal, low
		{"priority", "asc", []string{B, D, A, C}},
		{"progress", "asc", []string{D, C, B, A}}, // 20, 40, 70, 90
		{"progress", "desc", []string{A, B, C, D}},
		{"", "", []string{B, C, A, D}},        // default: updated desc
		{"created", "", []string{D, C, B, A}}, // default order: desc
		{"", "asc", []string{D, A, C, B}},     // default key: updated
	} {
		t.Run(tc.sortBy+"_"+tc.order, func(t *testing.T) {
			args := map[string]any{}
			if tc.sortBy != "" {
				args["sort_by"] = tc.sortBy
			}
			if tc.order != "" {
				args["sort_order"] = tc.order
			}
			if got := ids(t, on(k, t).OK("task_list", args), "tasks"); !slices.Equal(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestListPriorityOrderWithCanonicalBacklog(t *testing.T) {
	k := testkit.New(t)
	storeItem(k, &baton.Item{Title: "someday", Priority: baton.PriorityBacklog})
	create(k, map[string]any{"priority": "low"})
	create(k, map[string]any{"priority": "critical"})
	out := k.OK("task_list", map[string]any{"sort_by": "priority", "sort_order": "desc"})
	if got := ids(t, out, "tasks"); got[0] != "COL-3" || got[2] != "COL-1" {
		t.Errorf("priority desc = %v, want critical COL-3 first and canonical-4 COL-1 last", got)
	}
	out = k.OK("task_list", map[string]any{"sort_by": "priority", "sort_order": "asc"})
	if got := ids(t, out, "tasks"); got[0] != "COL-1" || got[2] != "COL-3" {
		t.Errorf("priority asc = %v, want canonical-4 COL-1 first and critical COL-3 last", got)
	}
}

func TestListDefaultsAndPagination(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	for i := 1; i <= 60; i++ {
		create(k, map[string]any{"title": fmt.Sprintf("task %d", i)})
	}
	out := k.OK("task_list", map[string]any{})
	if num(t, out["limit"]) != 50 || num(t, out["offset"]) != 0 {
		t.Errorf("limit/offset = %v/%v, want defaults 50/0", out["limit"], out["offset"])
	}
	if num(t, out["total_count"]) != 60 || num(t, out["returned_count"]) != 50 {
		t.Errorf("total_count/returned_count = %v/%v, want 60/50", out["total_count"], out["returned_count"])
	}
	if got := ids(t, out, "tasks"); got[0] != "COL-60" || got[49] != "COL-11" {
		t.Errorf("default order starts %s ends %s, want newest first: COL-60 ... COL-11", got[0], got[49])
	}
	if got := keys(out); !slices.Equal(got, []string{"limit", "offset", "returned_count", "tasks", "total_count"}) {
		t.Errorf("output fields = %v", got)
	}

	for _, tc := range []struct {
		offset, limit, returned int
		first                   string
	}{
		{0, 7, 7, "COL-1"},
		{7, 7, 7, "COL-8"},
		{56, 7, 4, "COL-57"},
		{59, 7, 1, "COL-60"},
		{60, 7, 0, ""},
		{1000, 500, 0, ""},
		{0, 500, 60, "COL-1"},
	} {
		out := k.OK("task_list", map[string]any{"sort_by": "created", "sort_order": "asc", "offset": tc.offset, "limit": tc.limit})
		got := ids(t, out, "tasks")
		if num(t, out["offset"]) != tc.offset || num(t, out["limit"]) != tc.limit {
			t.Errorf("offset/limit echoed %v/%v, want %d/%d", out["offset"], out["limit"], tc.offset, tc.limit)
		}
		if num(t, out["total_count"]) != 60 || num(t, out["returned_count"]) != tc.returned || len(got) != tc.returned {
			t.Errorf("offset %d limit %d: total %v returned %v (%d tasks), want 60/%d", tc.offset, tc.limit, out["total_count"], out["returned_count"], len(got), tc.returned)
		}
		if tc.returned > 0 && got[0] != tc.first {
			t.Errorf("offset %d: first = %s, want %s", tc.offset, got[0], tc.first)
		}
	}
	// total_count counts every match of the filter, not the table.
	out = k.OK("task_list", map[string]any{"search": "task", "status": []string{"todo"}, "limit": 1})
	if num(t, out["total_count"]) != 0 || num(t, out["returned_count"]) != 0 {
		t.Errorf("filtered count = %v/%v, want 0/0", out["total_count"], out["returned_count"])
	}
	update(k, "COL-3", map[string]any{"status": "todo"})
	update(k, "COL-9", map[string]any{"status": "todo"})
	update(k, "COL-27", map[string]any{"status": "todo"})
	out = k.OK("task_list", map[string]any{"status": []string{"todo"}, "limit": 2})
	if num(t, out["total_count"]) != 3 || num(t, out["returned_count"]) != 2 {
		t.Errorf("filtered count = %v/%v, want 3/2", out["total_count"], out["returned_count"])
	}
}

// With every timestamp, priority and progress tied, walking the pages in
// any order still yields every task exactly once.
func TestListPagesAreStable(t *testing.T) {
	k := testkit.New(t)
	withClock(k, 0) // time stands still: every task ties on created and updated
	const n = 23
	for i := 0; i < n; i++ {
		create(k, nil)
	}
	for _, sortBy := range []string{"created", "updated", "priority", "progress"} {
		for _, order := range []string{"asc", "desc"} {
			for _, limit := range []int{1, 4, 10} {
				t.Run(fmt.Sprintf("%s_%s_limit_%d", sortBy, order, limit), func(t *testing.T) {
					k := on(k, t)
					seen := map[string]int{}
					var walk []string
					for offset := 0; offset < n+limit; offset += limit {
						out := k.OK("task_list", map[string]any{"sort_by": sortBy, "sort_order": order, "limit": limit, "offset": offset})
						if num(t, out["total_count"]) != n {
							t.Fatalf("total_count = %v, want %d", out["total_count"], n)
						}
						for _, id := range ids(t, out, "tasks") {
							seen[id]++
							walk = append(walk, id)
						}
					}
					if len(walk) != n || len(seen) != n {
						t.Errorf("walked %d tasks, %d distinct, want %d each: %v", len(walk), len(seen), n, walk)
					}
					// The walk is the same as the single page.
					whole := ids(t, k.OK("task_list", map[string]any{"sort_by": sortBy, "sort_order": order, "limit": 500}), "tasks")
					if !slices.Equal(walk, whole) {
						t.Errorf("paged walk %v differs from one page %v", walk, whole)
					}
				})
			}
		}
	}
}

func TestListSearchFollowsUpdates(t *testing.T) {
	k := testkit.New(t)
	id := create(k, map[string]any{"title": "Parser", "description": "handles yaml frontmatter"})
	create(k, map[string]any{"title": "Other", "description": "nothing relevant"})
	search := func(q string) []string {
		t.Helper()
		return ids(t, k.OK("task_list", map[string]any{"search": q}), "tasks")
	}
	if got := search("frontmatter"); !slices.Equal(got, []string{id}) {
		t.Fatalf("search frontmatter = %v, want %s", got, id)
	}
	update(k, id, map[string]any{"description": "handles toml headers"})
	if got := search("frontmatter"); len(got) != 0 {
		t.Errorf("search for the replaced word = %v, want none", got)
	}
	if got := search("toml"); !slices.Equal(got, []string{id}) {
		t.Errorf("search for the new word = %v, want %s", got, id)
	}
	if got := search("pars"); !slices.Equal(got, []string{id}) {
		t.Errorf("search by title prefix after update = %v, want %s", got, id)
	}
}
