package messaging_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestPoint19ListAgentsStatusFilter: list_agents filters by the status each
// agent shows, as Adjutant's does: active is working or blocked, idle is
// idle (a connected agent that reported nothing is idle), all is everyone,
// offline and done agents included.
func TestPoint19ListAgentsStatusFilter(t *testing.T) {
	k := testkit.New(t)
	clk := k.UseClock(testkit.NewClock(time.Now().UTC(), 0))
	// frank worked, then went quiet past the presence window: offline.
	k.As("frank").OK("set_status", map[string]any{"status": "working"})
	clk.Advance(time.Hour)
	for agent, status := range map[string]string{"alice": "working", "bob": "blocked", "carol": "idle", "dave": "done"} {
		k.As(agent).OK("set_status", map[string]any{"status": status})
	}
	// erin holds a session and has reported nothing.
	touch(t, k, "s-erin", "erin", clk.Peek())

	names := func(filter string) []string {
		out := k.OK("list_agents", map[string]any{"status": filter})
		var got []string
		for _, a := range out["agents"].([]any) {
			got = append(got, a.(map[string]any)["agentId"].(string))
		}
		if out["count"] != float64(len(got)) {
			t.Errorf("%s: count %v for %d agents", filter, out["count"], len(got))
		}
		return got
	}
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"idle", []string{"carol", "erin"}},
		{"active", []string{"alice", "bob"}},
		{"all", []string{"alice", "bob", "carol", "dave", "erin", "frank"}},
	} {
		if got := names(tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("list_agents %s = %v, want %v", tc.filter, got, tc.want)
		}
	}
	// Without a filter: all.
	if out := k.OK("list_agents", nil); out["count"] != 6.0 {
		t.Errorf("default = %v, want all six", out["count"])
	}
}

// TestPoint19EveryListedAgentCanBeMessaged: whoever list_agents shows,
// send_message reaches, including an agent known only from its MCP
// session (it connected, changed nothing yet), under any case of its name.
func TestPoint19EveryListedAgentCanBeMessaged(t *testing.T) {
	k := testkit.New(t)
	now := time.Now().UTC()
	touch(t, k, "s-1", "listener", now)
	touch(t, k, "s-2", "Gone-Agent", now.Add(-2*time.Hour)) // left, still listed as offline
	known(k, "agent-bob")

	out := k.OK("list_agents", map[string]any{"status": "all"})
	listed := out["agents"].([]any)
	if len(listed) != 3 {
		t.Fatalf("listed = %v", listed)
	}
	for _, a := range listed {
		name := a.(map[string]any)["agentId"].(string)
		sent := k.OK("send_message", map[string]any{"to": name, "body": "hello " + name})
		if sent["messageId"] == nil {
			t.Errorf("send to %s = %v", name, sent)
		}
	}
	// Names match case-insensitively and the message goes to the name as
	// the agent's sessions know it.
	k.OK("send_message", map[string]any{"to": "gone-agent", "body": "again"})
	inbox := k.As("Gone-Agent").OK("read_messages", map[string]any{"agentId": "Gone-Agent"})
	if n := len(inbox["messages"].([]any)); n != 2 {
		t.Errorf("Gone-Agent has %d messages, want 2: %v", n, inbox)
	}
	// An agent nobody has seen is still refused, with the session-only
	// agents among the known names.
	e := k.Fail("send_message", map[string]any{"to": "nobody", "body": "x"}, baton.ErrAgentNotFound)
	knownNames := e.Details["known"].([]string)
	for _, want := range []string{"user", "agent-bob", "Gone-Agent", "listener"} {
		if !slices.Contains(knownNames, want) {
			t.Errorf("known = %v, lacks %s", knownNames, want)
		}
	}
}

// TestPoint19ReportProgressFractions: report_progress takes a fractional
// percentage (the catalogue types it number), echoes it, and list_agents
// shows it rounded to a whole percent.
func TestPoint19ReportProgressFractions(t *testing.T) {
	k := testkit.New(t)
	for _, tc := range []struct {
		pct  float64
		want float64 // list_agents progress
	}{{42.5, 43}, {0.4, 0}, {99.9, 100}, {100, 100}, {7, 7}} {
		out := k.OK("report_progress", map[string]any{"task": "adj-010.3", "percentage": tc.pct})
		if out["percentage"] != tc.pct || out["acknowledged"] != true {
			t.Errorf("report_progress(%v) = %v", tc.pct, out)
		}
		a := k.OK("list_agents", nil)["agents"].([]any)[0].(map[string]any)
		if a["progress"] != tc.want {
			t.Errorf("after %v: progress = %v, want %v", tc.pct, a["progress"], tc.want)
		}
	}
}

// touch records an MCP session of agent, as the server does for a client.
func touch(t *testing.T, k *testkit.Kit, id, agent string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.TouchSession(ctx, &baton.SessionPresence{ID: id, Agent: agent, ConnectedAt: at, LastSeen: at})
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPoint18MessageLimitsAcceptFractions: the limits the Adjutant
// catalogue types as number take fractions, rounded down ("at most 2.5
// messages" is at most 2).
func TestPoint18MessageLimitsAcceptFractions(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	for _, body := range []string{"deploy one", "deploy two", "deploy three"} {
		send(k, "agent-bob", body, nil)
	}
	if out := k.OK("read_messages", map[string]any{"limit": 2.5}); len(out["messages"].([]any)) != 2 {
		t.Errorf("read_messages limit 2.5 = %v", out)
	}
	if out := k.OK("search_messages", map[string]any{"query": "deploy", "limit": 1.5}); out["count"] != 1.0 {
		t.Errorf("search_messages limit 1.5 = %v", out)
	}
}
