package issues_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// artifacts writes files under WorkDir/docs/tickets/<id>/.
func artifacts(k *testkit.Kit, id string, files map[string]string) string {
	k.T.Helper()
	dir := filepath.Join(k.Env.WorkDir, "docs", "tickets", id)
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			k.T.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			k.T.Fatal(err)
		}
	}
	return dir
}

func TestMoveIssue(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	k.Principal.Project = "colibri"
	id := issueIn(k, "in_progress", map[string]any{"title": "Token counting middleware", "priority": 2,
		"labels": []string{"phase:architecture", "backend"}})
	dep := issue(k, map[string]any{"title": "stays behind"})
	w := bound(k, id)
	w.OK("add_finding", map[string]any{"category": "architecture", "summary": "three budget tiers"})
	w.OK("add_comment", map[string]any{"content": "research done"})
	w.OK("add_learning", map[string]any{"pattern": "Token budgets: count tokens before dispatch, never after the agent has started"})
	files := map[string]string{
		"research.md":     "# Research\n\nfindings\n",
		"architecture.md": "# Architecture\n\n## Risks\n",
		"notes.txt":       "scratch",
	}
	src := artifacts(k, id, files)

	out := bound(k, id).As("planner-1").OK("move_issue", map[string]any{"target_project_id": "other",
		"reason": "Implementation requires changes to podium.api, not symphony"})
	equal(t, "output fields", keys(out), []string{"copied_files", "issue_id", "labels", "previous_id", "project", "status"})
	if out["issue_id"] != "OTH-1" || out["previous_id"] != id || out["project"] != "other" || out["status"] != "todo" {
		t.Errorf("output = %v", out)
	}
	wantLabels := []string{"phase:architecture", "backend", "moved-from:" + id, "skip:research", "skip:architecture"}
	equal(t, "labels", strs(t, out, "labels"), wantLabels)
	equal(t, "copied_files", strs(t, out, "copied_files"), []string{"architecture.md", "notes.txt", "research.md"})

	// The artifacts are copied, not moved.
	for name, body := range files {
		for _, dir := range []string{src, filepath.Join(k.Env.WorkDir, "docs", "tickets", "OTH-1")} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || string(b) != body {
				t.Errorf("%s/%s = %q, %v; want %q", dir, name, b, err, body)
			}
		}
	}

	// The old id leads to the moved issue (point 18); the new one has
	// everything that was on it.
	if old := getIssue(k, id); old["id"] != "OTH-1" {
		t.Errorf("get_issue(%s) = %v, want the moved issue OTH-1", id, old["id"])
	}
	got := getIssue(k, "OTH-1")
	if got["title"] != "Token counting middleware" || got["status"] != "todo" || got["project"] != "other" || got["priority"] != 2.0 {
		t.Errorf("moved issue = %v", got)
	}
	equal(t, "labels", strs(t, got, "labels"), wantLabels)
	equal(t, "findings", column(t, got, "findings", "summary"), []string{"three budget tiers"})
	cs := column(t, got, "comments", "content")
	if len(cs) != 2 || cs[0] != "research done" || !strings.Contains(cs[1], "Moved from "+id) ||
		!strings.Contains(cs[1], "OTH-1") || !strings.Contains(cs[1], "podium.api") {
		t.Errorf("comments = %q, want the old comment and one recording the move and its reason", cs)
	}
	if by := list(t, got, "comments")[1]["created_by"]; by != "planner-1" {
		t.Errorf("move comment by %v, want planner-1", by)
	}
	if n := len(list(t, got, "learnings")); n != 1 {
		t.Errorf("learnings = %d, want 1", n)
	}
	// Its learning is now the other project's.
	if n := len(list(t, k.OK("search_learnings", map[string]any{"query": "token budgets"}), "results")); n != 0 {
		t.Errorf("colibri still finds the moved learning")
	}
	o := *k
	o.Principal.Project = "other"
	if n := len(list(t, o.OK("search_learnings", map[string]any{"query": "token budgets"}), "results")); n != 1 {
		t.Errorf("other does not find the moved learning")
	}
	equal(t, "colibri issues", column(t, k.OK("list_issues", nil), "issues", "id"), []string{dep})
	equal(t, "other issues", column(t, k.OK("list_issues", map[string]any{"project": "other"}), "issues", "id"), []string{"OTH-1"})
	// Read in Colibri's vocabulary too.
	if tg := taskGet(k, "OTH-1"); tg["project"] != "other" || tg["status"] != "todo" {
		t.Errorf("task_get = %v", tg)
	}
}

