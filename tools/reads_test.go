package tools_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestListTotalsFollowEveryChange: task_list's and list_issues' totals,
// which the stores keep as counts per project, status and priority rather
// than count on every call, stay the number of matching items through
// creation, status and priority changes (in the tools' and the store's
// vocabularies) and moves between projects.
func TestListTotalsFollowEveryChange(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("wren", "WRN")
	ctx := context.Background()
	var ids []string
	for i := range 30 {
		ids = append(ids, k.StoreItem(&baton.Item{Title: fmt.Sprintf("item %d", i),
			Status: []baton.Status{baton.StatusTodo, baton.StatusBacklog, baton.StatusDone}[i%3], Priority: baton.Priority(i % 5)}))
	}
	check := func(when string) {
		t.Helper()
		for _, project := range []string{testkit.Project, "wren"} {
			for _, status := range []string{"", "todo", "in_progress", "backlog", "done", "blocked"} {
				want := k.Count(`SELECT COUNT(*) FROM items WHERE project = ? AND (? = '' OR status = ?)`, project, status, status)
				args := map[string]any{"project": project, "limit": 1}
				if status != "" {
					args["status"] = status
				}
				if got := k.OK("list_issues", args)["total_count"]; got != float64(want) {
					t.Errorf("%s: list_issues %s %q: total_count %v, want %d", when, project, status, got, want)
				}
				targs := map[string]any{"project": project, "limit": 1}
				if status != "" {
					targs["status"] = []string{status}
				}
				if got := k.OK("task_list", targs)["total_count"]; got != float64(want) {
					t.Errorf("%s: task_list %s %q: total_count %v, want %d", when, project, status, got, want)
				}
			}
			// low is 3 or 4 (backlog) on the canonical scale.
			for _, p := range []string{"critical", "high", "low"} {
				r := map[string][2]int{"critical": {0, 0}, "high": {1, 1}, "low": {3, 4}}[p]
				want := k.Count(`SELECT COUNT(*) FROM items WHERE project = ? AND priority BETWEEN ? AND ?`, project, r[0], r[1])
				if got := k.OK("task_list", map[string]any{"project": project, "priority": []string{p}, "limit": 1})["total_count"]; got != float64(want) {
					t.Errorf("%s: task_list %s priority %s: total_count %v, want %d", when, project, p, got, want)
				}
			}
		}
		if got, want := k.OK("task_list", map[string]any{"limit": 1})["total_count"], k.Count(`SELECT COUNT(*) FROM items`); got != float64(want) {
			t.Errorf("%s: task_list of every project: total_count %v, want %d", when, got, want)
		}
	}
	check("created")

	// ids[i] is todo, backlog or done as i%3; each but done (terminal)
	// moves where it may.
	for i, id := range ids[:10] {
		if to := []string{"in_progress", "todo", ""}[i%3]; to != "" {
			k.OK("task_update", map[string]any{"task_id": id, "status": to})
		}
		k.OK("task_update", map[string]any{"task_id": id, "priority": []string{"critical", "low"}[i%2]})
	}
	k.OK("update_issue_status", map[string]any{"issue_id": ids[10], "status": "todo"})
	check("updated")

	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		for _, id := range ids[20:25] {
			if _, err := tx.MoveItem(ctx, id, "wren"); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check("moved")
}
