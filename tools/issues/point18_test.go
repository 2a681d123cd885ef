package issues_test

import (
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// moved creates COL-1 (with COL-2 beside it) and moves COL-1 to project
// other, where it is OTH-1; then, when twice, on to project third (THR-1).
func moved(t *testing.T, twice bool) (k *testkit.Kit, old, cur, spare string) {
	k = testkit.New(t)
	k.AddProject("other", "OTH")
	k.AddProject("third", "THR")
	old = issueIn(k, "todo", map[string]any{"project": "colibri", "labels": []string{"phase:research"}})
	spare = issueIn(k, "todo", map[string]any{"project": "colibri"})
	cur = k.OK("move_issue", map[string]any{"issue_id": old, "target_project_id": "other", "reason": "routing"})["issue_id"].(string)
	if twice {
		cur = k.OK("move_issue", map[string]any{"issue_id": cur, "target_project_id": "third", "reason": "again"})["issue_id"].(string)
	}
	return k, old, cur, spare
}

// TestPoint18OldIDResolves: after a move, the issue's old id still reaches
// it in every tool that acts on an issue, named in the arguments or bound to
// the session (baton mcp --issue-id OLD), also after a second move.
func TestPoint18OldIDResolves(t *testing.T) {
	for _, twice := range []bool{false, true} {
		name := "one move"
		if twice {
			name = "two moves"
		}
		t.Run(name, func(t *testing.T) {
			for _, tc := range boundTools {
				t.Run(tc.name, func(t *testing.T) {
					t.Run("bound to the old id", func(t *testing.T) {
						k, old, cur, spare := moved(t, twice)
						before := tc.effect(k, cur) // the move itself left a comment
						out := bound(k, old).OK(tc.name, tc.args)
						if out[tc.idField] != cur {
							t.Errorf("%s = %v, want the moved issue %s", tc.idField, out[tc.idField], cur)
						}
						if !strings.HasPrefix(tc.name, "get_") && (tc.effect(k, cur) != before+1 || tc.effect(k, spare) != 0) {
							t.Errorf("the call did not act on %s alone", cur)
						}
					})
					t.Run("old id named", func(t *testing.T) {
						k, old, cur, _ := moved(t, twice)
						args := map[string]any{"issue_id": old}
						for key, v := range tc.args {
							args[key] = v
						}
						if out := k.OK(tc.name, args); out[tc.idField] != cur {
							t.Errorf("%s = %v, want %s", tc.idField, out[tc.idField], cur)
						}
					})
				})
			}
		})
	}

	k, old, cur, spare := moved(t, true)
	w := bound(k, old)
	// Dependencies both ways, the Colibri and Adjutant vocabularies, run
	// events and a further move, all by the old id.
	if out := k.OK("add_dependency", map[string]any{"issue_id": spare, "depends_on": old}); strings.Join(strs(t, out, "depends_on"), ",") != cur {
		t.Errorf("add_dependency depends_on = %v, want %s", out["depends_on"], cur)
	}
	if out := k.OK("remove_dependency", map[string]any{"issue_id": spare, "depends_on": old}); len(strs(t, out, "depends_on")) != 0 {
		t.Errorf("remove_dependency by the old id left %v", out["depends_on"])
	}
	if got := taskGet(k, old); got["task_id"] != cur {
		t.Errorf("task_get(%s) = %v, want %s", old, got["task_id"], cur)
	}
	if got := k.OK("show_bead", map[string]any{"id": old}); got["id"] != cur {
		t.Errorf("show_bead(%s) = %v, want %s", old, got["id"], cur)
	}
	run(k, &baton.Run{ItemID: cur, Status: "succeeded"}, ev("assistant", "text", `{"text":"hi"}`))
	if out := k.OK("query_run_events", map[string]any{"issue_id": old}); out["total_count"] != 1.0 {
		t.Errorf("query_run_events by the old id = %v", out)
	}
	if out := w.OK("update_issue_status", map[string]any{"status": "blocked"}); out["issue_id"] != cur {
		t.Errorf("update_issue_status = %v", out)
	}
	back := w.OK("move_issue", map[string]any{"target_project_id": "colibri", "reason": "home"})
	if back["previous_id"] != cur || !strings.HasPrefix(back["issue_id"].(string), "COL-") {
		t.Errorf("move by the bound old id = %v", back)
	}
	// The oldest id follows every move; an id nobody ever had is unknown.
	if got := getIssue(k, old); got["id"] != back["issue_id"] {
		t.Errorf("get_issue(%s) = %v, want %v", old, got["id"], back["issue_id"])
	}
	fail(k, "get_issue", map[string]any{"issue_id": "OTH-9"}, baton.ErrTaskNotFound)
}

// TestPoint18WorktreeOfAMovedIssue: verify_workspace accepts a marker that
// names the issue by an id it had before moving, or a session bound to it.
func TestPoint18WorktreeOfAMovedIssue(t *testing.T) {
	for _, tc := range []struct{ name, marker, bound string }{
		{"marker has the old id", "COL-1", "OTH-1"},
		{"session bound to the old id", "OTH-1", "COL-1"},
		{"both old", "COL-1", "COL-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, dir := worktree(t)
			k.AddProject("other", "OTH")
			k.OK("task_update", map[string]any{"task_id": "COL-1", "labels": []string{"cross-project"}})
			if out := k.OK("move_issue", map[string]any{"issue_id": "COL-1", "target_project_id": "other", "reason": "r"}); out["issue_id"] != "OTH-1" {
				t.Fatalf("move = %v", out)
			}
			marker(t, dir, ".symphony-worktree", `{"issue":"`+tc.marker+`"}`)
			k.Principal.IssueID = tc.bound
			if out := k.OK("verify_workspace", nil); out["valid"] != true {
				t.Errorf("verify_workspace = %v", out)
			}
		})
	}
	// Another issue's worktree is still refused.
	k, dir := worktree(t)
	issueIn(k, "todo", nil) // COL-2
	marker(t, dir, ".symphony-worktree", `{"issue":"COL-2"}`)
	fail(k, "verify_workspace", nil, baton.ErrConflict)
}

