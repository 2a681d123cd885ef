package issues_test

import (
	"fmt"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestCreateIssue(t *testing.T) {
	k := testkit.New(t)
	out := k.OK("create_issue", map[string]any{"title": "Add input validation to POST /api/projects/:id/issues"})
	equal(t, "output fields", keys(out), []string{"depends_on", "identifier", "issue_id", "labels", "priority", "status", "title"})
	if out["issue_id"] != "COL-1" || out["identifier"] != "COL-1" || out["status"] != "backlog" || out["priority"] != 3.0 {
		t.Errorf("defaults = %v, want COL-1 in backlog at priority 3", out)
	}
	equal(t, "labels", strs(t, out, "labels"), []string{"phase:ready"}) // filed by hand: ready work
	equal(t, "depends_on", strs(t, out, "depends_on"), nil)

	out = k.OK("create_issue", map[string]any{"title": "Validation", "description": "Title max 500 chars",
		"priority": 2, "labels": []string{"validation", "api"}, "depends_on": []string{"COL-1"}})
	if out["issue_id"] != "COL-2" || out["priority"] != 2.0 {
		t.Errorf("output = %v", out)
	}
	equal(t, "labels", strs(t, out, "labels"), []string{"validation", "api", "phase:ready"})
	equal(t, "depends_on", strs(t, out, "depends_on"), []string{"COL-1"})
	got := getIssue(k, "COL-2")
	if got["description"] != "Title max 500 chars" || got["status"] != "backlog" {
		t.Errorf("get_issue = %v", got)
	}
	equal(t, "get_issue depends_on", strs(t, got, "depends_on"), []string{"COL-1"})

	// Several dependencies, repeated ones once, listed in order.
	k.OK("create_issue", map[string]any{"title": "C"})
	out = k.OK("create_issue", map[string]any{"title": "D", "depends_on": []string{"COL-3", "COL-1", "COL-3"}})
	equal(t, "depends_on", strs(t, out, "depends_on"), []string{"COL-1", "COL-3"})

	// In another project by name.
	k.AddProject("other", "OTH")
	out = k.OK("create_issue", map[string]any{"title": "elsewhere", "project": "other"})
	if out["issue_id"] != "OTH-1" {
		t.Errorf("issue in other = %v", out["issue_id"])
	}
	fail(k, "create_issue", map[string]any{"title": "t", "project": "nope"}, baton.ErrProjectNotFound)
}

func TestCreateIssuePriority(t *testing.T) {
	k := testkit.New(t)
	for _, p := range []int{1, 2, 3, 4} {
		out := k.OK("create_issue", map[string]any{"title": "t", "priority": p})
		if num(t, out["priority"]) != p || num(t, getIssue(k, out["issue_id"].(string))["priority"]) != p {
			t.Errorf("priority %d reads back as %v", p, out["priority"])
		}
	}
	for _, p := range []any{0, 5, -1, 0.4, 4.5, "high"} { // 2.5 is fine: the catalogue types it number (point 18)
		invalid(k, "create_issue", map[string]any{"title": "t", "priority": p}, "priority")
	}
}

// A failed create_issue leaves nothing: no issue, no dependency, and the
// sequence is not consumed.
func TestCreateIssueFailuresChangeNothing(t *testing.T) {
	k := testkit.New(t)
	issue(k, nil) // COL-1
	for _, tc := range []struct {
		name string
		args map[string]any
		code string
	}{
		{"unknown dependency", map[string]any{"depends_on": []string{"COL-99"}}, baton.ErrTaskNotFound},
		{"unknown after a known one", map[string]any{"depends_on": []string{"COL-1", "COL-99"}}, baton.ErrTaskNotFound},
		// COL-2 is the id the new issue would get: it cannot depend on itself.
		{"on itself", map[string]any{"depends_on": []string{"COL-2"}}, baton.ErrCircularDependency},
		{"empty dependency id", map[string]any{"depends_on": []string{""}}, baton.ErrInvalidInput},
		{"blank title", map[string]any{"title": "   "}, baton.ErrInvalidInput},
		{"unknown field", map[string]any{"status": "todo"}, baton.ErrInvalidInput},
		{"too many labels", map[string]any{"labels": make21()}, baton.ErrInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := on(k, t)
			args := map[string]any{"title": "new issue"}
			for key, v := range tc.args {
				args[key] = v
			}
			e := fail(k, "create_issue", args, tc.code)
			if tc.code == baton.ErrTaskNotFound && e.Details["task_id"] != "COL-99" {
				t.Errorf("details = %v, want task_id COL-99", e.Details)
			}
			fail(k, "get_issue", map[string]any{"issue_id": "COL-2"}, baton.ErrTaskNotFound)
			if l := k.OK("list_issues", nil); l["total_count"] != 1.0 {
				t.Errorf("issues after the failure = %v, want only COL-1", column(t, l, "issues", "id"))
			}
			if n := k.Count(`SELECT COUNT(*) FROM item_deps`); n != 0 {
				t.Errorf("%d dependencies left behind", n)
			}
		})
	}
	if id := issue(k, nil); id != "COL-2" {
		t.Errorf("next issue = %s, want COL-2: a failed create consumed a number", id)
	}
}

func make21() []string {
	out := make([]string, 21)
	for i := range out {
		out[i] = fmt.Sprintf("l%d", i)
	}
	return out
}

