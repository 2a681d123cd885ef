package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// exercise runs the same protocol script over any transport: initialize
// has happened; call sends a JSON-RPC request and returns the response.
func exercise(t *testing.T, call func(method string, params any) map[string]any) {
	t.Helper()
	list := call("tools/list", map[string]any{})
	tools, _ := list["result"].(map[string]any)["tools"].([]any)
	want := map[string]bool{"server_ping": true, "server_health": true, "task_create": true, "task_get": true,
		"task_update": true, "task_list": true, "task_next_actions": true}
	for _, tl := range tools {
		m := tl.(map[string]any)
		delete(want, m["name"].(string))
		if m["inputSchema"] == nil || m["outputSchema"] == nil {
			t.Errorf("%s lacks an input or output schema", m["name"])
		}
	}
	if len(want) > 0 {
		t.Fatalf("tools/list misses %v", want)
	}

	sc, isErr := toolResult(t, call("tools/call", map[string]any{"name": "task_create",
		"arguments": map[string]any{"title": "Wire up", "project": "colibri", "priority": "high"}}))
	if isErr || sc["task_id"] != "COL-1" || sc["created_by"] != "agent-alice" || sc["sequence"] != 1.0 {
		t.Fatalf("task_create = %v", sc)
	}

	// Identity cannot come from arguments.
	sc, isErr = toolResult(t, call("tools/call", map[string]any{"name": "task_create",
		"arguments": map[string]any{"title": "x", "project": "colibri", "created_by": "mallory"}}))
	if !isErr || sc["error"].(map[string]any)["code"] != "ERR_INVALID_INPUT" {
		t.Fatalf("spoofed created_by = %v", sc)
	}

	bad := []struct {
		name, tool string
		args       map[string]any
		code       string
	}{
		{"missing title", "task_create", map[string]any{"project": "colibri"}, "ERR_INVALID_INPUT"},
		{"empty title", "task_create", map[string]any{"title": "", "project": "colibri"}, "ERR_INVALID_INPUT"},
		{"long title", "task_create", map[string]any{"title": strings.Repeat("x", 257), "project": "colibri"}, "ERR_INVALID_INPUT"},
		{"unknown priority", "task_create", map[string]any{"title": "x", "project": "colibri", "priority": "urgent"}, "ERR_INVALID_INPUT"},
		{"unknown status", "task_update", map[string]any{"task_id": "COL-1", "status": "open"}, "ERR_INVALID_INPUT"},
		{"limit above max", "task_list", map[string]any{"limit": 501}, "ERR_INVALID_INPUT"},
		{"unknown project", "task_create", map[string]any{"title": "x", "project": "nope"}, "ERR_PROJECT_NOT_FOUND"},
		{"unknown task", "task_get", map[string]any{"task_id": "COL-404"}, "ERR_TASK_NOT_FOUND"},
		{"invalid transition", "task_update", map[string]any{"task_id": "COL-1", "status": "done"}, "ERR_INVALID_TRANSITION"},
	}
	for _, b := range bad {
		sc, isErr := toolResult(t, call("tools/call", map[string]any{"name": b.tool, "arguments": b.args}))
		e, _ := sc["error"].(map[string]any)
		if !isErr || e["code"] != b.code || e["message"] == "" || e["next_action_hint"] == "" {
			t.Errorf("%s: got %v, want isError with %s", b.name, sc, b.code)
		}
		if b.code == "ERR_INVALID_TRANSITION" {
			d := e["details"].(map[string]any)
			if d["from"] != "backlog" || d["to"] != "done" {
				t.Errorf("transition details = %v", d)
			}
		}
	}

	unknown := call("tools/call", map[string]any{"name": "task_fly", "arguments": map[string]any{}})
	if e, _ := unknown["error"].(map[string]any); e == nil || e["code"] != -32602.0 || !strings.Contains(e["message"].(string), "task_fly") {
		t.Fatalf("unknown tool = %v", unknown)
	}
}

