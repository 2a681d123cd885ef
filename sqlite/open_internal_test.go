package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// openTemp opens a new store in the test's temporary directory, closed
// when the test ends.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "baton.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestWriterCheckpointsAtItsThreshold: the writer leaves the write-ahead
// log to grow past SQLite's default of 1,000 pages, up to
// WALCheckpointPages, before it checkpoints.
func TestWriterCheckpointsAtItsThreshold(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var pages int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&pages); err != nil || pages != WALCheckpointPages {
		t.Fatalf("the writer's wal_autocheckpoint is %d (%v), want %d", pages, err, WALCheckpointPages)
	}
	if _, err := s.w.ExecContext(ctx, "CREATE TABLE scratch (b BLOB)"); err != nil {
		t.Fatal(err)
	}
	// 400 commits of four pages each and more: about 2,000 frames.
	for range 400 {
		if _, err := s.w.ExecContext(ctx, "INSERT INTO scratch VALUES (zeroblob(16000))"); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if frames := fi.Size() / (4096 + 24); frames < 1500 || frames > WALCheckpointPages+100 {
		t.Errorf("the write-ahead log holds %d frames after about 2,000 written: checkpointed at another threshold", frames)
	}
}
