package sqlite_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
)

// TestPoint17OpenRechainsOldThoughtHashes: a file whose thought records
// carry the hashes of the rule before migration 15 (sorted keys, 64 zeros
// first), as that migration queues them, is re-chained by Open itself,
// before user_version records the new version: the records read back with
// the catalogue's hashes (what AddThought writes today) and the queue is
// empty.
func TestPoint17OpenRechainsOldThoughtHashes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s := open(t, path)
	if err := createProject(ctx, s, "colibri", "COL"); err != nil {
		t.Fatal(err)
	}
	var want []*baton.ThoughtRecord
	if err := s.Update(ctx, func(tx baton.Tx) error {
		it := &baton.Item{Project: "colibri", Title: "t", Kind: baton.KindTask, Status: baton.StatusTodo, CreatedBy: "a"}
		if err := tx.CreateItem(ctx, it); err != nil {
			return err
		}
		for _, c := range []string{"first <&>", "second \u2028"} {
			r := &baton.ThoughtRecord{TaskID: it.ID, Type: "decision", Content: c, RecordedBy: "agent-alice"}
			if err := tx.AddThought(ctx, r); err != nil {
				return err
			}
			want = append(want, r)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	db := rawDB(t, path)
	prev := audit.Genesis
	for _, r := range want {
		f := audit.ThoughtOf(r)
		f.PreviousHash = prev
		old := f.LegacyHash()
		if _, err := db.Exec(`UPDATE thoughts SET previous_hash = ?, hash = ? WHERE id = ?`, prev, old, r.ID); err != nil {
			t.Fatal(err)
		}
		prev = old
	}
	for _, q := range []string{`INSERT INTO thought_rechain (task_id) SELECT DISTINCT task_id FROM thoughts`, `PRAGMA user_version = 14`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s = open(t, path)
	var got []*baton.ThoughtRecord
	if err := s.View(ctx, func(tx baton.Tx) (err error) {
		got, err = tx.Thoughts(ctx, baton.ThoughtFilter{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Hash != want[i].Hash || got[i].PreviousHash != want[i].PreviousHash {
			t.Errorf("record %d: hash %s prev %q, want %s %q", i+1, got[i].Hash, got[i].PreviousHash, want[i].Hash, want[i].PreviousHash)
		}
	}
	if want[0].PreviousHash != "" {
		t.Errorf("the first record links to %q, want \"\" (null)", want[0].PreviousHash)
	}
	db = rawDB(t, path)
	if v, want := pragma(t, db, "user_version"), strconv.FormatInt(latestMigration(t), 10); v != want {
		t.Errorf("user_version %s after the re-chaining open, want %s", v, want)
	}
	var queued int
	if err := db.QueryRow(`SELECT COUNT(*) FROM thought_rechain`).Scan(&queued); err != nil || queued != 0 {
		t.Errorf("%d chains still queued (%v)", queued, err)
	}
}
