package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tools"
)

type run struct {
	code           int
	stdout, stderr string
}

// baton runs the CLI in-process with env as its whole environment.
func baton(t *testing.T, env map[string]string, args ...string) run {
	t.Helper()
	var out, errb bytes.Buffer
	app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }}
	code := app.Run(context.Background(), args)
	return run{code, out.String(), errb.String()}
}

func newDB(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{"BATON_DB": filepath.Join(t.TempDir(), "b.db")}
	if r := baton(t, env, "init", "--project", "colibri", "--prefix", "COL"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	return env
}

func TestInitDefaultsToWorkingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My Project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	r := baton(t, nil, "init")
	if r.code != 0 || !strings.Contains(r.stdout, "project my-project (prefix MYP)") {
		t.Fatalf("init = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".baton", "baton.db")); err != nil {
		t.Fatalf("database not created under .baton: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".baton", ".gitignore")); string(b) != "*\n" {
		t.Fatalf(".baton/.gitignore = %q", b)
	}
	if r := baton(t, nil, "init"); r.code != 0 || !strings.Contains(r.stdout, "already holds project my-project") {
		t.Fatalf("second init = %+v", r)
	}
	if r := baton(t, nil, "tasks", "task_create", "--title", "x", "--project", "my-project"); r.code != 0 || !strings.Contains(r.stdout, "MYP-1") {
		t.Fatalf("create in the default database = %+v", r)
	}
}

func TestInitRejectsBadNames(t *testing.T) {
	env := map[string]string{"BATON_DB": filepath.Join(t.TempDir(), "b.db")}
	for _, args := range [][]string{{"--project", "Bad Slug!"}, {"--project", "ok", "--prefix", "1X"}} {
		r := baton(t, env, append([]string{"init"}, args...)...)
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "ERR_INVALID_INPUT") {
			t.Errorf("init %v = %+v, want exit 2 with ERR_INVALID_INPUT", args, r)
		}
	}
	newDB(t)
	r := baton(t, env, "init", "--project", "other", "--prefix", "COL")
	if r.code != 0 {
		// The first init of this env failed, so COL is free here; make a clash.
		t.Fatalf("init other = %+v", r)
	}
	if r := baton(t, env, "init", "--project", "third", "--prefix", "col"); r.code != cli.ExitTool || !strings.Contains(r.stderr, "ERR_CONFLICT") {
		t.Fatalf("duplicate prefix = %+v", r)
	}
}

func TestToolCommands(t *testing.T) {
	env := newDB(t)
	r := baton(t, env, "tasks", "task_create", "--title", "Wire up", "--project", "colibri", "--priority", "high",
		"--labels", "a,b", "--labels", "c", "--estimate-hours", "4", "--json")
	if r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	var created map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil {
		t.Fatalf("--json output is not JSON: %q", r.stdout)
	}
	if created["task_id"] != "COL-1" || created["created_by"] != "user" || created["status"] != "backlog" {
		t.Fatalf("created = %v", created)
	}
	r = baton(t, env, "tasks", "task-get", "--task-id", "COL-1", "--json")
	var got map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &got)
	if got["priority"] != "high" || got["estimate_hours"] != 4.0 || strings.Join(toStrings(got["labels"]), ",") != "a,b,c" {
		t.Fatalf("task_get = %v", got)
	}
	// --input gives the whole input; flags win over it.
	r = baton(t, env, "--agent", "agent-bob", "tasks", "task_update", "--input", `{"task_id":"COL-1","status":"todo","progress":10}`,
		"--progress", "20", "--json")
	var upd map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &upd)
	if r.code != 0 || upd["progress"] != 20.0 || upd["previous_status"] != "backlog" || upd["updated_by"] != "agent-bob" {
		t.Fatalf("update = %+v %v", r, upd)
	}
	// Human output: key/value lines and tables.
	r = baton(t, env, "tasks", "task_list")
	if r.code != 0 || !strings.Contains(r.stdout, "TASK_ID") || !strings.Contains(r.stdout, "COL-1") || !strings.Contains(r.stdout, "total_count: 1") {
		t.Fatalf("task_list = %+v", r)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestExitCodes: 0 on success, 1 on a tool error, 2 on a usage error; the
// messages are the ones MCP clients get.
func TestExitCodes(t *testing.T) {
	env := newDB(t)
	baton(t, env, "tasks", "task_create", "--title", "x", "--project", "colibri")
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"ok", []string{"tasks", "task_get", "--task-id", "COL-1"}, 0, ""},
		{"empty title", []string{"tasks", "task_create", "--title", "", "--project", "colibri"}, 2, "title must not be empty"},
		{"long title", []string{"tasks", "task_create", "--title", strings.Repeat("x", 257), "--project", "colibri"}, 2, "title must be at most 256 characters"},
		{"missing title", []string{"tasks", "task_create", "--project", "colibri"}, 2, "title is required"},
		{"bad enum", []string{"tasks", "task_create", "--title", "x", "--project", "colibri", "--priority", "urgent"}, 2, "priority must be one of critical, high, normal, low"},
		{"limit too high", []string{"tasks", "task_list", "--limit", "501"}, 2, "limit must be at most 500"},
		{"unknown project", []string{"tasks", "task_create", "--title", "x", "--project", "nope"}, 1, "ERR_PROJECT_NOT_FOUND"},
		{"unknown task", []string{"tasks", "task_get", "--task-id", "COL-99"}, 1, "ERR_TASK_NOT_FOUND"},
		{"invalid transition", []string{"tasks", "task_update", "--task-id", "COL-1", "--status", "done"}, 1, "ERR_INVALID_TRANSITION"},
		{"unknown flag", []string{"tasks", "task_get", "--bogus"}, 2, "unknown flag: --bogus"},
		{"bad flag value", []string{"tasks", "task_list", "--limit", "many"}, 2, "invalid argument"},
		{"bad --input", []string{"tasks", "task_get", "--input", "{"}, 2, "--input is not a JSON object"},
		{"bad JSON flag", []string{"tasks", "task_get", "--input", `{"task_id":"COL-1"}`, "--task-id", "COL-1", "--include-dependents=maybe"}, 2, "invalid argument"},
		{"unknown command", []string{"nonsense"}, 2, "unknown command"},
		{"unknown tool", []string{"tasks", "task_fly"}, 2, "unknown command \"task_fly\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := baton(t, env, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("baton %v = exit %d, stderr %q; want exit %d containing %q", c.args, r.code, r.stderr, c.code, c.stderr)
			}
		})
	}
}

