package membot_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// pDoc reads the current version of path in the kit's project space, or
// nil when there is none.
func pDoc(t *testing.T, k *testkit.Kit, path string) *baton.Document {
	t.Helper()
	return wDocIn(k, baton.DocSpace{Scope: baton.ScopeProject, Project: testkit.Project}, path)
}

func pVersions(t *testing.T, k *testkit.Kit) int {
	t.Helper()
	return k.Count(`SELECT COUNT(*) FROM documents`)
}

func TestPipeStoresTheInnerOutput(t *testing.T) {
	k := testkit.New(t)
	for _, title := range []string{"first piped item", "second piped item"} {
		k.StoreItem(&baton.Item{Title: title})
	}
	out := k.OK("membot_pipe", map[string]any{"tool_name": "list_issues", "tool_input": map[string]any{"status": "todo"},
		"logical_path": "/research/issues.json"})
	if out["is_error"] != false || out["logical_path"] != "research/issues.json" || out["version_id"] == "" {
		t.Fatalf("pipe output %v", out)
	}
	d := pDoc(t, k, "research/issues.json")
	if d == nil {
		t.Fatal("nothing stored")
	}
	var stored struct {
		Issues []struct{ Title string } `json:"issues"`
	}
	if err := json.Unmarshal([]byte(d.Content), &stored); err != nil || len(stored.Issues) != 2 {
		t.Fatalf("stored content is not list_issues' JSON output: %v %.200s", err, d.Content)
	}
	if int(out["bytes_written"].(float64)) != len(d.Content) || out["preview"] != d.Content[:min(200, len(d.Content))] {
		t.Errorf("bytes_written %v / preview %q do not describe the stored %d bytes", out["bytes_written"], out["preview"], len(d.Content))
	}
	if d.ChangeNote != "piped from list_issues" {
		t.Errorf("change note %q", d.ChangeNote)
	}
	// The output is searchable: its chunks are indexed.
	if n := k.Count(`SELECT COUNT(*) FROM document_chunks`); n == 0 {
		t.Error("the piped output was not chunked")
	}
	// Every call is a new version.
	k.OK("membot_pipe", map[string]any{"tool_name": "list_issues", "tool_input": map[string]any{}, "logical_path": "research/issues.json"})
	if n := pVersions(t, k); n != 2 {
		t.Errorf("%d versions after two pipes, want 2", n)
	}
}

// TestPipeFillsTheProject: arguments a direct call may leave out (the
// session's project) may be left out through the pipe too.
func TestPipeFillsTheProject(t *testing.T) {
	k := testkit.New(t)
	k.OK("membot_pipe", map[string]any{"tool_name": "task_create", "tool_input": map[string]any{"title": "piped"},
		"logical_path": "created.json"})
	if d := pDoc(t, k, "created.json"); d == nil || !strings.Contains(d.Content, `"task_id":"COL-1"`) {
		t.Fatalf("stored = %+v", d)
	}
}

func TestPipeRefusals(t *testing.T) {
	k := testkit.New(t)
	cases := []struct {
		name, tool string
		input      map[string]any
		code, typ  string
	}{
		{"unknown tool", "no_such_tool", map[string]any{}, baton.ErrNotFound, "unknown_tool"},
		{"terminal tool", "complete_task", map[string]any{"summary": "done"}, baton.ErrPermissionDenied, "forbidden_tool"},
		{"itself", "membot_pipe", map[string]any{}, baton.ErrPermissionDenied, "forbidden_tool"},
		{"inner schema", "get_issue", map[string]any{"issue_id": 5}, baton.ErrInvalidInput, "invalid_input"},
		{"inner failure", "get_issue", map[string]any{"issue_id": "COL-999"}, baton.ErrInvalidInput, "inner_tool_error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := k.Fail("membot_pipe", map[string]any{"tool_name": tc.tool, "tool_input": tc.input, "logical_path": "out.json"}, tc.code)
			if e.Type != tc.typ || e.Hint == "" {
				t.Errorf("error_type %q hint %q, want %q and a hint", e.Type, e.Hint, tc.typ)
			}
			if n := pVersions(t, k); n != 0 {
				t.Errorf("a refused pipe wrote %d versions", n)
			}
		})
	}
	e := k.Fail("membot_pipe", map[string]any{"tool_name": "get_issue", "tool_input": map[string]any{"issue_id": "COL-999"}, "logical_path": "out.json"}, baton.ErrInvalidInput)
	if e.Details["inner_tool_is_error"] != true || !strings.Contains(e.Message, "COL-999") {
		t.Errorf("inner failure: details %v message %q", e.Details, e.Message)
	}
}

// TestPipeGoesThroughTheCallersScope: a tool the caller may not call
// directly cannot be reached by piping it.
func TestPipeGoesThroughTheCallersScope(t *testing.T) {
	k := testkit.New(t)
	scope := filepath.Join(t.TempDir(), "scope.json")
	if err := os.WriteFile(scope, []byte(`["membot_pipe"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	k.Principal.ScopeFile = scope
	e := k.Fail("membot_pipe", map[string]any{"tool_name": "list_issues", "tool_input": map[string]any{}, "logical_path": "x.json"}, baton.ErrPermissionDenied)
	if e.Type != "forbidden_tool" {
		t.Errorf("error_type %q, want forbidden_tool", e.Type)
	}
	if n := pVersions(t, k); n != 0 {
		t.Errorf("wrote %d versions", n)
	}
}
