package issues_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tools"
)

// boundTools are the tools that act on the session's issue unless told
// otherwise: args is a valid call without issue_id, effect measures the
// call's mark on an issue (0 before, 1 after), and idField names the
// output field that says which issue was acted on.
var boundTools = []struct {
	name    string
	args    map[string]any
	idField string
	effect  func(k *testkit.Kit, id string) int
}{
	{"add_finding", map[string]any{"category": "bug", "summary": "Off-by-one in pagination"}, "issue_id",
		func(k *testkit.Kit, id string) int { return len(list(k.T, getIssue(k, id), "findings")) }},
	{"add_comment", map[string]any{"content": "Root cause found"}, "issue_id",
		func(k *testkit.Kit, id string) int { return len(list(k.T, getIssue(k, id), "comments")) }},
	{"add_learning", map[string]any{"pattern": pad(80)}, "issue_id",
		func(k *testkit.Kit, id string) int { return len(list(k.T, getIssue(k, id), "learnings")) }},
	{"update_issue_status", map[string]any{"status": "blocked"}, "issue_id",
		func(k *testkit.Kit, id string) int {
			if status0(k, id) == "blocked" {
				return 1
			}
			return 0
		}},
	{"create_subtask", map[string]any{"title": "Sub-task"}, "parent_id",
		func(k *testkit.Kit, id string) int { return len(strs(k.T, getIssue(k, id), "subtasks")) }},
	{"record_test_health", map[string]any{"test_count": 42}, "issue_id",
		func(k *testkit.Kit, id string) int {
			return k.Count(`SELECT COUNT(*) FROM test_health WHERE item_id = ?`, id)
		}},
	{"get_issue", map[string]any{}, "id", func(*testkit.Kit, string) int { return 1 }},
	{"get_issue_status", map[string]any{}, "id", func(*testkit.Kit, string) int { return 1 }},
}

func TestSessionBinding(t *testing.T) {
	for _, tc := range boundTools {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			readOnly := strings.HasPrefix(tc.name, "get_")
			setup := func(t *testing.T) (*testkit.Kit, string, string) {
				k := testkit.New(t)
				return k, issueIn(k, "todo", nil), issueIn(k, "todo", nil) // COL-1, COL-2
			}
			with := func(id string) map[string]any {
				a := map[string]any{}
				for key, v := range tc.args {
					a[key] = v
				}
				if id != "" {
					a["issue_id"] = id
				}
				return a
			}
			check := func(k *testkit.Kit, acted, spared string) {
				k.T.Helper()
				if readOnly {
					return
				}
				if got := tc.effect(k, acted); got != 1 {
					k.T.Errorf("%s was not acted on (effect %d)", acted, got)
				}
				if got := tc.effect(k, spared); got != 0 {
					k.T.Errorf("%s was acted on (effect %d) though the call was about the other issue", spared, got)
				}
			}
			t.Run("bound, no issue_id: the bound issue", func(t *testing.T) {
				k, one, two := setup(t)
				out := bound(k, one).OK(tc.name, with(""))
				if out[tc.idField] != one {
					t.Errorf("%s = %v, want the bound %s", tc.idField, out[tc.idField], one)
				}
				check(k, one, two)
			})
			t.Run("bound, issue_id: the named issue", func(t *testing.T) {
				k, one, two := setup(t)
				out := bound(k, one).OK(tc.name, with(two))
				if out[tc.idField] != two {
					t.Errorf("%s = %v, want the named %s", tc.idField, out[tc.idField], two)
				}
				check(k, two, one)
			})
			t.Run("unbound, issue_id: the named issue", func(t *testing.T) {
				k, one, two := setup(t)
				if out := k.OK(tc.name, with(two)); out[tc.idField] != two {
					t.Errorf("%s = %v, want %s", tc.idField, out[tc.idField], two)
				}
				check(k, two, one)
			})
			t.Run("unbound, no issue_id: invalid input naming issue_id", func(t *testing.T) {
				k, one, two := setup(t)
				e := invalid(k, tc.name, with(""), "issue_id")
				if e.Details["constraint"] != "required" || e.Hint == "" {
					t.Errorf("details = %v, hint %q", e.Details, e.Hint)
				}
				if !readOnly && (tc.effect(k, one) != 0 || tc.effect(k, two) != 0) {
					t.Error("a refused call changed an issue")
				}
			})
			t.Run("bound to an unknown issue", func(t *testing.T) {
				k, _, _ := setup(t)
				fail(bound(k, "COL-99"), tc.name, with(""), baton.ErrTaskNotFound)
			})
		})
	}
}