func TestStdio(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	s := startStdio(t, "--db", db, "--agent", "agent-alice")
	s.initialize()
	exercise(t, s.call)

	// Malformed JSON-RPC is answered and the session goes on.
	s.send(`{"jsonrpc":"2.0","id":99,"method":`)
	if e := s.read("null")["error"].(map[string]any); e["code"] != -32700.0 {
		t.Fatalf("parse error = %v", e)
	}
	s.send(`{"jsonrpc":"2.0","id":100}`)
	if e := s.read("100")["error"].(map[string]any); e["code"] != -32600.0 {
		t.Fatalf("invalid request = %v", e)
	}
	if r := s.call("ping", map[string]any{}); r["result"] == nil {
		t.Fatalf("session did not survive bad input: %v", r)
	}
}

func TestStdioIdentityFromEnvironment(t *testing.T) {
	// Not parallel: it sets the process's environment (t.Setenv).
	db := newDB(t)
	cmd := startStdioEnv(t, []string{"BATON_AGENT=agent-env", "BATON_DB=" + db})
	cmd.initialize()
	sc, _ := toolResult(t, cmd.call("tools/call", map[string]any{"name": "task_create",
		"arguments": map[string]any{"title": "x", "project": "colibri"}}))
	if sc["created_by"] != "agent-env" {
		t.Fatalf("created_by = %v, want agent-env", sc["created_by"])
	}
}

func startStdioEnv(t *testing.T, env []string) *stdioServer {
	t.Helper()
	t.Setenv("BATON_AGENT", "")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return startStdio(t)
}

func TestHTTP(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTP(t, db, "--agent", "agent-alice")
	c := &rawHTTP{t: t, url: srv.url}
	c.initialize()
	exercise(t, func(method string, params any) map[string]any {
		r := c.call(method, params)
		if r.msg == nil {
			t.Fatalf("%s: status %d, body %s", method, r.status, r.body)
		}
		return r.msg
	})

	// Malformed JSON-RPC gets a JSON-RPC error; the server stays up.
	if r := c.post(`{"jsonrpc":"2.0","id":1,"method":`, nil); r.status != http.StatusBadRequest {
		t.Fatalf("malformed body: %d %s", r.status, r.body)
	}
	if r := c.call("ping", map[string]any{}); r.msg["result"] == nil {
		t.Fatalf("server did not survive bad input: %d %s", r.status, r.body)
	}
}

func TestHTTPRejectsForeignHostAndOrigin(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, newDB(t))
	port := srv.url[strings.LastIndex(srv.url, ":")+1:]
	cases := []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"loopback host", map[string]string{"Host": "127.0.0.1:" + port}, http.StatusOK},
		{"localhost host", map[string]string{"Host": "localhost:" + port}, http.StatusOK},
		{"foreign host", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
		{"local origin", map[string]string{"Origin": "http://localhost:" + port}, http.StatusOK},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"rebinding origin", map[string]string{"Origin": "http://attacker.test:" + port}, http.StatusForbidden},
		{"garbage origin", map[string]string{"Origin": "::not a url"}, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &rawHTTP{t: t, url: srv.url}
			b := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`
			r := c.post(b, tc.headers)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.status == http.StatusForbidden && !strings.Contains(string(r.body), "ERR_PERMISSION_DENIED") {
				t.Fatalf("403 without an error envelope: %s", r.body)
			}
		})
	}
	// An extra name is accepted when configured.
	srv2 := startHTTP(t, newDB(t), "--allowed-host", "baton.internal")
	c := &rawHTTP{t: t, url: srv2.url}
	r := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`,
		map[string]string{"Origin": "http://baton.internal"})
	if r.status != http.StatusOK {
		t.Fatalf("allowed host refused: %d %s", r.status, r.body)
	}
}

func TestHTTPUnknownAndTerminatedSessions(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, newDB(t))
	c := &rawHTTP{t: t, url: srv.url, session: "no-such-session"}
	if r := c.call("tools/list", map[string]any{}); r.status != http.StatusNotFound {
		t.Fatalf("unknown session: %d %s", r.status, r.body)
	}
	c = &rawHTTP{t: t, url: srv.url}
	c.initialize()
	if r := c.call("ping", map[string]any{}); r.status != http.StatusOK {
		t.Fatalf("ping: %d", r.status)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.url+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode >= 300 {
		t.Fatalf("DELETE session: %v %v", err, resp)
	}
	resp.Body.Close()
	if r := c.call("ping", map[string]any{}); r.status != http.StatusNotFound {
		t.Fatalf("terminated session: %d %s", r.status, r.body)
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, newDB(t))
	resp, err := http.Get(srv.url + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", err, resp)
	}
	resp.Body.Close()
}
