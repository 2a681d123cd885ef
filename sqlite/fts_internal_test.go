package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// TestItemTextIndexedOnlyWhenChanged: an update of an item that leaves its
// title and description as they were writes the item's row alone, not its
// two full-text indexes (migration 00030); one that changes the title
// rewrites both. total_changes() counts the rows the triggers write too.
func TestItemTextIndexedOnlyWhenChanged(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	db, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Rollback()
	tx := newTx(db, time.Now)
	if err := tx.CreateProject(ctx, &baton.Project{Slug: "alpha", Prefix: "ALP"}); err != nil {
		t.Fatal(err)
	}
	it := &baton.Item{Project: "alpha", Title: "Alpha tree", Description: "bright leaves", Status: baton.StatusTodo, CreatedBy: "test"}
	if err := tx.CreateItem(ctx, it); err != nil {
		t.Fatal(err)
	}
	// Each update sets the title and description, as UpdateItem's does.
	changes := func(title, description string) int64 {
		t.Helper()
		var before, after int64
		if err := db.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `UPDATE items SET title = ?, description = ?, progress = progress + 1 WHERE id = ?`,
			title, description, it.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
			t.Fatal(err)
		}
		return after - before
	}
	// The first statement after the insert flushes FTS5's pending entries
	// of the new item into its tables, whatever it is.
	changes("Alpha tree", "bright leaves")
	if n := changes("Alpha tree", "bright leaves"); n != 1 {
		t.Errorf("an update leaving the text as it was changed %d rows, want 1 (the item's)", n)
	}
	if n := changes("Omega tree", "bright leaves"); n <= 1 {
		t.Errorf("an update of the title changed %d rows: the full-text indexes were not rewritten", n)
	}
	if n := changes("Omega tree", "dark roots"); n <= 1 {
		t.Errorf("an update of the description changed %d rows: the full-text indexes were not rewritten", n)
	}
}
