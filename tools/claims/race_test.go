package claims_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// race calls name with args as n different agents at once, all released
// together, and returns each agent's result.
func race(k *testkit.Kit, n int, name string, args any) []tool.Result {
	k.T.Helper()
	raw := testkit.Raw(k.T, args)
	results := make([]tool.Result, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			p := k.Principal
			p.Agent = fmt.Sprintf("agent-%02d", i)
			start.Wait()
			results[i] = k.Registry.Call(context.Background(), k.Env, p, name, raw)
		}()
	}
	start.Done()
	done.Wait()
	return results
}

func TestRaceClaimItem(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	const n = 64
	results := race(k, n, "claim_item", map[string]any{"item_id": id})

	winner := ""
	for i, res := range results {
		agent := fmt.Sprintf("agent-%02d", i)
		switch {
		case res.Err == nil:
			out := testkit.Decode(t, res.Output)
			if out["holder"] != agent || num(t, out["token"]) != 1 {
				t.Errorf("winner %s got %v", agent, out)
			}
			if winner != "" {
				t.Errorf("two winners: %s and %s", winner, agent)
			}
			winner = agent
		case res.Err.Code != baton.ErrClaimed:
			t.Errorf("%s: %s, want success or ERR_CLAIMED", agent, res.Text)
		}
	}
	if winner == "" {
		t.Fatal("nobody won the claim")
	}
	for i, res := range results {
		if res.Err != nil && res.Err.Details["holder"] != winner {
			t.Errorf("agent-%02d's ERR_CLAIMED names %v, want the winner %s", i, res.Err.Details["holder"], winner)
		}
	}
	if c := claimOf(k, id); c == nil || c.Holder != winner || c.Token != 1 {
		t.Errorf("stored claim = %+v, want %s with token 1", c, winner)
	}
	if got := get(k, id); got["assignee"] != winner || got["status"] != "in_progress" {
		t.Errorf("task after the race: %v assigned to %v", got["status"], got["assignee"])
	}
}

func TestRaceClaimNext(t *testing.T) {
	k, _ := newKit(t)
	const items, n = 10, 64
	ready := map[string]bool{}
	for range items {
		ready[task(k, nil)] = true
	}
	// Work claim_next must never hand out.
	blocker := k.OK("task_create", map[string]any{"project": "colibri", "title": "backlog dependency"})["task_id"].(string)
	waiting := task(k, nil)
	k.Depend(waiting, blocker)

	results := race(k, n, "claim_next", map[string]any{"ttl_seconds": 300})
	claimedBy := map[string]string{}
	losers := 0
	for i, res := range results {
		agent := fmt.Sprintf("agent-%02d", i)
		if res.Err != nil {
			t.Errorf("%s: %s", agent, res.Text)
			continue
		}
		out := testkit.Decode(t, res.Output)
		if out["claimed"] != true {
			losers++
			continue
		}
		id := out["item_id"].(string)
		if !ready[id] {
			t.Errorf("%s claimed %s, which was not ready", agent, id)
		}
		if prev, dup := claimedBy[id]; dup {
			t.Errorf("%s claimed twice: by %s and %s", id, prev, agent)
		}
		claimedBy[id] = agent
		if out["holder"] != agent {
			t.Errorf("%s: holder %v", agent, out["holder"])
		}
	}
	if len(claimedBy) != items || losers != n-items {
		t.Errorf("%d items claimed and %d told nothing is ready; want %d and %d", len(claimedBy), losers, items, n-items)
	}
	for id, agent := range claimedBy {
		if c := claimOf(k, id); c == nil || c.Holder != agent {
			t.Errorf("%s: stored claim %+v, want %s", id, c, agent)
		}
		if got := get(k, id); got["assignee"] != agent {
			t.Errorf("%s assigned to %v, want %s", id, got["assignee"], agent)
		}
	}
	if c := claimOf(k, waiting); c != nil {
		t.Errorf("item waiting on a dependency was claimed: %+v", c)
	}
}
