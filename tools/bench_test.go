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

// vocabulary is the technical words above followed by made-up ones, 5,000
// in all; sentence draws from it with Zipf's law, as natural text does, so
// a word's frequency falls with its rank instead of every word being common.
var vocabulary = func() []string {
	v := append([]string(nil), words...)
	syl := strings.Fields("ka lo mi ra tu ne vo si pe da gu ri ba te zo fi")
	for i := 0; len(v) < 5000; i++ {
		v = append(v, syl[i%16]+syl[(i/16)%16]+syl[(i/256)%16])
	}
	return v
}()

func sentence(r *rand.Rand, n int) string {
	z := rand.NewZipf(r, 1.07, 2, uint64(len(vocabulary)-1))
	parts := make([]string, n)
	for i := range parts {
		parts[i] = vocabulary[z.Uint64()]
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
						Context: sentence(r, 20), AppliesTo: []string{"server/" + vocabulary[r.IntN(len(vocabulary))]},
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
	// Real searches name specific things: words of middling and low
	// frequency, a prefix, and one very common word for the worst case.
	queries := map[string]string{
		"mid-frequency": vocabulary[300],
		"two words":     vocabulary[700] + " " + vocabulary[1200],
		"prefix":        vocabulary[2000][:5],
		"rare":          vocabulary[3500],
		"very common":   "checkpoint",
	}
	for _, name := range []string{"rare", "mid-frequency", "two words", "prefix", "very common"} {
		q := queries[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				k.OK("search_learnings", map[string]any{"query": q, "limit": 20})
			}
		})
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
