package tasks_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func labelsOf(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("l%d", i)
	}
	return out
}

// limitCase is one boundary probe: args for tool, and either success
// (field == "") or ERR_INVALID_INPUT naming field and constraint.
type limitCase struct {
	name       string
	tool       string
	args       map[string]any
	field      string
	constraint string
}

func runLimitCases(t *testing.T, k *testkit.Kit, cases []limitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := on(k, t)
			if tc.field == "" {
				k.OK(tc.tool, tc.args)
				return
			}
			e := fail(k, tc.tool, tc.args, baton.ErrInvalidInput)
			checkInvalid(t, e, tc.field, tc.constraint)
		})
	}
}

func TestCreateLimits(t *testing.T) {
	k := testkit.New(t)
	c := func(extra map[string]any) map[string]any {
		a := map[string]any{"title": "t", "project": testkit.Project}
		for key, v := range extra {
			a[key] = v
		}
		return a
	}
	runLimitCases(t, k, []limitCase{
		{"title 0 chars", "task_create", c(map[string]any{"title": ""}), "title", "minLength"},
		{"title 1 char", "task_create", c(map[string]any{"title": "x"}), "", ""},
		{"title 256 chars", "task_create", c(map[string]any{"title": strings.Repeat("a", 256)}), "", ""},
		{"title 257 chars", "task_create", c(map[string]any{"title": strings.Repeat("a", 257)}), "title", "maxLength"},
		{"title 256 runes of 2 bytes", "task_create", c(map[string]any{"title": strings.Repeat("é", 256)}), "", ""},
		{"title 257 runes of 2 bytes", "task_create", c(map[string]any{"title": strings.Repeat("é", 257)}), "title", "maxLength"},
		{"title spaces only", "task_create", c(map[string]any{"title": "   "}), "title", "pattern"},
		{"title tabs and newlines only", "task_create", c(map[string]any{"title": "\t\n "}), "title", "pattern"},
		{"title not a string", "task_create", c(map[string]any{"title": 5}), "title", "type"},
		{"description empty", "task_create", c(map[string]any{"description": ""}), "", ""},
		{"description 8000 chars", "task_create", c(map[string]any{"description": strings.Repeat("d", 8000)}), "", ""},
		{"description 8001 chars", "task_create", c(map[string]any{"description": strings.Repeat("d", 8001)}), "description", "maxLength"},
		{"labels empty", "task_create", c(map[string]any{"labels": []string{}}), "", ""},
		{"labels 20", "task_create", c(map[string]any{"labels": labelsOf(20)}), "", ""},
		{"labels 21", "task_create", c(map[string]any{"labels": labelsOf(21)}), "labels", "maxItems"},
		{"label empty", "task_create", c(map[string]any{"labels": []string{""}}), "labels[0]", "minLength"},
		{"label 64 chars", "task_create", c(map[string]any{"labels": []string{strings.Repeat("l", 64)}}), "", ""},
		{"label 65 chars", "task_create", c(map[string]any{"labels": []string{"ok", strings.Repeat("l", 65)}}), "labels[1]", "maxLength"},
		{"labels not a list", "task_create", c(map[string]any{"labels": "mcp"}), "labels", "type"},
		{"estimate_hours 0", "task_create", c(map[string]any{"estimate_hours": 0}), "", ""},
		{"estimate_hours 2.5", "task_create", c(map[string]any{"estimate_hours": 2.5}), "", ""},
		{"estimate_hours 1000", "task_create", c(map[string]any{"estimate_hours": 1000}), "", ""},
		{"estimate_hours -1", "task_create", c(map[string]any{"estimate_hours": -1}), "estimate_hours", "minimum"},
		{"estimate_hours 1000.5", "task_create", c(map[string]any{"estimate_hours": 1000.5}), "estimate_hours", "maximum"},
		{"estimate_hours a string", "task_create", c(map[string]any{"estimate_hours": "4"}), "estimate_hours", "type"},
		{"assignee empty", "task_create", c(map[string]any{"assignee": ""}), "assignee", "minLength"},
		{"assignee blank", "task_create", c(map[string]any{"assignee": "  "}), "assignee", "pattern"},
		{"project empty", "task_create", c(map[string]any{"project": ""}), "project", "minLength"},
	})
}

