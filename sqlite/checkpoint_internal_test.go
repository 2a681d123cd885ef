package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// createProjects commits n projects named for name, one a transaction; it reports the
// first failure.
func createProjects(s *Store, name string, n int) error {
	for i := range n {
		prefix := fmt.Sprintf("%s%d", name, i)
		err := s.Update(context.Background(), func(tx baton.Tx) error {
			return tx.CreateProject(context.Background(), &baton.Project{Slug: strings.ToLower(prefix), Prefix: prefix})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// TestCheckpointerCopiesTheLogBeforeTheWriter commits a few dozen times, far
// below the writer's own checkpoint (WALCheckpointPages), and finds the
// rows in the database file alone: the background checkpointer copied them
// there.
func TestCheckpointerCopiesTheLogBeforeTheWriter(t *testing.T) {
	s := openTemp(t)
	if err := createProjects(s, "P", checkpointEvery); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.ckpt.runs.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d commits and no background checkpoint in 10 s", checkpointEvery)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The database file, copied without its log, is what a checkpoint
	// left there.
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: copyPath}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM projects WHERE slug LIKE 'p%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != checkpointEvery {
		t.Fatalf("the database file holds %d of the %d projects committed", n, checkpointEvery)
	}
}

// TestLogStaysBoundedBesideTheCheckpointer writes ten times the writer's
// checkpoint threshold and holds the log's file to about that size. A
// background checkpoint never catches up with a writer that keeps
// committing, so only the writer's own checkpoint lets the log start again
// from its beginning; without it the file grows with every commit.
func TestLogStaysBoundedBesideTheCheckpointer(t *testing.T) {
	if testing.Short() {
		t.Skip("writes some 40,000 pages of log (-short)")
	}
	s := openTemp(t)
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			if err := createProjects(s, fmt.Sprintf("W%dX", w), 3000); err != nil {
				t.Error(err)
			}
		}()
	}
	writers.Wait()
	if s.ckpt.runs.Load() == 0 {
		t.Fatal("no background checkpoint ran")
	}
	st, err := os.Stat(s.Path() + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	frame := int64(24 + 4096) // a frame's header and its page
	t.Logf("log file: %d frames; background checkpoints %d", st.Size()/frame, s.ckpt.runs.Load())
	// Unchecked, the log would hold all 12,000 commits: some 40,000 pages.
	if limit := 2 * WALCheckpointPages * frame; st.Size() > limit {
		t.Fatalf("the log is %d frames; the writer's checkpoint should keep it near %d", st.Size()/frame, WALCheckpointPages)
	}
}
