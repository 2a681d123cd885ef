package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/postgres"
)

// replicas opens two stores on one PostgreSQL schema, as two baton
// replicas sharing a database, with a project "sym" rooted in a folder
// holding n research claims (one per issue), written to the store as
// complete_phase would.
func replicas(t *testing.T, n int) (a, b *postgres.Store, claims []string) {
	t.Helper()
	a = testkit.OpenPostgres(t, nil)
	ctx := context.Background()
	b, err := postgres.Open(ctx, os.Getenv("BATON_TEST_POSTGRES_URL"), postgres.Options{Schema: a.Schema(), MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	root := t.TempDir()
	err = a.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "sym", Prefix: "SYM", Root: root}); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			it := &baton.Item{Project: "sym", Title: fmt.Sprintf("issue %d", i), Status: baton.StatusInProgress,
				Labels: []string{baton.PhaseResearch.Label()}, CreatedBy: "user"}
			if err := tx.CreateItem(ctx, it); err != nil {
				return err
			}
			rel := "docs/tickets/" + it.ID + "/research.md"
			body := artifacts[baton.PhaseResearch] + "\nIssue " + it.ID + ".\n"
			if err := os.MkdirAll(filepath.Join(root, "docs", "tickets", it.ID), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(body), 0o644); err != nil {
				return err
			}
			d, _ := json.Marshal(baton.PhaseCompletion{CompletedPhase: "research", ContractVersion: 1, ArtifactPath: rel,
				ArtifactHash: phases.Hash([]byte(body)), Summary: "done", OpenQuestions: []string{}, Confidence: "medium",
				RecommendedNextPhase: "architecture", ProjectPath: root})
			f := &baton.Finding{ItemID: it.ID, Category: baton.CategoryPhaseCompletion, Summary: "done", Details: string(d), CreatedBy: "researcher-1"}
			if err := tx.AddFinding(ctx, f); err != nil {
				return err
			}
			claims = append(claims, f.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, b, claims
}

// TestTwoReplicasTickOnPostgres: two replicas ticking the same database
// at the same time, again and again, process every claim exactly once:
// one mark, one transition, one event per claim, whichever replica won.
func TestTwoReplicasTickOnPostgres(t *testing.T) {
	const n = 12
	a, b, claims := replicas(t, n)
	ctx := context.Background()
	ticks := []*orchestrator.Phases{{Store: a, Log: quiet}, {Store: b, Log: quiet}}
	var mu sync.Mutex
	var done []string
	var wg sync.WaitGroup
	for round := 0; round < 3; round++ {
		for _, p := range ticks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := p.Once(ctx)
				if err != nil || len(r.Errors) > 0 {
					t.Errorf("tick: %v %v", err, r.Errors)
					return
				}
				mu.Lock()
				for _, tr := range r.Transitions {
					done = append(done, tr.FindingID)
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	slices.Sort(done)
	want := slices.Clone(claims)
	slices.Sort(want)
	if !slices.Equal(done, want) {
		t.Fatalf("transitions over both replicas = %v, want each claim once: %v", done, want)
	}
	err := a.View(ctx, func(tx baton.Tx) error {
		es, err := tx.Events(ctx, "sym", 0, 1000)
		if err != nil {
			return err
		}
		count := 0
		for _, e := range es {
			if e.Type == "phase."+baton.OutcomeAwaitingVerdict {
				count++
			}
		}
		if count != n {
			t.Errorf("%d awaiting_verdict events, want %d", count, n)
		}
		for _, id := range claims {
			m, err := tx.PhaseMark(ctx, id)
			if err != nil || m == nil || m.Outcome != baton.OutcomeAwaitingVerdict {
				t.Errorf("mark of %s = %+v, %v", id, m, err)
			}
		}
		pending, err := tx.PendingPhaseFindings(ctx, "")
		if len(pending) != 0 {
			t.Errorf("pending after the ticks: %d", len(pending))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTickSkipsAProjectAnotherReplicaTicks: while one replica holds a
// project's tick lock, another's tick leaves the project alone; once it
// is released, the other processes it.
func TestTickSkipsAProjectAnotherReplicaTicks(t *testing.T) {
	a, b, claims := replicas(t, 2)
	ctx := context.Background()
	unlock, ok, err := a.TryLock(ctx, "orchestrator.tick:sym")
	if err != nil || !ok {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	if _, again, err := b.TryLock(ctx, "orchestrator.tick:sym"); err != nil || again {
		t.Fatalf("a second TryLock of a held lock = %v, %v; want false", again, err)
	}
	p := &orchestrator.Phases{Store: b, Log: quiet}
	r, err := p.Once(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Skipped, []string{"sym"}) || len(r.Transitions) != 0 {
		t.Fatalf("tick beside a held lock: %+v, want sym skipped", r)
	}
	unlock()
	r, err = p.Once(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 0 || len(r.Transitions) != len(claims) {
		t.Fatalf("tick after the release: %+v, want %d transitions", r, len(claims))
	}
}
