package tools_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// Run with:
//
//	go test -run '^$' -bench 'SearchLearnings|ClaimNext' -benchtime 200x ./tools/

var words = strings.Fields(`sqlite wal mode migration index query planner vacuum checkpoint busy timeout
	goroutine channel mutex context cancel deadline retry backoff jitter idempotent handler middleware
	router schema validation snapshot fixture table test race detector benchmark profile allocation
	cache eviction ttl lease claim fencing token queue worker scheduler cron webhook token auth session
	nuxt vue component composable import build bundle lint format typescript module resolution path`)

func sentence(r *rand.Rand, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	return strings.Join(parts, " ")
}

// seedLearnings stores n learnings spread over n/100 issues.
func seedLearnings(b *testing.B, k *testkit.Kit, n int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	issues := max(1, n/100)
	for batch := 0; batch < issues; batch += 50 {
		err := k.Store.Update(ctx, func(tx baton.Tx) error {
			for i := batch; i < min(batch+50, issues); i++ {
				it := &baton.Item{Project: testkit.Project, Title: fmt.Sprintf("issue %d", i), Status: baton.StatusTodo, CreatedBy: "bench"}
				if err := tx.CreateItem(ctx, it); err != nil {
					return err
				}
				for j := 0; j < n/issues; j++ {
					l := &baton.Learning{ItemID: it.ID, Pattern: fmt.Sprintf("%d-%d %s", i, j, sentence(r, 12)),
						Context: sentence(r, 20), AppliesTo: []string{"server/" + words[r.IntN(len(words))]},
						QualityScore: r.IntN(101), CreatedBy: "bench"}
					if err := tx.AddLearning(ctx, l); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchLearnings is search_learnings through the registry over
// 100,000 learnings; the ns/op is the latency of one search.
func BenchmarkSearchLearnings(b *testing.B) {
	k := testkit.New(b)
	seedLearnings(b, k, 100_000)
	queries := []string{"checkpoint", "retry backoff", "migrat", "fencing token lease", "composable import"}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		out := k.OK("search_learnings", map[string]any{"query": q, "limit": 20})
		if out["count"].(float64) == 0 {
			b.Fatalf("no results for %q", q)
		}
	}
}

// BenchmarkClaimNext has 64 agents race claim_next over a queue of ready
// items; ns/op is the wall time per successful claim.
func BenchmarkClaimNext(b *testing.B) {
	k := testkit.New(b)
	ctx := context.Background()
	n := b.N
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		for i := range n {
			it := &baton.Item{Project: testkit.Project, Title: fmt.Sprintf("work %d", i), Status: baton.StatusTodo,
				Priority: baton.Priority(i % 5), CreatedBy: "bench"}
			if err := tx.CreateItem(ctx, it); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	var claimed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for a := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent := k.As(fmt.Sprintf("agent-%d", a))
			agent.T = b
			for claimed.Load() < int64(n) {
				res := agent.Call("claim_next", map[string]any{"project": testkit.Project})
				if res.Err != nil {
					b.Error(res.Text)
					return
				}
				if testkit.Decode(b, res.Output)["claimed"] == true {
					claimed.Add(1)
				} else {
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := claimed.Load(); got != int64(n) {
		b.Fatalf("claimed %d of %d", got, n)
	}
}