func TestUpdateLimits(t *testing.T) {
	k := testkit.New(t)
	id := create(k, nil)
	u := func(extra map[string]any) map[string]any {
		a := map[string]any{"task_id": id}
		for key, v := range extra {
			a[key] = v
		}
		return a
	}
	runLimitCases(t, k, []limitCase{
		{"description 8000 chars", "task_update", u(map[string]any{"description": strings.Repeat("d", 8000)}), "", ""},
		{"description 8001 chars", "task_update", u(map[string]any{"description": strings.Repeat("d", 8001)}), "description", "maxLength"},
		{"progress 0", "task_update", u(map[string]any{"progress": 0}), "", ""},
		{"progress 100", "task_update", u(map[string]any{"progress": 100}), "", ""},
		{"progress -1", "task_update", u(map[string]any{"progress": -1}), "progress", "minimum"},
		{"progress 101", "task_update", u(map[string]any{"progress": 101}), "progress", "maximum"},
		{"progress 5.5", "task_update", u(map[string]any{"progress": 5.5}), "progress", "type"},
		{"progress a string", "task_update", u(map[string]any{"progress": "50"}), "progress", "type"},
		{"labels 20", "task_update", u(map[string]any{"labels": labelsOf(20)}), "", ""},
		{"labels 21", "task_update", u(map[string]any{"labels": labelsOf(21)}), "labels", "maxItems"},
		{"blocked_reason blank", "task_update", u(map[string]any{"status": "todo", "blocked_reason": " "}), "blocked_reason", "pattern"},
		{"blocked_reason 1001 chars", "task_update", u(map[string]any{"blocked_reason": strings.Repeat("r", 1001)}), "blocked_reason", "maxLength"},
		{"task_id empty", "task_update", map[string]any{"task_id": "", "progress": 1}, "task_id", "minLength"},
	})
}

func TestListAndNextActionsLimits(t *testing.T) {
	k := testkit.New(t)
	runLimitCases(t, k, []limitCase{
		{"list limit 1", "task_list", map[string]any{"limit": 1}, "", ""},
		{"list limit 500", "task_list", map[string]any{"limit": 500}, "", ""},
		{"list limit 0", "task_list", map[string]any{"limit": 0}, "limit", "minimum"},
		{"list limit 501", "task_list", map[string]any{"limit": 501}, "limit", "maximum"},
		{"list limit 2.5", "task_list", map[string]any{"limit": 2.5}, "limit", "type"},
		{"list offset 0", "task_list", map[string]any{"offset": 0}, "", ""},
		{"list offset -1", "task_list", map[string]any{"offset": -1}, "offset", "minimum"},
		{"list search 500 chars", "task_list", map[string]any{"search": strings.Repeat("s", 500)}, "", ""},
		{"list search 501 chars", "task_list", map[string]any{"search": strings.Repeat("s", 501)}, "search", "maxLength"},
		{"list label empty", "task_list", map[string]any{"label": ""}, "label", "minLength"},
		{"list status 7", "task_list", map[string]any{"status": statuses}, "", ""},
		{"list priority 4", "task_list", map[string]any{"priority": []string{"low", "normal", "high", "critical"}}, "", ""},
		{"list priority 5", "task_list", map[string]any{"priority": []string{"low", "normal", "high", "critical", "low"}}, "priority", "maxItems"},
		{"list status not a list", "task_list", map[string]any{"status": "todo"}, "status", "type"},
		{"next limit 1", "task_next_actions", map[string]any{"limit": 1}, "", ""},
		{"next limit 100", "task_next_actions", map[string]any{"limit": 100}, "", ""},
		{"next limit 101", "task_next_actions", map[string]any{"limit": 101}, "limit", "maximum"},
		{"next limit 0", "task_next_actions", map[string]any{"limit": 0}, "limit", "minimum"},
		{"next include_blocked not a boolean", "task_next_actions", map[string]any{"include_blocked": "yes"}, "include_blocked", "type"},
		{"get include_dependents not a boolean", "task_get", map[string]any{"task_id": "COL-1", "include_dependents": 1}, "include_dependents", "type"},
	})
}

