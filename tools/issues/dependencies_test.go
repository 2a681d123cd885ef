package issues_test

import (
	"slices"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestDependenciesAcrossVocabularies: a task, an issue and a bead share one
// dependency graph; a cycle through all three is refused, named in
// details, and ready work respects what remains.
func TestDependenciesAcrossVocabularies(t *testing.T) {
	k := testkit.New(t)
	k.OK("task_create", `{"title":"A task","project":"colibri"}`)                                    // COL-1
	k.OK("create_issue", `{"title":"An issue","project":"colibri"}`)                                 // COL-2
	k.OK("create_bead", `{"title":"A bead","description":"","type":"task","priority":2,"id":"b-1"}`) // b-1
	k.OK("task_update", `{"task_id":"COL-1","status":"todo"}`)

	if out := k.OK("add_dependency", `{"issue_id":"COL-1","depends_on":"COL-2"}`); !slices.Equal(depIDs(out["depends_on"]), []string{"COL-2"}) {
		t.Fatalf("depends_on = %v", out["depends_on"])
	}
	k.OK("add_dependency", `{"issue_id":"COL-2","depends_on":"b-1"}`)
	e := k.Fail("add_dependency", `{"issue_id":"b-1","depends_on":"COL-1"}`, baton.ErrCircularDependency)
	if cycle := depIDs(e.Details["cycle"]); !slices.Equal(cycle, []string{"b-1", "COL-1", "COL-2", "b-1"}) || e.Hint == "" {
		t.Fatalf("cycle = %v, hint %q", e.Details["cycle"], e.Hint)
	}
	k.Fail("add_dependency", `{"issue_id":"COL-1","depends_on":"COL-1"}`, baton.ErrCircularDependency)
	k.Fail("add_dependency", `{"issue_id":"COL-1","depends_on":"COL-99"}`, baton.ErrTaskNotFound)

	// COL-1 waits on COL-2, so it is not ready work.
	if ids := nextIDs(k); slices.Contains(ids, "COL-1") || !slices.Contains(ids, "b-1") {
		t.Fatalf("next actions = %v, want b-1 but not COL-1 while it waits", ids)
	}
	k.OK("remove_dependency", `{"issue_id":"COL-1","depends_on":"COL-2"}`)
	k.Fail("remove_dependency", `{"issue_id":"COL-1","depends_on":"COL-2"}`, baton.ErrNotFound)
	if ids := nextIDs(k); !slices.Contains(ids, "COL-1") {
		t.Fatalf("next actions = %v, want COL-1 once it waits on nothing", ids)
	}
}

func nextIDs(k *testkit.Kit) []string {
	var ids []string
	for _, a := range k.OK("task_next_actions", `{"project":"colibri"}`)["next_actions"].([]any) {
		ids = append(ids, a.(map[string]any)["task_id"].(string))
	}
	return ids
}

func TestDependencyDefaultsToBoundIssue(t *testing.T) {
	k := testkit.New(t)
	k.OK("create_issue", `{"title":"One","project":"colibri"}`)
	k.OK("create_issue", `{"title":"Two","project":"colibri"}`)
	k.Fail("add_dependency", `{"depends_on":"COL-2"}`, baton.ErrInvalidInput)
	k.Principal.IssueID = "COL-1"
	if out := k.OK("add_dependency", `{"depends_on":"COL-2"}`); out["issue_id"] != "COL-1" {
		t.Fatalf("acted on %v, want the bound COL-1", out["issue_id"])
	}
}

func depIDs(v any) []string {
	var out []string
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		for _, e := range x {
			out = append(out, e.(string))
		}
	}
	return out
}
