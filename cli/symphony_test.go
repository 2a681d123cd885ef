package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
)

// callResult decodes a tools/call response: its structured content and
// whether it is an error.
func callResult(t *testing.T, resp json.RawMessage) (map[string]any, bool) {
	t.Helper()
	var r struct {
		Result struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("response %s: %v", resp, err)
	}
	return r.Result.StructuredContent, r.Result.IsError
}

func toolCall(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// TestPoint18SymphonyLaunchLine: `baton mcp` takes Symphony's launch line
// as it is: --project-id (a slug or id prefix) and --project-slug name the
// session's project, and with --symphony-dir agent memory lives where
// Symphony reads it, DIR/data/memory/<slug>/<profile>/ and _global.
func TestPoint18SymphonyLaunchLine(t *testing.T) {
	env := newDB(t)
	baton(t, env, "init", "--project", "other", "--prefix", "OTH")
	if r := baton(t, env, "tasks", "task_create", "--title", "Token counting", "--project", "colibri"); r.code != 0 {
		t.Fatalf("create = %+v", r)
	}
	sym := t.TempDir()
	launch := []string{"--issue-id", "COL-1", "--db", env["BATON_DB"], "--project-id", "col", "--worktree-path", t.TempDir(),
		"--agent-type", "worker", "--project-slug", "colibri", "--symphony-dir", sym}
	code, resp, stderr := mcpSession(t, env, launch,
		toolCall("p", "update_memory", `{"scope":"project","filename":"codebase-notes.md","content":"# Notes\n- WAL"}`),
		toolCall("g", "update_memory", `{"scope":"global","filename":"style.md","content":"short"}`),
		toolCall("l", "list_issues", `{}`),
		toolCall("i", "get_issue", `{}`))
	if code != 0 {
		t.Fatalf("mcp exit %d: %s", code, stderr)
	}
	for id, file := range map[string]string{
		"p": filepath.Join(sym, "data", "memory", "colibri", "worker", "codebase-notes.md"),
		"g": filepath.Join(sym, "data", "memory", "_global", "worker", "style.md"),
	} {
		if out, isErr := callResult(t, resp[id]); isErr {
			t.Errorf("update_memory %s: %v", id, out)
		}
		if _, err := os.Stat(file); err != nil {
			t.Errorf("memory not where Symphony reads it: %v", err)
		}
	}
	if out, _ := callResult(t, resp["l"]); out["project"] != "colibri" {
		t.Errorf("list_issues without project = %v, want the session's project colibri", out)
	}
	if out, _ := callResult(t, resp["i"]); out["id"] != "COL-1" {
		t.Errorf("get_issue = %v, want the bound COL-1", out)
	}

	// Each flag alone names the project too; an id baton does not know is
	// reported and left out.
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--project-id", "colibri"}, false},
		{[]string{"--project-id", "COL"}, false},
		{[]string{"--project-slug", "colibri"}, false},
		{[]string{"--project-id", "4f1c-uuid", "--project-slug", "colibri"}, true},
	} {
		code, resp, stderr := mcpSession(t, env, tc.args, toolCall("l", "list_issues", `{}`))
		if out, _ := callResult(t, resp["l"]); code != 0 || out["project"] != "colibri" {
			t.Errorf("mcp %v: exit %d, list_issues %v, stderr %s", tc.args, code, out, stderr)
		}
		if warned := strings.Contains(stderr, "--project-id 4f1c-uuid names no project"); warned != tc.warn {
			t.Errorf("mcp %v: stderr %q", tc.args, stderr)
		}
	}

	// Flags that contradict each other, or a Symphony directory that is
	// not one, stop the server at start.
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--project", "other", "--project-slug", "colibri"}, "name different projects"},
		{[]string{"--project-slug", "colibri", "--project-id", "OTH"}, "is project other"},
		{[]string{"--symphony-dir", notDir}, "is not a directory"},
		{[]string{"--symphony-dir", filepath.Join(sym, "absent")}, "is not a directory"},
	} {
		code, _, stderr := mcpSession(t, env, tc.args)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("mcp %v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
	}
}