func TestEnums(t *testing.T) {
	k := testkit.New(t)
	id := create(k, nil)
	runLimitCases(t, k, []limitCase{
		{"create priority unknown", "task_create", map[string]any{"title": "t", "project": "colibri", "priority": "urgent"}, "priority", "enum"},
		{"create priority wrong case", "task_create", map[string]any{"title": "t", "project": "colibri", "priority": "HIGH"}, "priority", "enum"},
		{"create priority canonical number", "task_create", map[string]any{"title": "t", "project": "colibri", "priority": 1}, "priority", "type"},
		{"update status unknown", "task_update", map[string]any{"task_id": id, "status": "open"}, "status", "enum"},
		{"update status empty", "task_update", map[string]any{"task_id": id, "status": ""}, "status", "enum"},
		{"update priority unknown", "task_update", map[string]any{"task_id": id, "priority": "backlog"}, "priority", "enum"},
		{"list status unknown", "task_list", map[string]any{"status": []string{"todo", "closed"}}, "status[1]", "enum"},
		{"list priority unknown", "task_list", map[string]any{"priority": []string{"urgent"}}, "priority[0]", "enum"},
		{"list sort_by unknown", "task_list", map[string]any{"sort_by": "title"}, "sort_by", "enum"},
		{"list sort_order unknown", "task_list", map[string]any{"sort_order": "up"}, "sort_order", "enum"},
	})
	for _, tool := range []string{"task_create", "task_update", "task_list"} {
		for _, v := range []string{"low", "normal", "high", "critical"} {
			t.Run(tool+" priority "+v, func(t *testing.T) {
				k := on(k, t)
				switch tool {
				case "task_create":
					out := k.OK(tool, map[string]any{"title": "t", "project": "colibri", "priority": v})
					if got := get(k, out["task_id"].(string))["priority"]; got != v {
						t.Errorf("priority = %v, want %s", got, v)
					}
				case "task_update":
					update(k, id, map[string]any{"priority": v})
					if got := get(k, id)["priority"]; got != v {
						t.Errorf("priority = %v, want %s", got, v)
					}
				default:
					k.OK(tool, map[string]any{"priority": []string{v}})
				}
			})
		}
	}
}

func TestRequiredFields(t *testing.T) {
	k := testkit.New(t)
	// With one project it is the default; a second makes project required.
	k.AddProject("shop", "SHOP")
	create(k, nil)
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		field      string
	}{
		{"create without title", "task_create", map[string]any{"project": "colibri"}, "title"},
		{"create without project", "task_create", map[string]any{"title": "t"}, "project"},
		{"update without task_id", "task_update", map[string]any{"status": "todo"}, "task_id"},
		{"get without task_id", "task_get", map[string]any{"include_dependents": true}, "task_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fail(on(k, t), tc.tool, tc.args, baton.ErrInvalidInput)
			checkInvalid(t, e, tc.field, "required")
		})
	}
	t.Run("create with nothing names both", func(t *testing.T) {
		e := fail(on(k, t), "task_create", `{}`, baton.ErrInvalidInput)
		if got, want := violations(t, e), []string{"project:required", "title:required"}; !slices.Equal(got, want) {
			t.Errorf("violations = %v, want %v", got, want)
		}
		if f := e.Details["field"]; f != "title" && f != "project" {
			t.Errorf("details.field = %v, want title or project", f)
		}
		if e.Details["constraint"] != "required" {
			t.Errorf("details.constraint = %v, want required", e.Details["constraint"])
		}
	})
	t.Run("null arguments are an empty object", func(t *testing.T) {
		e := fail(on(k, t), "task_get", `null`, baton.ErrInvalidInput)
		checkInvalid(t, e, "task_id", "required")
	})
	t.Run("arguments that are not JSON", func(t *testing.T) {
		e := fail(on(k, t), "task_get", `{"task_id":`, baton.ErrInvalidInput)
		if e.Details["field"] != "arguments" || e.Details["constraint"] != "json" {
			t.Errorf("details = %v, want field arguments, constraint json", e.Details)
		}
	})
	t.Run("arguments that are not an object", func(t *testing.T) {
		e := fail(on(k, t), "task_get", `["COL-1"]`, baton.ErrInvalidInput)
		checkInvalid(t, e, "arguments", "type")
	})
}