// The phase label is kept when the target pipeline has the phase and reset
// to the first phase when it does not; skip labels follow the artifacts.
func TestMoveIssueLabels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels []string
		files  []string
		want   []string
	}{
		{"known phase kept", []string{"phase:architecture"}, nil,
			[]string{"phase:architecture", "moved-from:COL-1"}},
		{"custom phase reset", []string{"phase:custom", "ui"}, nil,
			[]string{"phase:research", "ui", "moved-from:COL-1"}},
		{"every pipeline phase kept", []string{"phase:grooming"}, nil,
			[]string{"phase:grooming", "moved-from:COL-1"}},
		{"ready kept", []string{"phase:ready"}, nil, []string{"phase:ready", "moved-from:COL-1"}},
		{"reset in place", []string{"ui", "phase:custom", "api"}, nil,
			[]string{"ui", "phase:research", "api", "moved-from:COL-1"}},
		// create_issue gives an issue filed by hand phase:ready.
		{"cross-project", []string{"cross-project"}, nil, []string{"cross-project", "phase:ready", "moved-from:COL-1"}},
		{"multi-repo", []string{"multi-repo"}, nil, []string{"multi-repo", "phase:ready", "moved-from:COL-1"}},
		{"skip per artifact", []string{"phase:grooming"}, []string{"research.md", "grooming.md", "design.md"},
			[]string{"phase:grooming", "moved-from:COL-1", "skip:research", "skip:grooming"}},
		{"no skip for other files", []string{"phase:research"}, []string{"research.txt", "sub/architecture.md"},
			[]string{"phase:research", "moved-from:COL-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			k.AddProject("other", "OTH")
			id := issueIn(k, "todo", map[string]any{"project": "colibri", "labels": tc.labels})
			fs := map[string]string{}
			for _, f := range tc.files {
				fs[f] = f
			}
			artifacts(k, id, fs)
			out := k.OK("move_issue", map[string]any{"issue_id": id, "target_project_id": "other", "reason": "routing"})
			equal(t, "labels", strs(t, out, "labels"), tc.want)
			if len(strs(t, out, "copied_files")) != len(tc.files) {
				t.Errorf("copied_files = %v, want %v", out["copied_files"], tc.files)
			}
		})
	}
}

// Subtask blocks and the rest of the old status are reset by a move.
func TestMoveBlockedIssue(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	id := issueIn(k, "in_progress", map[string]any{"project": "colibri", "labels": []string{"phase:research"}})
	k.OK("update_issue_status", map[string]any{"issue_id": id, "status": "blocked", "reason": "needs a decision"})
	out := k.OK("move_issue", map[string]any{"issue_id": id, "target_project_id": "other", "reason": "routing"})
	if got := taskGet(k, out["issue_id"].(string)); got["status"] != "todo" || got["blocked_reason"] != nil {
		t.Errorf("moved blocked issue = %v (%v), want todo without a blocked reason", got["status"], got["blocked_reason"])
	}
}

// A refused move changes nothing: the issue keeps its id, status and
// labels, no files are copied and the target's numbering is untouched.
func TestMoveIssueRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status string
		labels []string
		target string
		code   string
	}{
		{"done", "done", []string{"phase:ready"}, "other", baton.ErrInvalidTransition},
		{"cancelled", "cancelled", []string{"phase:research"}, "other", baton.ErrInvalidTransition},
		{"done without labels", "done", []string{}, "other", baton.ErrInvalidTransition},
		// Symphony's issues always carry a phase label; a Colibri task
		// need not, and without one or a cross-project label it stays.
		{"no labels", "todo", nil, "other", baton.ErrInvalidInput},
		{"unrelated labels", "in_progress", []string{"backend", "skip:research", "phases"}, "other", baton.ErrInvalidInput},
		{"unknown target", "todo", []string{"phase:research"}, "nope", baton.ErrProjectNotFound},
		{"same project", "todo", []string{"phase:research"}, "colibri", baton.ErrInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			k.AddProject("other", "OTH")
			var id string
			if tc.code == baton.ErrInvalidInput && tc.target == "other" {
				args := map[string]any{"project": "colibri", "title": "task"}
				if tc.labels != nil {
					args["labels"] = tc.labels
				}
				id = k.OK("task_create", args)["task_id"].(string)
				drive(k, id, tc.status)
			} else {
				id = issueIn(k, tc.status, map[string]any{"project": "colibri", "labels": tc.labels})
			}
			artifacts(k, id, map[string]string{"research.md": "# R"})
			before := getIssue(k, id)
			e := fail(k, "move_issue", map[string]any{"issue_id": id, "target_project_id": tc.target, "reason": "r"}, tc.code)
			switch tc.code {
			case baton.ErrInvalidTransition:
				if e.Details["from"] != tc.status || e.Details["task_id"] != id {
					t.Errorf("details = %v", e.Details)
				}
			case baton.ErrProjectNotFound:
				if e.Details["project"] != "nope" {
					t.Errorf("details = %v", e.Details)
				}
			}
			after := getIssue(k, id)
			for _, f := range []string{"status", "labels", "project", "comments"} {
				if strings.Join(strs2(after[f]), ",") != strings.Join(strs2(before[f]), ",") {
					t.Errorf("%s changed: %v -> %v", f, before[f], after[f])
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(k.Env.WorkDir, "docs", "tickets")); len(entries) != 1 {
				t.Errorf("docs/tickets holds %d entries, want only %s", len(entries), id)
			}
			if got := issue(k, map[string]any{"project": "other"}); got != "OTH-1" {
				t.Errorf("next issue in other = %s, want OTH-1", got)
			}
		})
	}
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	id := issueIn(k, "todo", map[string]any{"project": "colibri", "labels": []string{"phase:research"}})
	invalid(k, "move_issue", map[string]any{"issue_id": id, "target_project_id": "other"}, "reason")
	invalid(k, "move_issue", map[string]any{"issue_id": id, "target_project_id": "other", "reason": " "}, "reason")
	invalid(k, "move_issue", map[string]any{"issue_id": id, "reason": "r"}, "target_project_id")
	invalid(k, "move_issue", map[string]any{"target_project_id": "other", "reason": "r"}, "issue_id")
	fail(k, "move_issue", map[string]any{"issue_id": "COL-99", "target_project_id": "other", "reason": "r"}, baton.ErrTaskNotFound)
}

// strs2 renders a decoded JSON value as strings for comparison.
func strs2(v any) []string {
	switch x := v.(type) {
	case []any:
		out := []string{}
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m["id"].(string))
				continue
			}
			out = append(out, e.(string))
		}
		return out
	case string:
		return []string{x}
	}
	return nil
}
