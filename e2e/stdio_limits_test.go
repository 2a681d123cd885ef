package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPoint10OversizedStdioLine: a 17 MiB line to `baton mcp` (over the
// 16 MiB limit) is answered with a JSON-RPC invalid-request error that
// carries its id and names the limit, and the process goes on serving:
// the next request is answered, and so is one after that. It used to end
// the process with exit 1.
func TestPoint10OversizedStdioLine(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	s := startStdio(t, "--db", db, "--agent", "agent-big")
	s.initialize()

	head := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"task_create","arguments":{"project":"colibri","title":"big","description":"`
	tail := `"}}}`
	s.send(head + strings.Repeat("x", 17<<20-len(head)-len(tail)) + tail)
	r := s.read(`"big"`)
	e, _ := r["error"].(map[string]any)
	if e == nil || e["code"] != -32600.0 {
		t.Fatalf("oversized line: %v", r)
	}
	if msg, _ := e["message"].(string); !strings.Contains(msg, "16777216") || !strings.Contains(msg, "17825792") {
		t.Errorf("the error does not say the limit and the size: %q", msg)
	}
	b, _ := json.Marshal(e["data"])
	if !strings.Contains(string(b), `"ERR_INVALID_INPUT"`) || !strings.Contains(string(b), `"limit":16777216`) {
		t.Errorf("error data = %s", b)
	}

	if r := s.call("tools/call", map[string]any{"name": "task_create",
		"arguments": map[string]any{"project": "colibri", "title": "after the big one"}}); r["result"] == nil {
		t.Fatalf("the request after the oversized line: %v", r)
	} else if sc, isErr := toolResult(t, r); isErr || sc["task_id"] == nil {
		t.Fatalf("task_create after the oversized line failed: %v", sc)
	}
	// Nothing of the oversized call was stored: the item made after it is
	// the first.
	out, code := cliRun(t, "--db", db, "tasks", "task_list", "--project", "colibri", "--json")
	if code != 0 || strings.Contains(out, `"big"`) || !strings.Contains(out, "after the big one") {
		t.Errorf("task_list: %d %s", code, out)
	}
	if r := s.call("ping", map[string]any{}); r["result"] == nil {
		t.Fatalf("the process did not go on serving: %v", r)
	}
}
