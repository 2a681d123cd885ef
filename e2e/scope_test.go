package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// stdioTools lists the tools a `baton mcp` started with args offers.
func stdioTools(t *testing.T, args ...string) (*stdioServer, []string) {
	t.Helper()
	s := startStdio(t, args...)
	s.initialize()
	r := s.call("tools/list", map[string]any{})
	res, ok := r["result"].(map[string]any)
	if !ok {
		t.Fatalf("tools/list: %v", r)
	}
	var names []string
	for _, tl := range res["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return s, names
}

// callCode calls a tool over stdio and returns its error code ("" on
// success).
func callCode(t *testing.T, s *stdioServer, name string, args map[string]any) string {
	t.Helper()
	structured, isErr := toolResult(t, s.call("tools/call", map[string]any{"name": name, "arguments": args}))
	if !isErr {
		return ""
	}
	e, _ := structured["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// TestStdioProfileScope: `baton mcp --agent-type` limits the list and the
// calls to the profile's tools, and --tool-scope-file wins over it.
func TestStdioProfileScope(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	s, tools := stdioTools(t, "--db", db, "--agent", "agent-s", "--agent-type", "scanner")
	if !slices.Contains(tools, "record_coverage") || slices.Contains(tools, "move_issue") || slices.Contains(tools, "record_test_health") {
		t.Errorf("scanner lists %v", tools)
	}
	if code := callCode(t, s, "move_issue", map[string]any{"issue_id": "COL-1", "target_project_id": "x", "reason": "r"}); code != "ERR_PERMISSION_DENIED" {
		t.Errorf("scanner move_issue: %q, want ERR_PERMISSION_DENIED", code)
	}

	file := filepath.Join(t.TempDir(), "scope.json")
	if err := os.WriteFile(file, []byte(`["get_issue","task_create"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, tools = stdioTools(t, "--db", db, "--agent", "agent-s", "--agent-type", "scanner", "--tool-scope-file", file)
	if !slices.Equal(tools, []string{"task_create", "get_issue"}) && !slices.Equal(tools, []string{"get_issue", "task_create"}) {
		t.Errorf("scope file session lists %v", tools)
	}
	if code := callCode(t, s, "record_coverage", map[string]any{"file_path": "a.go", "concept": "c", "status": "reviewed"}); code != "ERR_PERMISSION_DENIED" {
		t.Errorf("record_coverage outside the scope file: %q", code)
	}
	if code := callCode(t, s, "task_create", map[string]any{"title": "in scope", "project": "colibri"}); code != "" {
		t.Errorf("task_create inside the scope file: %q", code)
	}
}

// TestStdioScopeFileErrors: a missing or malformed scope file stops
// `baton mcp` at once with a message saying what to write.
func TestStdioScopeFileErrors(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"get_issue": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{filepath.Join(t.TempDir(), "missing.json"), bad} {
		out, code := cliRunAll(t, "--db", db, "mcp", "--tool-scope-file", file)
		if code != 1 || !strings.Contains(out, "ERR_CONFIG_INVALID") || !strings.Contains(out, "hint:") {
			t.Errorf("scope file %s: exit %d, output %q", filepath.Base(file), code, out)
		}
	}
}

// TestStdioSchedulerMode: `baton mcp --scheduler` offers no
// scheduler-blocked tool and caps creations per session.
func TestStdioSchedulerMode(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	s, tools := stdioTools(t, "--db", db, "--agent", "cron", "--agent-type", "worker", "--scheduler")
	for _, blocked := range []string{"ask_owner", "announce"} {
		if slices.Contains(tools, blocked) {
			t.Errorf("scheduler session lists %s", blocked)
		}
	}
	for i := range 3 {
		if code := callCode(t, s, "create_issue", map[string]any{"title": "nightly", "project": "colibri"}); code != "" {
			t.Fatalf("create %d: %s", i+1, code)
		}
	}
	if code := callCode(t, s, "create_issue", map[string]any{"title": "one too many", "project": "colibri"}); code != "ERR_PERMISSION_DENIED" {
		t.Fatalf("4th create: %q", code)
	}
	// A new process is a new session.
	s, _ = stdioTools(t, "--db", db, "--agent", "cron", "--agent-type", "worker", "--scheduler")
	if code := callCode(t, s, "create_issue", map[string]any{"title": "next night", "project": "colibri"}); code != "" {
		t.Fatalf("create in a new session: %s", code)
	}
}

// cliRunAll runs the binary and returns stdout and stderr together, and
// the exit code.
func cliRunAll(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return string(out), 0
}
