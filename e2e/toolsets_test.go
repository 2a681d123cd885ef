package e2e

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// listed is a tools/list result as the binary sends it: each tool's name,
// toolset (from _meta) and read-only hint.
type listed struct {
	name, toolset string
	readOnly      bool
}

func listTools(t *testing.T, s *stdioServer) []listed {
	t.Helper()
	res, ok := s.call("tools/list", map[string]any{})["result"].(map[string]any)
	if !ok {
		t.Fatal("tools/list gave no result")
	}
	var out []listed
	for _, raw := range res["tools"].([]any) {
		m := raw.(map[string]any)
		meta, _ := m["_meta"].(map[string]any)
		ann, _ := m["annotations"].(map[string]any)
		ro, _ := ann["readOnlyHint"].(bool)
		ts, _ := meta["baton/toolset"].(string)
		out = append(out, listed{name: m["name"].(string), toolset: ts, readOnly: ro})
	}
	return out
}

func names(ls []listed, keep func(listed) bool) []string {
	var out []string
	for _, l := range ls {
		if keep(l) {
			out = append(out, l.name)
		}
	}
	slices.Sort(out)
	return out
}

// TestToolsetsOverStdio: --toolsets and --read-only decide what the built
// binary registers; a tool left out is unknown to that server (or out of
// scope for a session with a profile), and a bad toolset stops it with
// exit 2 and the list of toolsets.
func TestToolsetsOverStdio(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	full := startStdio(t, "--db", db)
	full.initialize()
	all := listTools(t, full)
	if len(all) < 40 {
		t.Fatalf("a server with every toolset lists %d tools", len(all))
	}
	everything := func(listed) bool { return true }

	cases := []struct {
		name string
		args []string
		keep func(listed) bool
	}{
		{"issues and claims", []string{"--toolsets", "issues,claims"}, func(l listed) bool { return l.toolset == "issues" || l.toolset == "claims" }},
		{"read-only", []string{"--read-only"}, func(l listed) bool { return l.readOnly }},
		{"one toolset, read-only", []string{"--toolsets", "messages", "--read-only"}, func(l listed) bool { return l.toolset == "messages" && l.readOnly }},
		{"all", []string{"--toolsets", "all"}, everything},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startStdio(t, append([]string{"--db", db}, c.args...)...)
			s.initialize()
			got, want := names(listTools(t, s), everything), names(all, c.keep)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Fatalf("mcp %v lists\n%v\nwant\n%v", c.args, got, want)
			}
		})
	}

	// Left out means not registered: without a profile the call names an
	// unknown tool; with one it is outside the session's scope.
	s := startStdio(t, "--db", db, "--toolsets", "issues,claims")
	s.initialize()
	r := s.call("tools/call", map[string]any{"name": "task_create", "arguments": map[string]any{"title": "x"}})
	if e, _ := r["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), `unknown tool "task_create"`) {
		t.Fatalf("a call outside the toolsets = %v", r)
	}
	w := startStdio(t, "--db", db, "--toolsets", "issues", "--agent-type", "worker")
	w.initialize()
	sc, isErr := toolResult(t, w.call("tools/call", map[string]any{"name": "task_create", "arguments": map[string]any{"title": "x"}}))
	if e, _ := sc["error"].(map[string]any); !isErr || e["code"] != "ERR_PERMISSION_DENIED" {
		t.Fatalf("a worker's call outside the toolsets = %v", sc)
	}

	for _, args := range [][]string{{"mcp", "--toolsets", "issues,nope"}, {"serve", "--addr", "127.0.0.1:0", "--insecure-local", "--toolsets", "nope"}} {
		cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, _ := err.(*exec.ExitError)
		listsToolsets := true
		for _, ts := range []string{"tasks", "issues", "beads", "claims", "messages"} {
			listsToolsets = listsToolsets && strings.Contains(stderr.String(), ts)
		}
		if ee == nil || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), `unknown toolset "nope"`) || !listsToolsets {
			t.Fatalf("baton %v = %v, stderr %q; want exit 2 with the toolsets", args, err, stderr.String())
		}
	}
}

// TestToolsProfileCost: the binary's `baton tools --profile` agrees with
// what a session of the profile lists over stdio.
func TestToolsProfileCost(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	out, code := cliRun(t, "--db", db, "tools", "--profile", "judge", "--json")
	var e struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Tokens   int    `json:"tokens"`
		Estimate string `json:"estimate"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &e) != nil || e.Tokens <= 0 || e.Estimate != "chars/4" {
		t.Fatalf("tools --profile judge --json = %d %s", code, out)
	}
	var cli []string
	for _, x := range e.Tools {
		cli = append(cli, x.Name)
	}
	slices.Sort(cli)
	s := startStdio(t, "--db", db, "--agent-type", "judge")
	s.initialize()
	if got := names(listTools(t, s), func(listed) bool { return true }); !slices.Equal(got, cli) {
		t.Fatalf("a judge session lists\n%v\nbaton tools --profile judge says\n%v", got, cli)
	}
}