func TestUnknownFieldsAreRejected(t *testing.T) {
	k := testkit.New(t)
	id := create(k, nil) // COL-1
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		field      string
	}{
		{"create created_by", "task_create", map[string]any{"title": "t", "project": "colibri", "created_by": "mallory"}, "created_by"},
		{"create status", "task_create", map[string]any{"title": "t", "project": "colibri", "status": "done"}, "status"},
		{"create task_id", "task_create", map[string]any{"title": "t", "project": "colibri", "task_id": "COL-99"}, "task_id"},
		{"update updated_by", "task_update", map[string]any{"task_id": id, "progress": 10, "updated_by": "mallory"}, "updated_by"},
		{"update created_by", "task_update", map[string]any{"task_id": id, "created_by": "mallory"}, "created_by"},
		{"update title", "task_update", map[string]any{"task_id": id, "title": "renamed"}, "title"},
		{"get agent", "task_get", map[string]any{"task_id": id, "agent": "mallory"}, "agent"},
		{"list typo", "task_list", map[string]any{"sortBy": "created"}, "sortBy"},
		{"next_actions agent", "task_next_actions", map[string]any{"agent_id": "mallory"}, "agent_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fail(on(k, t), tc.tool, tc.args, baton.ErrInvalidInput)
			checkInvalid(t, e, tc.field, "additionalProperties")
		})
	}
	got := get(k, id)
	if got["created_by"] != "agent-alice" || got["updated_by"] != "agent-alice" || got["progress"] != 0.0 {
		t.Errorf("rejected calls changed the task: %v", got)
	}
	if next := create(k, nil); next != "COL-2" {
		t.Errorf("rejected creates consumed sequence numbers: next id %s, want COL-2", next)
	}
}

func TestEveryViolationIsListed(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("shop", "SHOP") // so project has no default
	t.Run("task_create", func(t *testing.T) {
		e := fail(on(k, t), "task_create", map[string]any{
			"title":          "",
			"description":    strings.Repeat("d", 8001),
			"priority":       "urgent",
			"labels":         append(labelsOf(20), ""),
			"estimate_hours": -1,
			"created_by":     "mallory",
		}, baton.ErrInvalidInput)
		want := []string{
			"created_by:additionalProperties",
			"description:maxLength",
			"estimate_hours:minimum",
			"labels:maxItems",
			"labels[20]:minLength",
			"priority:enum",
			"project:required",
			"title:minLength",
		}
		if got := violations(t, e); !slices.Equal(got, want) {
			t.Errorf("violations =\n %v\nwant\n %v", got, want)
		}
		if !slices.Contains(want, fmt.Sprintf("%v:%v", e.Details["field"], e.Details["constraint"])) {
			t.Errorf("details field/constraint %v/%v is not one of the violations", e.Details["field"], e.Details["constraint"])
		}
		for _, f := range []string{"title", "description", "priority", "labels", "estimate_hours", "created_by", "project"} {
			if !strings.Contains(e.Message, f) {
				t.Errorf("message %q does not mention %s", e.Message, f)
			}
		}
		if e.Hint == "" {
			t.Error("no next_action_hint")
		}
	})
	t.Run("task_list", func(t *testing.T) {
		e := fail(on(k, t), "task_list", map[string]any{
			"limit": 0, "offset": -1, "sort_by": "title", "sort_order": "up",
			"status": []string{"open"}, "created_after": "yesterday",
		}, baton.ErrInvalidInput)
		want := []string{"created_after:format", "limit:minimum", "offset:minimum", "sort_by:enum", "sort_order:enum", "status[0]:enum"}
		if got := violations(t, e); !slices.Equal(got, want) {
			t.Errorf("violations = %v, want %v", got, want)
		}
	})
	t.Run("task_update", func(t *testing.T) {
		e := fail(on(k, t), "task_update", map[string]any{"progress": 101, "status": "open", "priority": "p0"}, baton.ErrInvalidInput)
		want := []string{"priority:enum", "progress:maximum", "status:enum", "task_id:required"}
		if got := violations(t, e); !slices.Equal(got, want) {
			t.Errorf("violations = %v, want %v", got, want)
		}
	})
}

// JSON Schema counts 50.0 as an integer, and the validator agrees; the call
// must then work as if 50 had been sent.
func TestIntegerValuedNumbersAreIntegers(t *testing.T) {
	k := testkit.New(t)
	id := create(k, nil)
	t.Run("task_update progress 50.0", func(t *testing.T) {
		res := on(k, t).Call("task_update", `{"task_id": "`+id+`", "progress": 50.0}`)
		if res.Err != nil {
			t.Fatalf("progress 50.0 rejected: %s", res.Text)
		}
		if got := get(on(k, t), id)["progress"]; got != 50.0 {
			t.Errorf("progress = %v, want 50", got)
		}
	})
	t.Run("task_list limit 10.0", func(t *testing.T) {
		res := on(k, t).Call("task_list", `{"limit": 10.0}`)
		if res.Err != nil {
			t.Fatalf("limit 10.0 rejected: %s", res.Text)
		}
	})
}
