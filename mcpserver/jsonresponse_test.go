package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

// mcpCall posts one JSON-RPC request to /mcp, in session sid speaking
// version (sessionless when sid is empty), and returns the response's
// Content-Type and its body when that is application/json or whole is set.
// Unless whole is set, an event stream is left after its headers: the
// server sends them at once for 2025-11-25, with the priming event, and a
// long poll need not be waited out to see how it is answered.
func mcpCall(t *testing.T, url, sid, version, body string, whole bool) (string, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", version)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	} else {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal([]byte(body), &m)
		req.Header.Set("Mcp-Method", m.Method)
		req.Header.Set("Mcp-Name", m.Params.Name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %d %s", body, resp.StatusCode, b)
	}
	if ct != "application/json" && !whole {
		return ct, nil
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return ct, b
}

// sessionCall is a tools/call request of name with args (JSON) in a
// session.
func sessionCall(id int, name, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
}

// sessionlessCall is sessionCall for the sessionless protocol, which wants
// the version and the client's capabilities in _meta.
func sessionlessCall(id int, name, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, name, args)
}

// openSession initializes a session speaking 2025-11-25 by hand.
func openSession(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body) // the session is initialized once answered
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	resp, b = raw(t, http.MethodPost, url+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", resp.StatusCode, b)
	}
	return sid
}

// fullServer serves k to an anonymous caller with every tool in scope.
func fullServer(t *testing.T, k *testkit.Kit) *served {
	p := baton.Principal{Agent: "agent-bob", Source: baton.SourceHTTP, Preset: tool.PresetFull}
	return serveReal(t, k, mcpserver.HTTPOptions{Principal: func(*http.Request) baton.Principal { return p }})
}

// TestPlainCallsAnswerJSON: over the real HTTP handler, a call that
// answers at once comes back as one application/json body holding the
// JSON-RPC response, while a long poll comes back as an event stream (for
// a session, resumable: its events carry IDs), both in a session and
// sessionless.
func TestPlainCallsAnswerJSON(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := fullServer(t, k)
	sid := openSession(t, s.url)

	for _, c := range []struct {
		name, sid, version, body string
	}{
		{"session", sid, "2025-11-25", sessionCall(2, "server_health", `{}`)},
		{"sessionless", "", "2026-07-28", sessionlessCall(2, "server_health", `{}`)},
	} {
		ct, b := mcpCall(t, s.url, c.sid, c.version, c.body, true)
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if ct != "application/json" || json.Unmarshal(b, &resp) != nil || resp.ID != 2 || resp.Result.IsError {
			t.Errorf("server_health (%s): %q %s, want application/json with the result", c.name, ct, b)
		}
	}

	ct, b := mcpCall(t, s.url, sid, "2025-11-25", sessionCall(3, "wait_for_messages", `{"timeout_seconds":1}`), true)
	if ct != "text/event-stream" || !regexp.MustCompile(`(?m)^id: \S+_\d+$`).Match(b) || !strings.Contains(string(b), `"timedOut":true`) {
		t.Errorf("wait_for_messages (session): %q %s, want an event stream of events with IDs ending in the result", ct, b)
	}
	ct, b = mcpCall(t, s.url, "", "2026-07-28", sessionlessCall(3, "wait_for_messages", `{"timeout_seconds":1}`), true)
	if ct != "text/event-stream" || !strings.Contains(string(b), `"timedOut":true`) {
		t.Errorf("wait_for_messages (sessionless): %q %s, want an event stream ending in the result", ct, b)
	}
}

// waitingProperty and waitingDescription tell a tool that may wait: an
// input such as timeout_seconds, or a description saying it blocks.
var (
	waitingProperty    = regexp.MustCompile(`(?i)timeout|wait`)
	waitingDescription = regexp.MustCompile(`(?i)block(s)? until|waits (up to|until)|long[- ]poll`)
)

// TestWaitingToolsAreStreamed: every tool that may wait, by its input
// properties or its description, is answered as an event stream (so a
// dropped connection does not lose its answer), as are a plugin's tools,
// whose duration baton does not know, and membot_pipe piping a waiting
// tool; a tool that answers at once, piped or not, is answered as
// application/json. A waiting tool added without being named in the
// handler's list fails here.
func TestWaitingToolsAreStreamed(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	plugin, err := tool.NewDynamic(tool.Spec{Name: "peer_echo", Toolset: "plugin:peer", Description: "echo",
		Profiles: baton.BuiltinProfiles}.WithSchemas(&jsonschema.Schema{Type: "object"}, nil),
		func(_ context.Context, _ *tool.Call, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	k.Registry.Add(plugin)
	s := fullServer(t, k)
	sid := openSession(t, s.url)

	var waiting []string
	for _, tl := range k.Registry.All() {
		spec := tl.Spec()
		waits := waitingDescription.MatchString(spec.Description)
		if in := spec.InputSchema(); in != nil {
			for p := range in.Properties {
				waits = waits || waitingProperty.MatchString(p)
			}
		}
		if waits {
			waiting = append(waiting, spec.Name)
		}
	}
	if len(waiting) < 2 {
		t.Fatalf("found only %q waiting: the test no longer recognises waiting tools", waiting)
	}
	t.Logf("waiting tools: %q", waiting)
	streamed := append(waiting, "peer_echo")
	id := 2
	// The answer's kind is settled before the call runs, so an argument
	// that makes a long poll refuse at once does as well as a real wait.
	for _, name := range streamed {
		id++
		if ct, _ := mcpCall(t, s.url, sid, "2025-11-25", sessionCall(id, name, `{"timeout_seconds":-1}`), false); ct != "text/event-stream" {
			t.Errorf("%s is answered as %q, want text/event-stream", name, ct)
		}
	}
	id++
	if ct, _ := mcpCall(t, s.url, sid, "2025-11-25", sessionCall(id, "membot_pipe",
		`{"tool_name":"wait_for_messages","tool_input":{"timeout_seconds":-1}}`), false); ct != "text/event-stream" {
		t.Errorf("membot_pipe of wait_for_messages is answered as %q, want text/event-stream", ct)
	}
	for _, c := range []struct{ name, args string }{
		{"get_issue", `{"issue_id":"COL-1"}`},
		{"membot_pipe", `{"tool_name":"get_issue","tool_input":{"issue_id":"COL-1"}}`},
		{"no_such_tool", `{}`},
	} {
		id++
		if ct, b := mcpCall(t, s.url, sid, "2025-11-25", sessionCall(id, c.name, c.args), false); ct != "application/json" {
			t.Errorf("%s %s is answered as %q, want application/json: %s", c.name, c.args, ct, b)
		}
	}
}