// TestPoint18NumberFieldsAcceptFractions: every field the Symphony
// catalogue types as number accepts a fraction, rounded the way that keeps
// its meaning: priorities and counts to the nearest whole number, limits
// and offsets down, a quality threshold up.
func TestPoint18NumberFieldsAcceptFractions(t *testing.T) {
	k := testkit.New(t)
	for i := range 3 {
		issue(k, map[string]any{"title": "t", "priority": 1 + i})
	}
	w := bound(k, issueIn(k, "todo", nil)) // COL-4
	w.OK("add_learning", map[string]any{"pattern": pad(60)})
	w.OK("add_learning", map[string]any{"pattern": "Retry budgets: " + pad(60)})
	run(k, &baton.Run{ItemID: "COL-4", Status: "succeeded"},
		ev("assistant", "text", `{"text":"one"}`), ev("assistant", "text", `{"text":"two"}`), ev("assistant", "text", `{"text":"three"}`))
	quality := num(t, list(t, w.OK("search_learnings", map[string]any{"query": "sqlite"}), "results")[0]["quality_score"])

	for _, tc := range []struct {
		name  string
		call  func() map[string]any
		check func(out map[string]any) bool
	}{
		{"create_issue priority 2.5 rounds to 3", func() map[string]any {
			return k.OK("create_issue", map[string]any{"title": "t", "priority": 2.5})
		}, func(o map[string]any) bool { return o["priority"] == 3.0 }},
		{"create_issue priority 1.4 rounds to 1", func() map[string]any {
			return k.OK("create_issue", map[string]any{"title": "t", "priority": 1.4})
		}, func(o map[string]any) bool { return o["priority"] == 1.0 }},
		{"create_subtask priority 3.6 rounds to 4", func() map[string]any {
			return w.OK("create_subtask", map[string]any{"title": "s", "priority": 3.6})
		}, func(o map[string]any) bool { return getIssue(k, o["issue_id"].(string))["priority"] == 4.0 }},
		{"list_issues limit 2.9 gives 2", func() map[string]any {
			return k.OK("list_issues", map[string]any{"limit": 2.9})
		}, func(o map[string]any) bool { return len(o["issues"].([]any)) == 2 }},
		{"search_learnings limit 1.5 gives 1", func() map[string]any {
			return k.OK("search_learnings", map[string]any{"query": "sqlite", "limit": 1.5})
		}, func(o map[string]any) bool { return len(o["results"].([]any)) == 1 }},
		{"search_learnings min_quality_score just below keeps", func() map[string]any {
			return k.OK("search_learnings", map[string]any{"query": "sqlite", "min_quality_score": float64(quality) - 0.5})
		}, func(o map[string]any) bool { return len(o["results"].([]any)) == 2 }},
		{"search_learnings min_quality_score just above drops", func() map[string]any {
			return k.OK("search_learnings", map[string]any{"query": "sqlite", "min_quality_score": float64(quality) + 0.5})
		}, func(o map[string]any) bool { return len(o["results"].([]any)) == 0 }},
		{"query_run_events limit 1.5 offset 1.9", func() map[string]any {
			return k.OK("query_run_events", map[string]any{"issue_id": "COL-4", "limit": 1.5, "offset": 1.9})
		}, func(o map[string]any) bool {
			evs := o["events"].([]any)
			return len(evs) == 1 && o["limit"] == 1.0 && o["offset"] == 1.0 &&
				evs[0].(map[string]any)["data"].(map[string]any)["text"] == "two"
		}},
		{"record_test_health counts and time", func() map[string]any {
			return w.OK("record_test_health", map[string]any{"test_count": 150.4, "tests_added": 4.5,
				"tests_removed": 0.2, "test_files_changed": 2.6, "execution_time_ms": 30000.5})
		}, func(o map[string]any) bool {
			return o["test_count"] == 150.0 && k.Count(`SELECT COUNT(*) FROM test_health WHERE test_count = 150 AND tests_added = 5
				AND tests_removed = 0 AND test_files_changed = 3 AND execution_time_ms = 30001`) == 1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := tc.call(); !tc.check(out) {
				t.Errorf("output = %v", out)
			}
		})
	}
}
