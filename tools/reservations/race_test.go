package reservations_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// overlapping are globs every two of which some path matches, so that of
// agents reserving them exclusively at most one may succeed.
var overlapping = []string{"src/**", "src/pkg/*.go", "**/*.go", "src/", "src/*/a.go", "src/pkg/a.go", "src/pkg/[a-z].go", "**"}

// TestRaceExclusiveReservations: 64 agents reserve overlapping globs
// exclusively at once, on each store: exactly one wins; every other gets
// ERR_CONFLICT naming the winner and its glob; the store holds the
// winner's reservation alone.
func TestRaceExclusiveReservations(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			k := kitOn(t, backend)
			const n = 64
			results := make([]tool.Result, n)
			var start, done sync.WaitGroup
			start.Add(1)
			for i := range n {
				done.Add(1)
				go func() {
					defer done.Done()
					p := k.Principal
					p.Agent = fmt.Sprintf("agent-%02d", i)
					raw := testkit.Raw(t, map[string]any{"paths": []string{overlapping[i%len(overlapping)]}, "reason": p.Agent})
					start.Wait()
					results[i] = k.Registry.Call(context.Background(), k.Env, p, "file_reservation_paths", raw)
				}()
			}
			start.Done()
			done.Wait()

			winner, pattern := "", ""
			for i, res := range results {
				agent := fmt.Sprintf("agent-%02d", i)
				switch {
				case res.Err == nil:
					if winner != "" {
						t.Errorf("two winners: %s and %s", winner, agent)
					}
					winner = agent
					g := maps(t, testkit.Decode(t, res.Output)["granted"])
					if len(g) != 1 || g[0]["exclusive"] != true {
						t.Errorf("winner %s granted %v", agent, g)
					}
					pattern = g[0]["path_pattern"].(string)
				case res.Err.Code != baton.ErrConflict:
					t.Errorf("%s: %s, want success or ERR_CONFLICT", agent, res.Text)
				}
			}
			if winner == "" {
				t.Fatal("nobody won")
			}
			for i, res := range results {
				if res.Err == nil {
					continue
				}
				cs := maps(t, testkit.Decode(t, res.Err.Details)["conflicts"])
				if len(cs) != 1 {
					t.Errorf("agent-%02d: conflicts %v", i, cs)
					continue
				}
				hs := maps(t, cs[0]["holders"])
				if len(hs) != 1 || hs[0]["agent"] != winner || hs[0]["path_pattern"] != pattern || hs[0]["reason"] != winner {
					t.Errorf("agent-%02d's conflict names %v, want only the winner %s's %s", i, hs, winner, pattern)
				}
			}
			var held []*baton.FileReservation
			for _, r := range stored(k) {
				if r.Active(time.Now()) {
					held = append(held, r)
				}
			}
			if len(held) != 1 || held[0].Agent != winner || !held[0].Exclusive || held[0].Pattern != pattern {
				t.Errorf("stored active reservations %+v, want only %s's %s", held, winner, pattern)
			}
		})
	}
}

// TestRaceSharedReservations: the same race with shared reservations has
// no loser.
func TestRaceSharedReservations(t *testing.T) {
	k := testkit.New(t)
	const n = 32
	var wg sync.WaitGroup
	results := make([]tool.Result, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := k.Principal
			p.Agent = fmt.Sprintf("agent-%02d", i)
			raw := testkit.Raw(t, map[string]any{"paths": []string{overlapping[i%len(overlapping)]}, "exclusive": false})
			results[i] = k.Registry.Call(context.Background(), k.Env, p, "file_reservation_paths", raw)
		}()
	}
	wg.Wait()
	for i, res := range results {
		if res.Err != nil {
			t.Errorf("agent-%02d: %s", i, res.Text)
		}
	}
	if got := active(k, time.Now()); got != n {
		t.Errorf("%d active shared reservations, want %d", got, n)
	}
}
