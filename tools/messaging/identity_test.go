package messaging_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// overMCP connects an in-memory MCP client to a baton server whose calls
// run as k's principal: the identity comes from the transport only.
func overMCP(t *testing.T, k *testkit.Kit) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.Server(k.Principal).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// spoof is _meta a client might send to claim another identity.
var spoof = mcp.Meta{
	"agentId": "agent-mallory", "agent": "agent-mallory", "from": "agent-mallory", "sender": "agent-mallory",
	"baton/agent": "agent-mallory", "sessionId": "mallory-session", "progressToken": "p-1",
}

// mcpCall calls a tool over MCP with meta and returns the structured result
// and whether it is an error.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, meta mcp.Meta) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return out, res.IsError
}

func TestIdentityCannotBeSpoofedThroughMeta(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob", "agent-mallory")
	cs := overMCP(t, k) // runs as agent-alice

	out, isErr := mcpCall(t, cs, "send_message", map[string]any{"to": "agent-bob", "body": "over MCP"}, spoof)
	if isErr {
		t.Fatalf("send_message over MCP: %v", out)
	}
	if m := peek(k, out["messageId"].(string)); m.AgentID != "agent-alice" || m.Role != baton.RoleAgent {
		t.Errorf("_meta changed the sender: stored %q role %q, want agent-alice", m.AgentID, m.Role)
	}

	out, isErr = mcpCall(t, cs, "announce", map[string]any{"type": "completion", "title": "t", "body": "b"}, spoof)
	if isErr {
		t.Fatalf("announce over MCP: %v", out)
	}
	if m := peek(k, out["messageId"].(string)); m.AgentID != "agent-alice" {
		t.Errorf("_meta changed the announcer: %q", m.AgentID)
	}

	if _, isErr := mcpCall(t, cs, "create_proposal", map[string]any{"title": "t", "description": "d", "type": "product"}, spoof); isErr {
		t.Fatal("create_proposal over MCP failed")
	}
	ps := list(t, k.OK("list_proposals", nil), "proposals")
	if len(ps) != 1 || ps[0]["author"] != "agent-alice" {
		t.Errorf("_meta changed the author: %v", ps)
	}

	if _, isErr := mcpCall(t, cs, "set_status", map[string]any{"status": "blocked", "task": "spoofed?"}, spoof); isErr {
		t.Fatal("set_status over MCP failed")
	}
	if a := agentState(k, "agent-mallory"); a.Status != "idle" || a.Task != "" {
		t.Errorf("_meta set mallory's status: %+v", a)
	}
	if a := agentState(k, "agent-alice"); a.Status != "blocked" || a.Task != "spoofed?" {
		t.Errorf("alice's status: %+v", a)
	}

	// Reading or marking with mallory's _meta does not read as mallory.
	toMallory := send(k.As("agent-bob"), "agent-mallory", "for mallory only", nil)
	if _, isErr := mcpCall(t, cs, "read_messages", map[string]any{}, spoof); isErr {
		t.Fatal("read_messages over MCP failed")
	}
	if _, isErr := mcpCall(t, cs, "mark_read", map[string]any{"messageId": toMallory}, spoof); isErr {
		t.Fatal("mark_read over MCP failed")
	}
	if got := peek(k, toMallory).DeliveryStatus; got != baton.DeliveryPending {
		t.Errorf("alice, claiming to be mallory in _meta, moved mallory's message to %s", got)
	}
}

func TestIdentityArgumentsRejectedOverMCP(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	cs := overMCP(t, k)
	cases := []struct {
		tool string
		args map[string]any
		bad  string
	}{
		{"send_message", map[string]any{"to": "agent-bob", "body": "x", "from": "agent-mallory"}, "from"},
		{"send_message", map[string]any{"to": "agent-bob", "body": "x", "agentId": "agent-mallory"}, "agentId"},
		{"send_message", map[string]any{"to": "agent-bob", "body": "x", "sender": "agent-mallory"}, "sender"},
		{"send_message", map[string]any{"to": "agent-bob", "body": "x", "_meta": map[string]any{"agentId": "agent-mallory"}}, "_meta"},
		{"announce", map[string]any{"type": "blocker", "title": "t", "body": "b", "agentId": "agent-mallory"}, "agentId"},
		{"create_proposal", map[string]any{"title": "t", "description": "d", "type": "product", "author": "agent-mallory"}, "author"},
		{"set_status", map[string]any{"status": "done", "agentId": "agent-mallory"}, "agentId"},
		{"report_progress", map[string]any{"task": "t", "percentage": 1, "agent": "agent-mallory"}, "agent"},
		{"mark_read", map[string]any{"messageId": "m", "reader": "agent-mallory"}, "reader"},
		{"read_messages", map[string]any{"reader": "agent-mallory"}, "reader"},
	}
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.bad, func(t *testing.T) {
			out, isErr := mcpCall(t, cs, tc.tool, tc.args, nil)
			if !isErr {
				t.Fatalf("accepted: %v", out)
			}
			e, _ := out["error"].(map[string]any)
			d, _ := e["details"].(map[string]any)
			if e["code"] != baton.ErrInvalidInput || d["field"] != tc.bad || d["constraint"] != "additionalProperties" {
				t.Errorf("error %v, want ERR_INVALID_INPUT on %s (additionalProperties)", e, tc.bad)
			}
		})
	}
	if ms := read(k, map[string]any{}); len(ms) != 0 {
		t.Errorf("rejected calls stored messages: %v", ms)
	}
	if names := agentNames(k); !slices.Equal(names, []string{"agent-alice", "agent-bob"}) {
		t.Errorf("agents %v, want [agent-alice agent-bob] (alice from her read)", names)
	}
}
