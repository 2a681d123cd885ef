package sqlite

import (
	"context"
	"encoding/binary"
	"os"
	"testing"

	"github.com/baton-dev/baton"
)

// walPages names the b-trees (tables and indexes) whose pages s's WAL
// holds, with how many of each, read from the frame headers and mapped
// through dbstat. Checkpointing with TRUNCATE first empties the WAL, so
// the next commit's pages are all it holds.
func walPages(t *testing.T, s *Store) map[string]int {
	t.Helper()
	names := map[uint32]string{}
	rows, err := s.r.Query(`SELECT name, pageno FROM dbstat`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var page uint32
		if err := rows.Scan(&name, &page); err != nil {
			t.Fatal(err)
		}
		names[page] = name
	}
	rows.Close()
	data, err := os.ReadFile(s.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 32 {
		return map[string]int{}
	}
	pageSize := int(binary.BigEndian.Uint32(data[8:]))
	out := map[string]int{}
	for off := 32; off+24+pageSize <= len(data); off += 24 + pageSize {
		out[names[binary.BigEndian.Uint32(data[off:])]]++
	}
	return out
}

// TestItemUpdateLeavesUnchangedIndexes: an update of an item's status
// writes the indexes that hold its status, not those of columns it leaves
// (the parent, the creation time, the id), nor its labels. Setting
// parent_id, a column of a foreign key to items itself, makes SQLite
// rewrite every index of the row, so UpdateItem sets it only when it
// changes; labels are rewritten only when they differ.
func TestItemUpdateLeavesUnchangedIndexes(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var parent, child *baton.Item
	if err := s.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "alpha", Prefix: "ALP"}); err != nil {
			return err
		}
		parent = &baton.Item{Project: "alpha", Title: "Parent", Status: baton.StatusTodo, CreatedBy: "test"}
		if err := tx.CreateItem(ctx, parent); err != nil {
			return err
		}
		child = &baton.Item{Project: "alpha", Title: "Child", Status: baton.StatusTodo, CreatedBy: "test", ParentID: parent.ID,
			Labels: []string{"area:api", "bug"}}
		return tx.CreateItem(ctx, child)
	}); err != nil {
		t.Fatal(err)
	}
	update := func(change func(*baton.Item)) map[string]int {
		t.Helper()
		if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(ctx, func(tx baton.Tx) error {
			it, err := tx.Item(ctx, child.ID)
			if err != nil {
				return err
			}
			change(it)
			return tx.UpdateItem(ctx, it)
		}); err != nil {
			t.Fatal(err)
		}
		return walPages(t, s)
	}
	pages := update(func(it *baton.Item) { it.Status = baton.StatusInProgress })
	if pages["items_queue"] == 0 {
		t.Fatalf("a status change wrote no page of items_queue: the WAL holds %v", pages)
	}
	for _, index := range []string{"items_parent", "items_created", "sqlite_autoindex_items_1", "item_labels", "item_labels_label"} {
		if pages[index] != 0 {
			t.Errorf("a status change wrote %s, whose columns it leaves: the WAL holds %v", index, pages)
		}
	}
	labels := func() string {
		t.Helper()
		var got string
		if err := s.r.QueryRowContext(ctx, `SELECT group_concat(label, ' ') FROM (SELECT label FROM item_labels WHERE item_id = ? ORDER BY position)`,
			child.ID).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	// The same labels written again, duplicates and all, are the same labels.
	pages = update(func(it *baton.Item) { it.Labels = []string{"area:api", "bug", "area:api"} })
	if pages["item_labels"] != 0 || labels() != "area:api bug" {
		t.Errorf("rewriting the labels an item has: item_labels written %d times, labels %q", pages["item_labels"], labels())
	}
	pages = update(func(it *baton.Item) { it.Labels = []string{"bug", "ui", "bug"} })
	if pages["item_labels"] == 0 || labels() != "bug ui" {
		t.Errorf("changing the labels: item_labels written %d times, labels %q, want \"bug ui\"", pages["item_labels"], labels())
	}
	var got string
	pages = update(func(it *baton.Item) { it.ParentID = "" })
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(parent_id, '') FROM items WHERE id = ?`, child.ID).Scan(&got); err != nil || got != "" {
		t.Fatalf("after clearing the parent, parent_id = %q (%v)", got, err)
	}
	if pages["items_parent"] == 0 {
		t.Errorf("clearing the parent wrote no page of items_parent: the WAL holds %v", pages)
	}
	update(func(it *baton.Item) { it.ParentID = parent.ID })
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(parent_id, '') FROM items WHERE id = ?`, child.ID).Scan(&got); err != nil || got != parent.ID {
		t.Fatalf("after setting the parent again, parent_id = %q (%v), want %s", got, err, parent.ID)
	}
}
