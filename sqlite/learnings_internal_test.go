package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// TestMoreLearningsRanksAsTheRankedQuery: a search whose second index adds
// its matches without ranking them (moreLearnings) returns exactly what
// ranking that index's page returns, on a corpus whose words stem and
// prefix differently (runn finds running only unstemmed, runs finds
// running only stemmed), whose fields differ (pattern, context,
// applies_to), and whose common words match more than a pool (so the
// shortcut must step aside).
func TestMoreLearningsRanksAsTheRankedQuery(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	words := strings.Fields(`run runs running runner migrate migration migrating migrations cache caches caching cached
		lease leases leasing retry retries retrying timeout timeouts router routing routes deploy deploying deployment
		connect connection connections connecting index indexes indexing schema schemas token tokens`)
	rare := strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar`)
	r := rand.New(rand.NewPCG(7, 11))
	text := func(n int) string {
		out := make([]string, n)
		for i := range out {
			if r.IntN(3) == 0 {
				out[i] = rare[r.IntN(len(rare))]
			} else {
				out[i] = words[r.IntN(len(words))]
			}
		}
		return strings.Join(out, " ")
	}
	if err := s.Update(ctx, func(tx baton.Tx) error {
		for _, p := range []string{"alpha", "beta"} {
			if err := tx.CreateProject(ctx, &baton.Project{Slug: p, Prefix: strings.ToUpper(p[:3])}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// fill adds 15 learnings on each of n new items.
	fill := func(n int) {
		t.Helper()
		if err := s.Update(ctx, func(tx baton.Tx) error {
			for i := range n {
				it := &baton.Item{Project: []string{"alpha", "beta"}[i%2], Title: fmt.Sprintf("item %d", i), Status: baton.StatusTodo, CreatedBy: "test"}
				if err := tx.CreateItem(ctx, it); err != nil {
					return err
				}
				for j := range 15 {
					l := &baton.Learning{ItemID: it.ID, Pattern: fmt.Sprintf("%d.%d %s", i, j, text(1+r.IntN(6))), QualityScore: r.IntN(101),
						Verified: r.IntN(10) == 0, CreatedBy: "test"}
					if r.IntN(2) == 0 {
						l.Context = text(3 + r.IntN(8))
					}
					if r.IntN(3) == 0 {
						l.AppliesTo = []string{words[r.IntN(len(words))]}
					}
					if err := tx.AddLearning(ctx, l); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"runn", "runs", "running", "run", "migrati", "migration", "cach", "caching", "lease", "retry",
		"rout", "deploying", "connect", "index", "schema", "token", "alpha", "kilo", "runn cach", "migrat lease",
		`"migration cache"`, `"run" leas`, "retry AND timeout", "cach NOT lease", "NEAR(run cache, 3)", "deploy* OR routing",
		"oscar runner", "connection index schema", "tokens", "rou"}
	search := func(q baton.LearningQuery, shortcut bool) []baton.LearningHit {
		t.Helper()
		noMoreLearnings = !shortcut
		defer func() { noMoreLearnings = false }()
		var hits []baton.LearningHit
		if err := s.View(ctx, func(tx baton.Tx) (err error) { hits, err = tx.SearchLearnings(ctx, q); return err }); err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return hits
	}
	compared := 0
	// 600 learnings: the second index's matches fit a pool; 1,500: the
	// common words' overflow it.
	for _, items := range []int{40, 60} {
		fill(items)
		for _, text := range queries {
			for _, q := range []baton.LearningQuery{
				{Text: text, Limit: 10},
				{Text: text, Limit: 60, Project: "alpha"},
				{Text: text, Limit: 5, Project: "alpha", CrossProject: true},
				{Text: text, Limit: 20, MinQualityScore: 40},
			} {
				want, got := search(q, false), search(q, true)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%+v:\n with moreLearnings %+v\nranked in full     %+v", q, got, want)
				}
				compared += len(want)
			}
		}
	}
	if compared < 500 {
		t.Fatalf("the searches found %d hits in all: the corpus does not exercise them", compared)
	}
}
