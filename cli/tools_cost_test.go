package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// WorkerSchemaBudget is the most the worker profile's tools/list may cost
// in schema tokens (chars/4). Measured at 32,214 with 85 tools when it was
// last set (issue 15 added Botholomew's knowledge tools and Symphony's
// vault), with about 12 % headroom; docs/profiles.md and
// docs/performance.md say the same, and change with it.
const WorkerSchemaBudget = 36000

// TestWorkerSchemaBudget fails when what a worker session's tools/list
// puts in a model's context grows past the documented budget.
func TestWorkerSchemaBudget(t *testing.T) {
	reg := tools.Registry()
	scope := registryDefaults("worker", false)
	got := tool.ScopeTokens(reg, scope)
	t.Logf("worker: %d tools, ≈ %d tokens (chars/4), budget %d", len(scope.Names(reg)), got, WorkerSchemaBudget)
	if got > WorkerSchemaBudget {
		var top []string
		for _, n := range scope.Names(reg) {
			tl, _ := reg.Get(n)
			top = append(top, fmt.Sprintf("%6d %s", tool.SchemaTokens(tl.Spec()), n))
		}
		slices.Sort(top)
		slices.Reverse(top)
		t.Fatalf("the worker profile's tools cost ≈ %d tokens, over the budget of %d: trim descriptions or schemas, "+
			"or raise the budget with docs/profiles.md and docs/performance.md. Largest:\n%s", got, WorkerSchemaBudget, strings.Join(top[:min(8, len(top))], "\n"))
	}
}

// mcpSession runs `baton mcp args...` in-process on the given JSON-RPC
// lines and returns its exit code, the responses by id and stderr.
func mcpSession(t *testing.T, env map[string]string, args []string, requests ...string) (int, map[string]json.RawMessage, string) {
	t.Helper()
	in := strings.Join(append([]string{
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, requests...), "\n") + "\n"
	var out, errb bytes.Buffer
	app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }}
	code := app.Run(context.Background(), append([]string{"mcp"}, args...))
	byID := map[string]json.RawMessage{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil {
			byID[strings.Trim(string(m.ID), `"`)] = slices.Clone(sc.Bytes())
		}
	}
	return code, byID, errb.String()
}

// listedTools are the raw tools of a tools/list response, by name.
func listedTools(t *testing.T, resp json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var r struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.Result.Tools == nil {
		t.Fatalf("not a tools/list result: %s", resp)
	}
	out := map[string]json.RawMessage{}
	for _, raw := range r.Result.Tools {
		var n struct{ Name string }
		_ = json.Unmarshal(raw, &n)
		out[n.Name] = raw
	}
	return out
}

const listTools = `{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{}}`

// TestSchemaTokensMatchTheWire: the estimate measures exactly what an MCP
// client receives for each tool in tools/list.
func TestSchemaTokensMatchTheWire(t *testing.T) {
	env := newDB(t)
	reg := tools.Registry()
	// A session without a profile lacks the privileged tools; a scope file
	// naming every tool lists them all.
	var every []string
	for _, tl := range reg.All() {
		every = append(every, tl.Spec().Name)
	}
	scope := filepath.Join(t.TempDir(), "every.json")
	if b, err := json.Marshal(every); err != nil || os.WriteFile(scope, b, 0o644) != nil {
		t.Fatal("cannot write the scope file")
	}
	code, resp, stderr := mcpSession(t, env, []string{"--tool-scope-file", scope}, listTools)
	if code != 0 {
		t.Fatalf("mcp exit %d: %s", code, stderr)
	}
	listed := listedTools(t, resp["list"])
	aliases := 0
	for _, tl := range reg.All() {
		if tl.Spec().AliasOf != "" {
			aliases++
		}
	}
	if len(listed) != reg.Len()-aliases {
		t.Fatalf("tools/list has %d tools, the registry %d and %d aliases (never listed)", len(listed), reg.Len(), aliases)
	}
	for _, tl := range reg.All() {
		s := tl.Spec()
		if s.AliasOf != "" {
			continue
		}
		if got, want := tool.SchemaChars(s), utf8.RuneCount(listed[s.Name]); got != want {
			t.Errorf("%s: SchemaChars = %d, tools/list carries %d characters", s.Name, got, want)
		}
	}
}

