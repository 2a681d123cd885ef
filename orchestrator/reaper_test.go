package orchestrator_test

import (
	"context"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/orchestrator"
)

// TestReaperReturnsLapsedWork: once a lease lapses, the reaper writes the
// item back to todo, unassigned and unclaimed, and leaves live claims alone.
func TestReaperReturnsLapsedWork(t *testing.T) {
	k := testkit.New(t)
	ctx := context.Background()
	now := time.Now().UTC()
	err := k.Store.Update(ctx, func(tx baton.Tx) error {
		for _, title := range []string{"short lease", "long lease"} {
			it := &baton.Item{Project: testkit.Project, Title: title, Status: baton.StatusTodo, CreatedBy: "a"}
			if err := tx.CreateItem(ctx, it); err != nil {
				return err
			}
		}
		if _, err := tx.Claim(ctx, "COL-1", "agent-a", time.Minute, now); err != nil {
			return err
		}
		_, err := tx.Claim(ctx, "COL-2", "agent-b", time.Hour, now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &orchestrator.Reaper{Store: k.Store, Clock: func() time.Time { return now.Add(2 * time.Minute) }}
	if n, err := r.Once(ctx); err != nil || n != 1 {
		t.Fatalf("Once = %d, %v; want 1 claim reaped", n, err)
	}
	_ = k.Store.View(ctx, func(tx baton.Tx) error {
		it, _ := tx.Item(ctx, "COL-1")
		c, _ := tx.ClaimOf(ctx, "COL-1")
		if it.Status != baton.StatusTodo || it.Assignee != "" || c != nil {
			t.Errorf("COL-1 after reaping: %s assigned %q, claim %v", it.Status, it.Assignee, c)
		}
		it, _ = tx.Item(ctx, "COL-2")
		if c, _ := tx.ClaimOf(ctx, "COL-2"); it.Status != baton.StatusInProgress || c == nil {
			t.Errorf("COL-2's live claim was touched: %s, %v", it.Status, c)
		}
		return nil
	})
	// Run stops with its context.
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { (&orchestrator.Reaper{Store: k.Store, Every: time.Millisecond}).Run(runCtx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop when its context ended")
	}
}
