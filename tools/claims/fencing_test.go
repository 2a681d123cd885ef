package claims_test

import (
	"context"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/orchestrator"
)

// TestPoint4FencingSurvivesReaper (issue 12, point 4): once alice's lease
// lapsed, none of her mutating tools may change the item until she claims
// it again, whatever became of the claim row. A claim given back while it
// was live is no lapse: the item is then unclaimed, and unclaimed items are
// open to everyone (claims are opt-in), alice included.
func TestPoint4FencingSurvivesReaper(t *testing.T) {
	fates := []struct {
		name string
		// fate happens to alice's 30 s claim; the mutation follows at the
		// time it returns.
		fate func(t *testing.T, k *testkit.Kit, clk *testkit.Clock, id string) time.Time
		want string // alice's mutation's code; "" = allowed
	}{
		{"lapsed, not reaped", func(t *testing.T, k *testkit.Kit, clk *testkit.Clock, id string) time.Time {
			return clk.Advance(31 * time.Second)
		}, baton.ErrClaimed},
		{"reaped by the reaper", func(t *testing.T, k *testkit.Kit, clk *testkit.Clock, id string) time.Time {
			clk.Advance(31 * time.Second)
			if n, err := (&orchestrator.Reaper{Store: k.Store, Clock: clk.Now}).Once(context.Background()); err != nil || n != 1 {
				t.Fatalf("reaper: %d, %v; want 1 claim reaped", n, err)
			}
			if c := claimOf(k, id); c != nil {
				t.Fatalf("claim after reaping = %+v", c)
			}
			return clk.Advance(time.Second)
		}, baton.ErrClaimed},
		{"taken over by claim_next, then released", func(t *testing.T, k *testkit.Kit, clk *testkit.Clock, id string) time.Time {
			clk.Advance(31 * time.Second)
			bob := k.As("agent-bob")
			if got := next(bob, nil); got != id {
				t.Fatalf("bob's claim_next = %q, want %s", got, id)
			}
			clk.Advance(time.Second)
			bob.OK("release_claim", map[string]any{"item_id": id})
			return clk.Advance(time.Second)
		}, baton.ErrClaimed},
		{"ended by another agent's update", func(t *testing.T, k *testkit.Kit, clk *testkit.Clock, id string) time.Time {
			clk.Advance(31 * time.Second)
			update(k.As("agent-carol"), id, map[string]any{"priority": "high"})
			return clk.Advance(time.Second)
		}, baton.ErrClaimed},
		{"released voluntarily while live", func(t *testing.T, k *testkit.Kit, clk *testkit.Clock, id string) time.Time {
			clk.Advance(10 * time.Second)
			k.OK("release_claim", map[string]any{"item_id": id})
			return clk.Advance(time.Minute)
		}, ""},
		{"reaped, then claimed again", func(t *testing.T, k *testkit.Kit, clk *testkit.Clock, id string) time.Time {
			clk.Advance(31 * time.Second)
			if _, err := (&orchestrator.Reaper{Store: k.Store, Clock: clk.Now}).Once(context.Background()); err != nil {
				t.Fatal(err)
			}
			if out := claim(k, id, 30); num(t, out["token"]) != 2 {
				t.Fatalf("re-claim = %v, want token 2", out)
			}
			return clk.Advance(time.Second)
		}, ""},
	}
	mutations := []struct {
		tool string
		args func(id string) map[string]any
	}{
		{"task_update", func(id string) map[string]any { return map[string]any{"task_id": id, "progress": 60} }},
		{"update_issue_status", func(id string) map[string]any {
			return map[string]any{"issue_id": id, "status": "blocked", "reason": "stale writer"}
		}},
		{"close_bead", func(id string) map[string]any { return map[string]any{"id": id, "reason": "stale writer"} }},
	}
	for _, f := range fates {
		for _, m := range mutations {
			t.Run(f.name+"/"+m.tool, func(t *testing.T) {
				clk := testkit.NewClock(epoch, 0)
				k := testkit.NewAt(t, clk)
				k.Principal.Project = testkit.Project
				id := task(k, nil)
				claim(k, id, 30)
				f.fate(t, k, clk, id)
				before := get(k, id)
				if f.want == "" {
					if res := k.Call(m.tool, m.args(id)); res.Err != nil {
						t.Fatalf("%s by alice: %s, want it allowed", m.tool, res.Text)
					}
					return
				}
				e := fail(k, m.tool, m.args(id), f.want)
				if e.Details["item_id"] != id {
					t.Errorf("details %v do not name %s", e.Details, id)
				}
				after := get(k, id)
				for _, field := range []string{"status", "progress", "updated_at", "updated_by"} {
					if after[field] != before[field] {
						t.Errorf("the refused %s changed %s: %v -> %v", m.tool, field, before[field], after[field])
					}
				}
			})
		}
	}
}
