package tools_test

import (
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestProjectDefaults: a call that leaves out its project gets the
// session's (--project, BATON_PROJECT, a token's), else the only project
// there is, on every tool with a project field, including those whose
// catalogue requires it; with several projects and none named, the error
// names the field.
func TestProjectDefaults(t *testing.T) {
	k := testkit.New(t).On(t)
	// One project: the default everywhere.
	if got := k.OK("task_create", map[string]any{"title": "only project"}); got["task_id"] != testkit.Prefix+"-1" {
		t.Fatalf("task_create without project in a one-project database = %v", got)
	}
	k.AddProject("shop", "SHOP")
	// Several: the session's project fills the field.
	shop := *k
	shop.Principal.Project = "shop"
	for _, c := range []struct {
		tool string
		args map[string]any
		key  string
		want string
	}{
		{"task_create", map[string]any{"title": "session project"}, "task_id", "SHOP-1"},
		{"create_issue", map[string]any{"title": "an issue"}, "identifier", "SHOP-2"},
	} {
		if got := shop.OK(c.tool, c.args); got[c.key] != c.want {
			t.Errorf("%s as a session of shop = %v, want %s %s", c.tool, got, c.key, c.want)
		}
	}
	list := shop.OK("task_list", map[string]any{})
	if list["total_count"] != float64(2) {
		t.Errorf("task_list in a session of shop = %v, want shop's 2 tasks", list)
	}
	// A named project wins over the session's.
	if got := shop.OK("task_create", map[string]any{"title": "named", "project": testkit.Project}); got["task_id"] != testkit.Prefix+"-2" {
		t.Errorf("task_create naming %s = %v", testkit.Project, got)
	}
	// Several projects, none named, no session project: the error says so.
	e := k.Fail("task_create", map[string]any{"title": "which?"}, baton.ErrInvalidInput)
	if e.Details["field"] != "project" {
		t.Errorf("task_create with two projects and none named: details %v", e.Details)
	}
}