// Who wrote a record is the session's agent; no argument can say otherwise.
func TestIdentityIsThePrincipal(t *testing.T) {
	k := testkit.New(t)
	id := issueIn(k, "todo", nil)
	bob := bound(k, id).As("agent-bob")
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"add_finding", map[string]any{"category": "gap", "summary": "no tests for retries"}},
		{"add_comment", map[string]any{"content": "looks good"}},
		{"add_learning", map[string]any{"pattern": pad(70)}},
		{"create_issue", map[string]any{"title": "follow-up"}},
		{"create_subtask", map[string]any{"title": "sub"}},
		{"update_issue_status", map[string]any{"status": "blocked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bob := on(bob, t)
			forged := map[string]any{"created_by": "mallory"}
			for key, v := range tc.args {
				forged[key] = v
			}
			before := getIssue(bob, id)
			e := fail(bob, tc.name, forged, baton.ErrInvalidInput)
			if got := violations(e); !slices.Equal(got, []string{"created_by:additionalProperties"}) {
				t.Errorf("violations = %v, want created_by:additionalProperties", got)
			}
			after := getIssue(bob, id)
			for _, f := range []string{"findings", "comments", "learnings", "subtasks", "status"} {
				if fmt.Sprint(before[f]) != fmt.Sprint(after[f]) {
					t.Errorf("refused call changed %s: %v -> %v", f, before[f], after[f])
				}
			}
		})
	}

	bob.OK("add_finding", map[string]any{"category": "gap", "summary": "no tests for retries"})
	bob.OK("add_comment", map[string]any{"content": "looks good"})
	bob.OK("add_learning", map[string]any{"pattern": pad(70)})
	got := getIssue(k, id)
	for _, f := range []string{"findings", "comments", "learnings"} {
		for _, r := range list(t, got, f) {
			if r["created_by"] != "agent-bob" {
				t.Errorf("%s created_by = %v, want agent-bob", f, r["created_by"])
			}
		}
	}
	sub := bob.OK("create_subtask", map[string]any{"title": "sub"})["issue_id"].(string)
	iss := bob.OK("create_issue", map[string]any{"title": "follow-up"})["issue_id"].(string)
	for _, x := range []string{sub, iss} {
		if got := taskGet(k, x)["created_by"]; got != "agent-bob" {
			t.Errorf("%s created_by = %v, want agent-bob", x, got)
		}
	}
}

func TestAddFinding(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	id := issueIn(k, "in_progress", nil)
	w := bound(k, id)
	var ids []string
	for _, cat := range baton.FindingCategories {
		out := w.OK("add_finding", map[string]any{"category": cat, "summary": "about " + cat})
		equal(t, "output fields", keys(out), []string{"category", "created_at", "finding_id", "issue_id", "summary"})
		if out["category"] != cat || out["summary"] != "about "+cat || out["issue_id"] != id {
			t.Errorf("output = %v", out)
		}
		if at := parseStamp(t, out["created_at"]); !at.Equal(clock.Peek()) {
			t.Errorf("created_at = %v, want %v", at, clock.Peek())
		}
		ids = append(ids, out["finding_id"].(string))
	}
	equal(t, "categories", baton.FindingCategories, []string{"test_result", "code_pattern", "architecture", "bug", "gap"})
	for _, bad := range []string{"note", "Bug", "phase_completion", ""} {
		invalid(w, "add_finding", map[string]any{"category": bad, "summary": "s"}, "category")
	}
	invalid(w, "add_finding", map[string]any{"category": "bug"}, "summary")
	invalid(w, "add_finding", map[string]any{"category": "bug", "summary": "  "}, "summary")
	invalid(w, "add_finding", map[string]any{"category": "bug", "summary": "s", "files": []string{""}}, "files[0]")

	got := list(t, getIssue(k, id), "findings")
	equal(t, "finding ids, oldest first", column(t, map[string]any{"f": toAny(got)}, "f", "id"), ids)
	for i, f := range got {
		if f["category"] != baton.FindingCategories[i] {
			t.Errorf("finding %d category = %v", i, f["category"])
		}
		equal(t, "files", strs(t, f, "files"), nil)
	}
}

// Findings are append-only: the same finding twice is two findings, a new
// one never touches an old one, and no tool edits or deletes them.
func TestFindingsAreAppendOnly(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	id := issueIn(k, "in_progress", nil)
	w := bound(k, id)
	args := map[string]any{"category": "test_result", "summary": "42 passed", "details": "go test ./...",
		"files": []string{"a_test.go"}}
	first := w.OK("add_finding", args)
	before := list(t, getIssue(k, id), "findings")[0]
	second := w.OK("add_finding", args)
	if first["finding_id"] == second["finding_id"] {
		t.Fatalf("the same finding twice got one id %v", first["finding_id"])
	}
	fs := list(t, getIssue(k, id), "findings")
	if len(fs) != 2 {
		t.Fatalf("findings = %v, want two", fs)
	}
	if fmt.Sprint(fs[0]) != fmt.Sprint(before) {
		t.Errorf("first finding changed: %v -> %v", before, fs[0])
	}
	if fs[0]["created_at"] == fs[1]["created_at"] {
		t.Errorf("two findings share created_at %v", fs[0]["created_at"])
	}
	for _, tl := range tools.All() {
		name := tl.Spec().Name
		if strings.Contains(name, "finding") && name != "add_finding" {
			t.Errorf("tool %s could change findings; they are append-only", name)
		}
	}
}

func TestAddComment(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	id := issueIn(k, "in_progress", nil)
	w := bound(k, id)
	var want []string
	for _, text := range []string{"Found the root cause — the migration was missing a NOT NULL constraint", "second", "third"} {
		out := w.OK("add_comment", map[string]any{"content": text})
		equal(t, "output fields", keys(out), []string{"comment_id", "created_at", "issue_id"})
		if at := parseStamp(t, out["created_at"]); !at.Equal(clock.Peek()) {
			t.Errorf("created_at = %v, want %v", at, clock.Peek())
		}
		want = append(want, text)
	}
	equal(t, "comments, oldest first", column(t, getIssue(k, id), "comments", "content"), want)
	invalid(w, "add_comment", map[string]any{}, "content")
	invalid(w, "add_comment", map[string]any{"content": ""}, "content")
	invalid(w, "add_comment", map[string]any{"content": " \n\t"}, "content")
	invalid(w, "add_comment", map[string]any{"content": strings.Repeat("x", 20001)}, "content")
	w.OK("add_comment", map[string]any{"content": strings.Repeat("x", 20000)})
	fail(w, "add_comment", map[string]any{"issue_id": "COL-99", "content": "x"}, baton.ErrTaskNotFound)
	if n := len(list(t, getIssue(k, id), "comments")); n != 4 {
		t.Errorf("comments = %d, want 4", n)
	}
}

func toAny(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}
