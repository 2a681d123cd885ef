package messaging_test

import (
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestListAgentsJoinsStateAndSessionTimes: an agent's lastSeen is the
// latest of its last report and its sessions' beats, to the millisecond
// as written; connectedAt and sessionId are its live session's, and an
// agent known only from a session long gone is listed offline with that
// session's last beat.
func TestListAgentsJoinsStateAndSessionTimes(t *testing.T) {
	k := testkit.New(t)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	clk := k.UseClock(testkit.NewClock(t0, 0))
	k.As("gina").OK("set_status", map[string]any{"status": "working"})
	// ivy reported after her only session's last beat.
	clk.Set(t0.Add(2 * time.Millisecond))
	k.As("ivy").OK("set_status", map[string]any{"status": "blocked"})
	// Live: connected ten minutes ago, beat 1.5 ms after the report.
	if err := k.Store.Update(t.Context(), func(tx baton.Tx) error {
		for _, s := range []baton.SessionPresence{
			{ID: "s-live", Agent: "Gina", ConnectedAt: t0.Add(-10 * time.Minute), LastSeen: t0.Add(1500 * time.Microsecond)},
			{ID: "s-old", Agent: "gina", ConnectedAt: t0.Add(-3 * time.Hour), LastSeen: t0.Add(-2 * time.Hour)},
			{ID: "s-ivy", Agent: "ivy", ConnectedAt: t0.Add(-2 * time.Hour), LastSeen: t0.Add(-time.Hour)},
			{ID: "s-hal", Agent: "hal", ConnectedAt: t0.Add(-6 * time.Hour), LastSeen: t0.Add(-5*time.Hour + 999*time.Microsecond)},
		} {
			if err := tx.TouchSession(t.Context(), &s); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(time.Second))

	out := k.OK("list_agents", map[string]any{"status": "all"})
	agents := out["agents"].([]any)
	if len(agents) != 3 {
		t.Fatalf("agents = %v", agents)
	}
	gina, hal, ivy := agents[0].(map[string]any), agents[1].(map[string]any), agents[2].(map[string]any)
	for key, want := range map[string]any{
		"agentId": "gina", "status": "working", "connected": true, "sessionId": "s-live",
		"connectedAt": "2026-03-04T04:56:07.123Z", "lastSeen": "2026-03-04T05:06:07.124Z",
	} {
		if gina[key] != want {
			t.Errorf("gina %s = %v, want %v (%v)", key, gina[key], want, gina)
		}
	}
	for key, want := range map[string]any{
		"agentId": "hal", "status": "offline", "connected": false, "lastSeen": "2026-03-04T00:06:07.124Z",
	} {
		if hal[key] != want {
			t.Errorf("hal %s = %v, want %v (%v)", key, hal[key], want, hal)
		}
	}
	for key, want := range map[string]any{
		"agentId": "ivy", "status": "blocked", "connected": true, "lastSeen": "2026-03-04T05:06:07.125Z",
	} {
		if ivy[key] != want {
			t.Errorf("ivy %s = %v, want %v (%v)", key, ivy[key], want, ivy)
		}
	}
	if _, ok := hal["connectedAt"]; ok {
		t.Errorf("hal has connectedAt: %v", hal)
	}
}
