package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func agents(t *testing.T, k *testkit.Kit) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, a := range k.OK("list_agents", `{}`)["agents"].([]any) {
		m := a.(map[string]any)
		out[m["agentId"].(string)] = m
	}
	return out
}

// TestPresence: an agent is connected while its MCP session lives, and
// offline once it closes; one that vanished without a goodbye drops out
// when the presence window passes without a heartbeat.
func TestPresence(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	clk := k.UseClock(testkit.NewClock(time.Now().UTC(), 0))
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	st, ct := mcp.NewInMemoryTransports()
	worker := baton.Principal{Agent: "worker-1", Source: baton.SourceStdio}
	ss, err := f.Server(worker).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The session is recorded when the client finishes initializing.
	deadline := time.Now().Add(10 * time.Second)
	for agents(t, k)["worker-1"]["connected"] != true {
		if time.Now().After(deadline) {
			t.Fatalf("worker-1 never showed as connected: %v", agents(t, k))
		}
		time.Sleep(5 * time.Millisecond)
	}
	a := agents(t, k)["worker-1"]
	if a["sessionId"] == nil || a["connectedAt"] == nil || a["status"] != "idle" {
		t.Fatalf("connected worker = %v", a)
	}
	if st := k.OK("get_project_state", `{}`); st["connectedAgents"] != 1.0 {
		t.Fatalf("project state = %v", st)
	}
	// Adjutant's filters go by status: connected with nothing reported is
	// idle, not active (working or blocked).
	if active := k.OK("list_agents", `{"status":"active"}`); active["count"] != 0.0 {
		t.Fatalf("active = %v", active)
	}
	if idle := k.OK("list_agents", `{"status":"idle"}`); idle["count"] != 1.0 {
		t.Fatalf("idle = %v", idle)
	}

	cs.Close()
	_ = ss.Wait()
	for agents(t, k)["worker-1"]["connected"] != false {
		if time.Now().After(deadline) {
			t.Fatalf("worker-1 still connected after closing: %v", agents(t, k))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if agents(t, k)["worker-1"]["status"] != "offline" {
		t.Fatalf("closed worker = %v", agents(t, k)["worker-1"])
	}

	// A process that died: its session is open in the store, but beats no more.
	if err := k.Store.Update(context.Background(), func(tx baton.Tx) error {
		now := clk.Peek()
		return tx.TouchSession(context.Background(), &baton.SessionPresence{ID: "stdio-gone", Agent: "ghost", ConnectedAt: now, LastSeen: now})
	}); err != nil {
		t.Fatal(err)
	}
	if agents(t, k)["ghost"]["connected"] != true {
		t.Fatal("a fresh session is not connected")
	}
	clk.Advance(baton.PresenceWindow + time.Second)
	if g := agents(t, k)["ghost"]; g != nil && g["connected"] != false {
		t.Fatalf("a vanished agent still shows connected: %v", g)
	}
	// worker-1 left and ghost vanished: both offline, so neither is idle.
	if idle := k.OK("list_agents", `{"status":"idle"}`); idle["count"] != 0.0 {
		t.Fatalf("idle = %v", idle)
	}
}

// TestProjectState counts open work, recent messages and unread messages.
func TestProjectState(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	k.OK("task_create", `{"title":"a","project":"colibri"}`)
	k.OK("task_create", `{"title":"b","project":"colibri"}`)
	bob := k.As("agent-bob")
	bob.OK("set_status", `{"status":"working","task":"b"}`)
	k.OK("send_message", `{"to":"agent-bob","body":"hi"}`)
	k.OK("send_message", `{"to":"user","body":"done"}`)
	st := k.OK("get_project_state", `{}`)
	if st["openBeads"] != 2.0 || st["recentMessages"] != 2.0 || st["connectedAgents"] != 2.0 {
		t.Fatalf("state = %v", st)
	}
	counts := map[string]float64{}
	for _, u := range st["unreadCounts"].([]any) {
		m := u.(map[string]any)
		counts[m["agentId"].(string)] = m["count"].(float64)
	}
	if counts["agent-bob"] != 1 || counts["user"] != 1 {
		t.Fatalf("unread = %v", counts)
	}
}
