package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// script is the call sequence every transport must answer identically.
var script = []struct{ tool, args string }{
	{"server_ping", `{}`},
	{"task_create", `{"title":"Wire up task_create","description":"Implement the handler","project":"colibri","priority":"high","labels":["phase-0","mcp"],"estimate_hours":4}`},
	{"task_create", `{"title":"Write tests","project":"colibri","parent_id":"COL-1"}`},
	{"task_create", `{"title":"","project":"colibri"}`},
	{"task_create", `{"title":"x","project":"nope"}`},
	{"task_update", `{"task_id":"COL-1","status":"todo"}`},
	{"task_update", `{"task_id":"COL-2","status":"todo","progress":100}`},
	{"task_update", `{"task_id":"COL-1","status":"done"}`},
	{"task_update", `{"task_id":"COL-2","status":"blocked"}`},
	{"task_get", `{"task_id":"COL-1","include_dependents":true}`},
	{"task_get", `{"task_id":"COL-404"}`},
	{"task_list", `{"project":"colibri","status":["todo"],"sort_by":"priority","sort_order":"desc","limit":10}`},
	{"task_list", `{"search":"wire","limit":501}`},
	{"task_list", `{"search":"handl"}`},
	{"task_next_actions", `{"project":"colibri","include_blocked":true}`},
}

var timestamps = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)

// normal reduces a result to what must agree across transports.
func normal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m any
	_ = json.Unmarshal(b, &m)
	b, _ = json.Marshal(m) // sorted keys
	return timestamps.ReplaceAllString(string(b), "<time>")
}

// viaSession runs the script through an MCP client session.
func viaSession(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for _, c := range script {
		var args map[string]any
		_ = json.Unmarshal([]byte(c.args), &args)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		out = append(out, normal(t, res.StructuredContent))
	}
	return out
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestParity(t *testing.T) {
	t.Parallel()
	results := map[string][]string{}

	// stdio: the binary under a real MCP client.
	db := newDB(t)
	results["stdio"] = viaSession(t, connect(t, &mcp.CommandTransport{
		Command: exec.Command(bin, "--db", db, "mcp", "--preset", "full", "--agent", "agent-alice")}))

	// Streamable HTTP: the binary under a real MCP client.
	srv := startHTTP(t, newDB(t), "--agent", "agent-alice")
	results["http"] = viaSession(t, connect(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp"}))

	// In-process: the same server code over in-memory pipes.
	k := testkit.New(t)
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.Server(k.Principal).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	results["in-process"] = viaSession(t, connect(t, ct))

	// CLI: the binary, one command per call.
	db = newDB(t)
	for _, c := range script {
		var tool struct{ Toolset string }
		for _, tl := range k.Registry.All() {
			if tl.Spec().Name == c.tool {
				tool.Toolset = tl.Spec().Toolset
			}
		}
		out, _ := cliRun(t, "--db", db, "--agent", "agent-alice", tool.Toolset, c.tool, "--input", c.args, "--json")
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("cli %s printed %q", c.tool, out)
		}
		results["cli"] = append(results["cli"], normal(t, v))
	}

	ref := results["in-process"]
	for i, want := range map[int]string{1: `"task_id":"COL-1"`, 3: "ERR_INVALID_INPUT", 4: "ERR_PROJECT_NOT_FOUND",
		7: "ERR_INVALID_TRANSITION", 9: `"dependents":["COL-2"]`, 12: "limit must be at most 500", 14: "waiting on"} {
		if !strings.Contains(ref[i], want) {
			t.Fatalf("call %d (%s) = %s, want it to contain %s", i, script[i].tool, ref[i], want)
		}
	}
	for name, got := range results {
		for i := range script {
			if got[i] != ref[i] {
				t.Errorf("%s differs from in-process on call %d (%s %s):\n  %s\n  %s", name, i, script[i].tool, script[i].args, got[i], ref[i])
			}
		}
	}
}

// TestConcurrentCreatesOverHTTP: 32 agents, each with its own session,
// create at once; every one gets its own id and sequence, none is lost.
func TestConcurrentCreatesOverHTTP(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, newDB(t), "--agent", "agent-alice")
	const n = 32
	ids := make(chan string, n)
	seqs := make(chan float64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp"})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "task_create",
				Arguments: map[string]any{"title": fmt.Sprintf("task %d", i), "project": "colibri"}})
			if err != nil || res.IsError {
				t.Errorf("create %d: %v %v", i, err, res)
				return
			}
			sc := res.StructuredContent.(map[string]any)
			ids <- sc["task_id"].(string)
			seqs <- sc["sequence"].(float64)
		}()
	}
	wg.Wait()
	close(ids)
	close(seqs)
	seenID, seenSeq := map[string]bool{}, map[float64]bool{}
	for id := range ids {
		seenID[id] = true
	}
	for s := range seqs {
		seenSeq[s] = true
	}
	if len(seenID) != n || len(seenSeq) != n {
		t.Fatalf("%d distinct ids and %d distinct sequences, want %d", len(seenID), len(seenSeq), n)
	}
	for s := 1.0; s <= n; s++ {
		if !seenSeq[s] {
			t.Fatalf("sequence %v missing", s)
		}
	}
}
