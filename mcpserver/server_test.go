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
)

const initLines = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// serve runs ServeIO over input and returns the messages written, by id.
func serve(t *testing.T, input string) map[string]map[string]any {
	t.Helper()
	k := testkit.New(t)
	var out bytes.Buffer
	if err := mcpserver.NewFactory(k.Registry, k.Env, "test").ServeIO(context.Background(), k.Principal, strings.NewReader(input), &out); err != nil {
		t.Fatalf("ServeIO: %v", err)
	}
	got := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		id, _ := json.Marshal(m["id"])
		got[string(id)] = m
	}
	return got
}

// TestServeIOAnswersBeforeExit: a client may write all its requests and
// close stdin at once; every request still gets its answer.
func TestServeIOAnswersBeforeExit(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	in.WriteString(initLines)
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"task_create","arguments":{"title":"t%d","project":"colibri"}}}`+"\n", i, i)
	}
	got := serve(t, in.String())
	for i := 1; i <= 20; i++ {
		res, ok := got[fmt.Sprint(i)]["result"].(map[string]any)
		if !ok || res["isError"] == true {
			t.Fatalf("request %d: %v", i, got[fmt.Sprint(i)])
		}
	}
}

// TestServeIOAnswersBadLines: malformed lines get JSON-RPC errors and the
// session carries on.
func TestServeIOAnswersBadLines(t *testing.T) {
	t.Parallel()
	got := serve(t, initLines+`not json
{"jsonrpc":"2.0","id":7}
{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"server_ping","arguments":{}}}
`)
	if e := got["null"]["error"].(map[string]any); e["code"] != -32700.0 {
		t.Errorf("parse error = %v", e)
	}
	if e := got["7"]["error"].(map[string]any); e["code"] != -32600.0 {
		t.Errorf("invalid request = %v", e)
	}
	if got["8"]["result"] == nil {
		t.Errorf("the session did not go on: %v", got["8"])
	}
}

// TestValidationEnvelope: a bad call gets baton's envelope naming the
// field and the rule, not the SDK's plain text.
func TestValidationEnvelope(t *testing.T) {
	t.Parallel()
	got := serve(t, initLines+`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"task_list","arguments":{"limit":501}}}
`)
	res := got["1"]["result"].(map[string]any)
	e := res["structuredContent"].(map[string]any)["error"].(map[string]any)
	d := e["details"].(map[string]any)
	if res["isError"] != true || e["code"] != "ERR_INVALID_INPUT" || d["field"] != "limit" || d["constraint"] != "maximum" {
		t.Fatalf("result = %v", res)
	}
}
