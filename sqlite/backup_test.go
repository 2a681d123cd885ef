package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/sqlite"
)

// countItems is how many items the store holds.
func countItems(t *testing.T, s baton.Store) int {
	t.Helper()
	var n int
	if err := s.View(context.Background(), func(tx baton.Tx) error {
		its, err := tx.ListItems(context.Background(), baton.ItemFilter{Project: "colibri"})
		n = its.Total
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func addItem(ctx context.Context, s baton.Store, title string) error {
	return s.Update(ctx, func(tx baton.Tx) error {
		it := &baton.Item{Project: "colibri", Title: title, Kind: baton.KindTask, Status: baton.StatusTodo, CreatedBy: "a"}
		if err := tx.CreateItem(ctx, it); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Change{Agent: "a", Source: "test", Tool: "task_create", Subject: it.ID, In: title, Out: it.ID,
			At: time.Now()})
	})
}

// TestBackupWhileWriting: a backup taken while a writer keeps adding
// items (each with its action) is one consistent snapshot: it opens, its
// integrity check passes, its action log verifies, and it holds as many
// items as actions; progress was reported, ending at the file's size.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, filepath.Join(dir, "baton.db"))
	if err := createProject(ctx, s, "colibri", "COL"); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := addItem(ctx, s, strings.Repeat("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := addItem(ctx, s, "during"); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	dst := filepath.Join(dir, "backup.db")
	var last, total int64
	err := s.Backup(ctx, dst, func(done, tot int64) { last, total = done, tot })
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dst)
	if err != nil || last != fi.Size() || total != fi.Size() {
		t.Errorf("progress ended at %d of %d; the file is %v bytes (%v)", last, total, fi.Size(), err)
	}
	if _, err := sqlite.CheckBackup(ctx, dst); err != nil {
		t.Fatalf("CheckBackup: %v", err)
	}
	b := open(t, dst)
	rep, err := audit.VerifyStore(ctx, b)
	if err != nil || !rep.OK() {
		t.Fatalf("the backup's audit trail: %+v %v", rep, err)
	}
	if n := countItems(t, b); int64(n) != rep.Actions || n < 200 {
		t.Errorf("the backup holds %d items and %d actions: not one snapshot", n, rep.Actions)
	}
	if err := s.Backup(ctx, dst, nil); baton.ErrorCode(err) != baton.ErrConflict {
		t.Errorf("a backup over an existing file: %v, want ERR_CONFLICT", err)
	}
}

// TestRestore: restoring puts the backup's contents back into the
// database at its path, and a store opened after sees them.
func TestRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "baton.db")
	s := open(t, path)
	if err := createProject(ctx, s, "colibri", "COL"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := addItem(ctx, s, "before"); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(dir, "backup.db")
	if err := s.Backup(ctx, dst, nil); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := addItem(ctx, s, "after"); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if err := sqlite.Restore(ctx, path, dst); err != nil {
		t.Fatal(err)
	}
	r := open(t, path)
	if n := countItems(t, r); n != 3 {
		t.Errorf("after restore the database holds %d items, want the backup's 3", n)
	}
	if err := addItem(ctx, r, "on"); err != nil {
		t.Errorf("writing after restore: %v", err)
	}
	if err := sqlite.Restore(ctx, filepath.Join(dir, "none.db"), dst); baton.ErrorCode(err) != baton.ErrNotFound {
		t.Errorf("restoring into no database: %v, want ERR_NOT_FOUND", err)
	}
}

// TestCheckBackupRefuses: a file that is not a baton database, or is
// damaged, is refused before anything is replaced.
func TestCheckBackupRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.db")
	db := rawDB(t, plain)
	if _, err := db.Exec(`CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{junk, plain, filepath.Join(dir, "missing.db")} {
		if _, err := sqlite.CheckBackup(ctx, p); err == nil {
			t.Errorf("CheckBackup(%s) accepted it", filepath.Base(p))
		}
	}
	path := filepath.Join(dir, "baton.db")
	open(t, path)
	if err := sqlite.Restore(ctx, path, junk); baton.ErrorCode(err) != baton.ErrInvalidInput {
		t.Errorf("restoring junk: %v, want ERR_INVALID_INPUT", err)
	}
}