func TestListIssues(t *testing.T) {
	k := testkit.New(t)
	a := issueIn(k, "todo", map[string]any{"title": "a", "priority": 3, "labels": []string{"api"}})
	b := issueIn(k, "in_progress", map[string]any{"title": "b", "priority": 1, "labels": []string{"api", "db"}})
	c := issueIn(k, "backlog", map[string]any{"title": "c", "priority": 4, "labels": []string{"db"}})
	d := issueIn(k, "todo", map[string]any{"title": "d", "priority": 2})
	sub := bound(k, d).OK("create_subtask", map[string]any{"title": "e"})["issue_id"].(string) // d blocked
	k.AddProject("other", "OTH")
	issue(k, map[string]any{"project": "other", "labels": []string{"api"}})
	k.Principal.Project = "colibri"

	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		// Most urgent first; equal priorities newest first.
		{"all", nil, []string{b, d, sub, a, c}},
		{"status todo", map[string]any{"status": "todo"}, []string{sub, a}},
		{"status blocked", map[string]any{"status": "blocked"}, []string{d}},
		{"status done", map[string]any{"status": "done"}, nil},
		{"label api", map[string]any{"labels": "api"}, []string{b, a}},
		{"label db", map[string]any{"labels": "db"}, []string{b, c}},
		{"label and status", map[string]any{"labels": "api", "status": "todo"}, []string{a}},
		{"unknown label", map[string]any{"labels": "nope"}, nil},
		{"limit", map[string]any{"limit": 2}, []string{b, d}},
		{"other project", map[string]any{"project": "other"}, []string{"OTH-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := on(k, t).OK("list_issues", tc.args)
			equal(t, "issues", column(t, out, "issues", "id"), tc.want)
			if num(t, out["count"]) != len(tc.want) {
				t.Errorf("count = %v", out["count"])
			}
		})
	}
	out := k.OK("list_issues", map[string]any{"limit": 1})
	if out["total_count"] != 5.0 || out["count"] != 1.0 || out["project"] != "colibri" {
		t.Errorf("count/total/project = %v/%v/%v", out["count"], out["total_count"], out["project"])
	}
	row := list(t, k.OK("list_issues", map[string]any{"labels": "db", "limit": 1}), "issues")[0]
	if row["id"] != b || row["title"] != "b" || row["status"] != "in_progress" || row["priority"] != 1.0 {
		t.Errorf("row = %v", row)
	}
	equal(t, "row labels", strs(t, row, "labels"), []string{"api", "db", "phase:ready"})
	if got := list(t, k.OK("list_issues", map[string]any{"status": "todo"}), "issues")[0]; got["parent_id"] != d {
		t.Errorf("subtask row parent_id = %v, want %s", got["parent_id"], d)
	}

	invalid(k, "list_issues", map[string]any{"status": "open"}, "status")
	fail(k, "list_issues", map[string]any{"project": "nope"}, baton.ErrProjectNotFound)
}

func TestListIssuesLimit(t *testing.T) {
	k := testkit.New(t)
	ctx := t.Context()
	// 120 issues, straight into the store: only the listing is under test.
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		for i := range 120 {
			if err := tx.CreateItem(ctx, &baton.Item{Project: "colibri", Title: fmt.Sprint(i), Status: baton.StatusTodo,
				Priority: baton.PriorityNormal, CreatedBy: "agent-alice"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args map[string]any
		want int
	}{
		{nil, 50},
		{map[string]any{"limit": 1}, 1},
		{map[string]any{"limit": 99}, 99},
		{map[string]any{"limit": 100}, 100},
	} {
		out := k.OK("list_issues", tc.args)
		if n := len(list(t, out, "issues")); n != tc.want || out["total_count"] != 120.0 {
			t.Errorf("list_issues(%v) = %d issues of %v, want %d of 120", tc.args, n, out["total_count"], tc.want)
		}
	}
	for _, l := range []any{0, 0.5, 101, 100.5, -5, 1000, "10"} { // 1.5 is fine (point 18)
		invalid(k, "list_issues", map[string]any{"limit": l}, "limit")
	}
}

func TestListIssuesProjectFromSession(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	issue(k, map[string]any{"project": "colibri"})
	oth := issue(k, map[string]any{"project": "other"})
	// With two projects and no default, the project must be named.
	invalid(k, "list_issues", nil, "project")

	o := *k
	o.Principal.Project = "other"
	equal(t, "session project", column(t, o.OK("list_issues", nil), "issues", "id"), []string{oth})
	if got := o.OK("create_issue", map[string]any{"title": "t"})["issue_id"]; got != "OTH-2" {
		t.Errorf("create_issue in the session's project = %v, want OTH-2", got)
	}

	// A session bound to an issue is in that issue's project (Symphony
	// resolves projectId from the issue when not given).
	b := bound(k, oth)
	if res := b.Call("list_issues", nil); res.Err != nil {
		t.Errorf("list_issues from a session bound to %s: %s, want the project of %s", oth, res.Text, oth)
	} else if p := testkit.Decode(t, res.Output)["project"]; p != "other" {
		t.Errorf("list_issues from a session bound to %s lists %v, want other", oth, p)
	}
	if res := b.Call("create_issue", map[string]any{"title": "t"}); res.Err != nil {
		t.Errorf("create_issue from a session bound to %s: %s, want OTH-3", oth, res.Text)
	} else if id := testkit.Decode(t, res.Output)["issue_id"]; id != "OTH-3" {
		t.Errorf("create_issue from a session bound to %s = %v, want OTH-3", oth, id)
	}
}
