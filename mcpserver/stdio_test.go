package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveLines runs ServeIO over input and returns every message written,
// in order.
func serveLines(t *testing.T, input string) []map[string]any {
	t.Helper()
	k := testkit.New(t)
	var out bytes.Buffer
	if err := mcpserver.NewFactory(k.Registry, k.Env, "test").ServeIO(context.Background(), k.Principal, strings.NewReader(input), &out); err != nil {
		t.Fatalf("ServeIO: %v", err)
	}
	var msgs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %.200q", line)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// padded is a ping request with id whose line is exactly size bytes long:
// the padding sits in params._meta, which every method accepts.
func padded(id string, size int) string {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping","params":{"_meta":{"pad":"`, id)
	tail := `"}}}`
	return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
}

// TestPoint10OversizedStdioLines: a line over the limit (16 MiB) is
// answered with a JSON-RPC invalid-request error naming the limit, with
// the request's id when its start shows it, and the session serves the
// next lines; a line of exactly the limit is still served. Before, the
// SDK's frame limit ended the session on any line over 16 MiB.
func TestPoint10OversizedStdioLines(t *testing.T) {
	t.Parallel()
	const limit = mcp.DefaultMaxLineLength
	over := padded("5", limit+1<<20)          // 17 MiB, id first
	idLast := `{"params":{"_meta":{"pad":"` + // id past the part searched
		strings.Repeat("y", limit) + `"}},"jsonrpc":"2.0","id":6,"method":"ping"}`
	notJSON := strings.Repeat("z", 40<<20) // past the old 32 MiB scanner cap too
	input := initLines + over + "\n" + idLast + "\n" + notJSON + "\n" +
		padded("7", limit) + "\n" +
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"server_ping","arguments":{}}}` + "\n"
	msgs := serveLines(t, input)
	got := map[string]map[string]any{}
	nulls := 0
	for _, m := range msgs {
		id, _ := json.Marshal(m["id"])
		got[string(id)] = m
		if string(id) == "null" {
			nulls++
		}
	}

	for _, tc := range []struct {
		id   string
		size int
	}{{"5", len(over)}, {"null", len(idLast)}} {
		e, _ := got[tc.id]["error"].(map[string]any)
		if e == nil || e["code"] != -32600.0 {
			t.Fatalf("id %s: want an invalid-request error, got %.300v", tc.id, got[tc.id])
		}
		msg, _ := e["message"].(string)
		if tc.id == "5" && !strings.Contains(msg, fmt.Sprint(tc.size)) {
			t.Errorf("id %s: the message does not name the size %d: %q", tc.id, tc.size, msg)
		}
		if !strings.Contains(msg, fmt.Sprint(limit)) {
			t.Errorf("id %s: the message does not name the limit: %q", tc.id, msg)
		}
		b, _ := json.Marshal(e["data"])
		var env struct {
			Error struct {
				Code    string         `json:"code"`
				Details map[string]any `json:"details"`
				Hint    string         `json:"next_action_hint"`
			} `json:"error"`
		}
		if err := json.Unmarshal(b, &env); err != nil || env.Error.Code != "ERR_INVALID_INPUT" ||
			env.Error.Details["limit"] != float64(limit) || env.Error.Hint == "" {
			t.Errorf("id %s: data = %s", tc.id, b)
		}
	}
	// The line whose id comes after 16 MiB of params and the 40 MiB line
	// of no JSON are refused with id null; nothing answers id 6.
	if nulls != 2 {
		t.Errorf("%d replies with id null, want 2", nulls)
	}
	if _, ok := got["6"]; ok {
		t.Errorf("id 6 was answered: %.300v", got["6"])
	}
	if got["7"]["result"] == nil {
		t.Errorf("a line of exactly %d bytes was not served: %v", limit, got["7"])
	}
	if got["8"]["result"] == nil {
		t.Errorf("the session did not go on after oversized lines: %v", got["8"])
	}
}
