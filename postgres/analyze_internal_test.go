package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/baton-dev/baton"
)

// TestAnalyze: Analyze gives the planner statistics for the store's own
// tables (the rows items holds), beside another store's schema.
func TestAnalyze(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	other := openGC(t, "")
	ctx := context.Background()
	for _, st := range []*Store{s, other} {
		if err := st.Update(ctx, func(tx baton.Tx) error {
			if err := tx.CreateProject(ctx, &baton.Project{Slug: "p", Prefix: "P"}); err != nil {
				return err
			}
			for i := range 50 {
				if err := tx.CreateItem(ctx, &baton.Item{Project: "p", Title: fmt.Sprint("item ", i), Status: baton.StatusTodo, CreatedBy: "t"}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	analyzed := func(st *Store) (n int64) {
		t.Helper()
		if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_user_tables
			WHERE schemaname = current_schema() AND relname = 'items' AND last_analyze IS NOT NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := s.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	var tuples float64
	if err := s.db.QueryRowContext(ctx, `SELECT reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relname = 'items'`).Scan(&tuples); err != nil {
		t.Fatal(err)
	}
	if analyzed(s) != 1 || tuples != 50 {
		t.Errorf("after Analyze: items analyzed %d, reltuples %v; want 1 and 50", analyzed(s), tuples)
	}
}