// TestJSONErrorEnvelope: with --json a failure prints the same envelope
// an MCP client receives as structuredContent.
func TestJSONErrorEnvelope(t *testing.T) {
	env := newDB(t)
	r := baton(t, env, "tasks", "task_get", "--task-id", "COL-9", "--json")
	var m map[string]map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || r.code != 1 {
		t.Fatalf("got %+v", r)
	}
	if m["error"]["code"] != "ERR_TASK_NOT_FOUND" || m["error"]["next_action_hint"] == "" {
		t.Fatalf("envelope = %v", m)
	}
}

func TestToolsListing(t *testing.T) {
	r := baton(t, nil, "tools")
	for _, tl := range tools.All() {
		s := tl.Spec()
		if !strings.Contains(r.stdout, s.Name) || !strings.Contains(r.stdout, s.Toolset) {
			t.Errorf("baton tools lacks %s (%s)", s.Name, s.Toolset)
		}
	}
}

// TestToolsDocIsFresh fails when docs/tools.md differs from what the
// registry generates. Refresh it with:
//
//	go run ./cmd/baton tools --markdown > docs/tools.md
func TestToolsDocIsFresh(t *testing.T) {
	path := filepath.Join("..", "docs", "tools.md")
	want := cli.ToolsMarkdown(tools.Registry())
	if os.Getenv("UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("docs/tools.md is stale; regenerate it with: go run ./cmd/baton tools --markdown > docs/tools.md")
	}
}

// TestFirstStartNeedsInit: `baton mcp` in a directory with no database
// says where it looked and to run `baton init`, creating nothing; after
// init it works, with the project named after the directory.
func TestFirstStartNeedsInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task_next_actions","arguments":{}}}`,
	}, "\n") + "\n"
	mcp := func() (int, string, string) {
		var out, errb bytes.Buffer
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb,
			Getenv: func(string) string { return "" }}
		code := app.Run(context.Background(), []string{"mcp", "--agent", "a", "--preset", "colibri"})
		return code, out.String(), errb.String()
	}
	if code, _, errs := mcp(); code == 0 || !strings.Contains(errs, "baton init") {
		t.Fatalf("mcp without a database: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".baton")); !os.IsNotExist(err) {
		t.Fatalf("mcp created .baton without a database to use (%v)", err)
	}
	if r := baton(t, nil, "init"); r.code != 0 || !strings.Contains(r.stdout, "project shop (prefix SHO)") {
		t.Fatalf("init = %+v", r)
	}
	if code, out, errs := mcp(); code != 0 || !strings.Contains(out, `\"project\":\"shop\"`) {
		t.Fatalf("mcp after init: exit %d\nstderr %q\nstdout %q", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".baton", ".gitignore")); err != nil {
		t.Fatal(".baton/.gitignore not written")
	}
}

// TestRunsIngestReadyAndMemory: the commands around the tools that have no
// tool of their own.
func TestRunsIngestReadyAndMemory(t *testing.T) {
	env := newDB(t)
	baton(t, env, "tasks", "task_create", "--title", "Ship it", "--project", "colibri")
	baton(t, env, "tasks", "task_update", "--task-id", "COL-1", "--status", "todo")
	if r := baton(t, env, "ready"); r.code != 0 || !strings.Contains(r.stdout, "COL-1") || !strings.Contains(r.stdout, "1 ready in colibri") {
		t.Fatalf("ready = %+v", r)
	}
	stream := `{"type":"system","subtype":"init","model":"m"}
{"type":"result","subtype":"error_max_turns","is_error":true,"duration_ms":1000,"total_cost_usd":0.25}
`
	var out, errb bytes.Buffer
	app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(stream), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }}
	if code := app.Run(context.Background(), []string{"--agent", "agent-w", "runs", "ingest", "--issue", "COL-1"}); code != 0 {
		t.Fatalf("ingest: %d %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "recorded run R-1 on COL-1: failed, 2 events, $0.2500") {
		t.Fatalf("ingest said %q", out.String())
	}
	r := baton(t, env, "issues", "get_issue_status", "--issue-id", "COL-1", "--json")
	if !strings.Contains(r.stdout, `"status":"failed","error":"error_max_turns","cost":0.25`) || !strings.Contains(r.stdout, `"agent":"agent-w"`) {
		t.Fatalf("get_issue_status = %s", r.stdout)
	}
	if r := baton(t, env, "runs", "ingest"); r.code != cli.ExitUsage {
		t.Fatalf("ingest without --issue = %+v", r)
	}
	if r := baton(t, env, "memory", "show"); r.code != cli.ExitUsage {
		t.Fatalf("memory show without --profile = %+v", r)
	}
	if r := baton(t, env, "memory", "show", "--profile", "worker"); r.code != 0 || r.stdout != "" {
		t.Fatalf("empty memory = %+v", r)
	}
}