// TestToolsCostOutput: `baton tools` reports the cost of everything and
// `--profile` the cost of each of the profile's tools, saying how it was
// estimated; the figures agree with ComputeScope and SchemaTokens.
func TestToolsCostOutput(t *testing.T) {
	env := newDB(t)
	reg := tools.Registry()
	all := 0
	for _, tl := range reg.All() {
		all += tool.SchemaTokens(tl.Spec())
	}
	r := baton(t, env, "tools")
	if r.code != 0 || !strings.Contains(r.stdout, "TOOL  ") || !strings.Contains(r.stdout, "DESCRIPTION") ||
		!strings.Contains(r.stdout, fmt.Sprintf("%d tools (every registered tool): ≈ %d tokens of schema in tools/list (estimated as chars/4)", reg.Len(), all)) {
		t.Fatalf("baton tools = %+v", r)
	}
	if e := toolsOf(t, env); e.Count != reg.Len() || e.Tokens != all || e.Estimate != "chars/4" {
		t.Fatalf("baton tools --json = %+v", e)
	}

	for _, scheduler := range []bool{false, true} {
		scope := registryDefaults("planner", scheduler)
		args := []string{"tools", "--profile", "planner"}
		if scheduler {
			args = append(args, "--scheduler")
		}
		r := baton(t, env, args...)
		want := fmt.Sprintf("%d tools (%s): ≈ %d tokens of schema in tools/list (estimated as chars/4)", len(scope.Names(reg)), scope.Rule, tool.ScopeTokens(reg, scope))
		if r.code != 0 || !strings.Contains(r.stdout, "≈TOKENS") || !strings.Contains(r.stdout, want) {
			t.Fatalf("baton %v =\n%s\nwant a line %q", args, r.stdout, want)
		}
		for _, n := range scope.Names(reg) {
			tl, _ := reg.Get(n)
			line := fmt.Sprintf("%s  ", n)
			if !strings.Contains(r.stdout, line) || !strings.Contains(r.stdout, fmt.Sprint(tool.SchemaTokens(tl.Spec()))) {
				t.Fatalf("baton %v lacks %s with its cost", args, n)
			}
		}
		e := profileTools(t, env, "planner", args[3:]...)
		sum := 0
		for _, c := range e.Tools {
			sum += c.Tokens
		}
		if e.Count != len(scope.Names(reg)) || e.Tokens != sum || e.Rule != scope.Rule || e.Warnings == nil {
			t.Fatalf("tools --profile planner --json = %+v", e)
		}
	}
}

// TestToolsets: --toolsets and --read-only decide which tools a server
// registers; the rest are unknown to it, and a bad toolset is a usage
// error naming the valid ones.
func TestToolsets(t *testing.T) {
	env := newDB(t)
	reg := tools.Registry()
	// The session names no profile, so it lists no privileged tool.
	want := func(keep func(*tool.Spec) bool) []string {
		var out []string
		for _, tl := range reg.All() {
			if keep(tl.Spec()) && !tl.Spec().Annotations.Privileged && tl.Spec().AliasOf == "" {
				out = append(out, tl.Spec().Name)
			}
		}
		slices.Sort(out)
		return out
	}
	cases := []struct {
		name string
		args []string
		keep func(*tool.Spec) bool
	}{
		{"default is all", nil, func(*tool.Spec) bool { return true }},
		{"all", []string{"--toolsets", "all"}, func(*tool.Spec) bool { return true }},
		{"two toolsets", []string{"--toolsets", "issues,claims"}, func(s *tool.Spec) bool { return s.Toolset == "issues" || s.Toolset == "claims" }},
		{"repeated flag", []string{"--toolsets", "issues", "--toolsets", "claims"}, func(s *tool.Spec) bool { return s.Toolset == "issues" || s.Toolset == "claims" }},
		{"read-only", []string{"--read-only"}, func(s *tool.Spec) bool { return s.Annotations.ReadOnly }},
		{"toolset and read-only", []string{"--toolsets", "tasks", "--read-only"}, func(s *tool.Spec) bool { return s.Toolset == "tasks" && s.Annotations.ReadOnly }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The full preset: toolsets select among every tool.
			code, resp, stderr := mcpSession(t, env, append([]string{"--preset", "full"}, c.args...), listTools)
			if code != 0 {
				t.Fatalf("mcp %v exit %d: %s", c.args, code, stderr)
			}
			var got []string
			for n := range listedTools(t, resp["list"]) {
				got = append(got, n)
			}
			slices.Sort(got)
			if w := want(c.keep); !slices.Equal(got, w) {
				t.Fatalf("mcp %v lists\n%v\nwant\n%v", c.args, got, w)
			}
		})
	}

	// A tool outside the toolsets is not registered: calling it names an
	// unknown tool; server_health reports the read-only mode.
	code, resp, _ := mcpSession(t, env, []string{"--toolsets", "system", "--read-only", "--preset", "full"},
		`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"task_create","arguments":{"title":"x"}}}`,
		`{"jsonrpc":"2.0","id":"health","method":"tools/call","params":{"name":"server_health","arguments":{}}}`)
	if code != 0 || !strings.Contains(string(resp["call"]), `unknown tool \"task_create\"`) {
		t.Fatalf("call outside the toolsets = %s", resp["call"])
	}
	if !strings.Contains(string(resp["health"]), `"mode":"READONLY"`) || !strings.Contains(string(resp["health"]), `"registered":2`) {
		t.Fatalf("server_health = %s", resp["health"])
	}

	valid := strings.Join(reg.Toolsets(), ", ")
	for _, args := range [][]string{
		{"mcp", "--toolsets", "issues,nope"},
		{"mcp", "--toolsets", ""},
		{"serve", "--insecure-local", "--addr", "127.0.0.1:0", "--toolsets", "nope"},
	} {
		r := baton(t, env, args...)
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "ERR_INVALID_INPUT") || !strings.Contains(r.stderr, valid) {
			t.Errorf("baton %v = exit %d, stderr %q; want exit 2 listing %s", args, r.code, r.stderr, valid)
		}
	}
}
