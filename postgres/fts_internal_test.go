package postgres

import (
	"context"
	"testing"

	"github.com/baton-dev/baton"
)

// TestItemTextIndexedOnlyWhenChanged: an update of an item that leaves its
// title and description as they were does not compute its full-text
// columns again (migration 00031); one that changes either text does, and
// the columns then hold the new words, not the old.
func TestItemTextIndexedOnlyWhenChanged(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	it := &baton.Item{Project: "alpha", Title: "Alpha tree", Description: "bright leaves", Status: baton.StatusTodo, CreatedBy: "test"}
	createInAlpha(t, s, it)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Calls of the trigger's function in this transaction.
	if _, err := conn.ExecContext(ctx, `SET track_functions = 'pl'`); err != nil {
		t.Fatal(err)
	}
	db, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Rollback()
	computed := func() (n int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT COALESCE(sum(calls), 0) FROM pg_stat_xact_user_functions
			WHERE schemaname = current_schema() AND funcname = 'items_text_index'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Each update sets the title and description, as UpdateItem's does.
	update := func(title, description string) int64 {
		t.Helper()
		before := computed()
		if _, err := db.ExecContext(ctx, `UPDATE items SET title = $1, description = $2, progress = progress + 1 WHERE id = $3`,
			title, description, it.ID); err != nil {
			t.Fatal(err)
		}
		return computed() - before
	}
	matches := func(column, word string) (ok bool) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT `+column+` @@ to_tsquery('baton_simple', $1) FROM items WHERE id = $2`,
			word, it.ID).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if n := update("Alpha tree", "bright leaves"); n != 0 {
		t.Errorf("an update leaving the text as it was computed the full-text columns %d times, want 0", n)
	}
	if !matches("words", "alpha") || !matches("fts", "bright") {
		t.Errorf("the full-text columns lost the item's words")
	}
	if n := update("Omega tree", "bright leaves"); n != 1 {
		t.Errorf("an update of the title computed the full-text columns %d times, want 1", n)
	}
	if n := update("Omega tree", "dark roots"); n != 1 {
		t.Errorf("an update of the description computed the full-text columns %d times, want 1", n)
	}
	for _, c := range []string{"words", "fts"} {
		if !matches(c, "omega") || !matches(c, "dark") || matches(c, "alpha") || matches(c, "bright") {
			t.Errorf("%s does not follow the new title and description", c)
		}
	}
}
