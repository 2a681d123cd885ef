package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/storetest"
)

// TestStore runs the backend-neutral conformance suite, each case on a
// copy of a database migrated once (testkit.FreshSQLite): the migrations
// of a new file are the tests below.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) baton.Store {
		path := filepath.Join(t.TempDir(), "baton.db")
		testkit.FreshSQLite(t, path)
		return open(t, path)
	})
}

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB opens the file through database/sql directly, beside the store.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	// Escape the path so characters that mean something in a URI ('#',
	// '?', '%') stay part of the file name.
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func pragma(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

// latestMigration is the highest number among the embedded migration files.
func latestMigration(t *testing.T) int64 {
	t.Helper()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	var latest int64
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			t.Fatalf("migration %s has no number: %v", e.Name(), err)
		}
		latest = max(latest, n)
	}
	if latest == 0 {
		t.Fatal("no migrations found")
	}
	return latest
}

func createProject(ctx context.Context, s baton.Store, slug, prefix string) error {
	return s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: slug, Prefix: prefix})
	})
}

func TestOpenCreatesFileAndDirectories(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "c", "baton.db")
	s := open(t, path)
	if fi, err := os.Stat(path); err != nil {
		t.Fatalf("the database file was not created: %v", err)
	} else if !fi.Mode().IsRegular() {
		t.Fatalf("%s is not a regular file", path)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	info := s.Info(context.Background())
	if info.Driver != "sqlite" || info.Path != path || !info.Open {
		t.Errorf("Info = %+v, want driver sqlite, path %s, open", info, path)
	}
}

func TestOpenRelativePathIsMadeAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s := open(t, filepath.Join("sub", "rel.db"))
	want := filepath.Join(dir, "sub", "rel.db")
	// t.TempDir may sit behind a symlink; compare resolved paths.
	got, _ := filepath.EvalSymlinks(s.Path())
	wantResolved, _ := filepath.EvalSymlinks(want)
	if !filepath.IsAbs(s.Path()) || got != wantResolved {
		t.Errorf("Path() = %q, want %q", s.Path(), want)
	}
}

func TestOpenErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte(strings.Repeat("this is not a database\n", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, code string
	}{
		{"empty path", "", baton.ErrConfigInvalid},
		{"parent is a file", filepath.Join(file, "baton.db"), baton.ErrInitFailed},
		{"not a database", file, baton.ErrInitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sqlite.Open(context.Background(), tc.path, sqlite.Options{})
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded, want %s", tc.path, tc.code)
			}
			if got := baton.ErrorCode(err); got != tc.code {
				t.Errorf("Open(%q) = %v, want code %s", tc.path, err, tc.code)
			}
		})
	}
}

func TestPragmas(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s := open(t, path)
	// Use the store's reader and writer connections before looking.
	if err := createProject(ctx, s, "alpha", "ALP"); err != nil {
		t.Fatal(err)
	}
	if err := s.View(ctx, func(tx baton.Tx) error { _, err := tx.Projects(ctx); return err }); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	if got := pragma(t, db, "journal_mode"); got != "wal" {
		t.Errorf("journal_mode of the file = %q, want wal", got)
	}
	if got, want := pragma(t, db, "user_version"), strconv.FormatInt(latestMigration(t), 10); got != want {
		t.Errorf("user_version = %s, want the latest migration %s", got, want)
	}
	if info := s.Info(ctx); info.SchemaVersion != latestMigration(t) {
		t.Errorf("Info.SchemaVersion = %d, want %d", info.SchemaVersion, latestMigration(t))
	}
}

// TestForeignKeysEnforced shows foreign_keys=1 on the writer: an item whose
// parent does not exist is refused by the schema (UpdateItem does not check
// the parent itself, so only the constraint can refuse it).
func TestForeignKeysEnforced(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "baton.db"))
	if err := createProject(ctx, s, "alpha", "ALP"); err != nil {
		t.Fatal(err)
	}
	var it *baton.Item
	err := s.Update(ctx, func(tx baton.Tx) error {
		it = &baton.Item{Project: "alpha", Title: "x", Status: baton.StatusTodo, CreatedBy: "t"}
		return tx.CreateItem(ctx, it)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx baton.Tx) error {
		c := *it
		c.ParentID = "ALP-404"
		return tx.UpdateItem(ctx, &c)
	})
	if err == nil {
		t.Fatal("UpdateItem with a parent that does not exist succeeded: foreign keys are off")
	}
	if !strings.Contains(strings.ToLower(err.Error()), "foreign key") && baton.ErrorCode(err) != baton.ErrTaskNotFound {
		t.Errorf("UpdateItem with an unknown parent = %v, want a foreign key failure", err)
	}
	var parent string
	if err := s.View(ctx, func(tx baton.Tx) error {
		got, err := tx.Item(ctx, it.ID)
		if err == nil {
			parent = got.ParentID
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if parent != "" {
		t.Errorf("ParentID = %q after the refused update, want empty", parent)
	}
	// The same must hold on a freshly opened store, whose connection
	// applies the pragmas again.
	path := s.Path()
	s.Close()
	s2 := open(t, path)
	err = s2.Update(ctx, func(tx baton.Tx) error {
		c := *it
		c.ParentID = "ALP-404"
		return tx.UpdateItem(ctx, &c)
	})
	if err == nil {
		t.Error("after reopening, UpdateItem with a parent that does not exist succeeded: foreign keys are off")
	}
}

// TestWriterWaitsForLock shows busy_timeout on the writer: while another
// connection holds the write lock for a while, Update waits for it instead
// of failing with SQLITE_BUSY.
func TestWriterWaitsForLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s := open(t, path)
	db := rawDB(t, path)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	const hold = time.Second
	released := make(chan error, 1)
	timer := time.AfterFunc(hold, func() {
		_, err := conn.ExecContext(ctx, "COMMIT")
		released <- err
	})
	defer timer.Stop()
	begin := time.Now()
	err = createProject(ctx, s, "alpha", "ALP")
	waited := time.Since(begin)
	if err != nil {
		t.Fatalf("Update while another connection held the write lock for %v: %v (busy_timeout not set?)", hold, err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if waited < hold/2 {
		t.Errorf("Update returned after %v while the lock was held for %v", waited, hold)
	}
}

// TestReadersAreReadOnlyAndSeeWAL checks the reader pool: it reads the
// writer's committed data and refuses writes.
func TestReadersAreReadOnlyAndSeeWAL(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "baton.db"))
	if err := createProject(ctx, s, "alpha", "ALP"); err != nil {
		t.Fatal(err)
	}
	err := s.View(ctx, func(tx baton.Tx) error {
		if _, err := tx.Project(ctx, "alpha"); err != nil {
			return err
		}
		return tx.CreateProject(ctx, &baton.Project{Slug: "beta", Prefix: "BET"})
	})
	if err == nil {
		t.Fatal("a write through View succeeded")
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := createProject(ctx, s, "alpha", "ALP"); err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateItem(ctx, &baton.Item{Project: "alpha", Title: "kept", Status: baton.StatusTodo, Labels: []string{"x"}, CreatedBy: "t"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for round := range 2 {
		s = open(t, path)
		if v := s.Info(ctx).SchemaVersion; v != latestMigration(t) {
			t.Errorf("round %d: SchemaVersion = %d after reopening, want %d", round, v, latestMigration(t))
		}
		err = s.View(ctx, func(tx baton.Tx) error {
			it, err := tx.Item(ctx, "ALP-1")
			if err != nil {
				return err
			}
			if it.Title != "kept" || len(it.Labels) != 1 || it.Labels[0] != "x" {
				return fmt.Errorf("item after reopening = %+v", it)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		// The sequence continues where it stopped.
		var next *baton.Item
		err = s.Update(ctx, func(tx baton.Tx) error {
			next = &baton.Item{Project: "alpha", Title: "next", Status: baton.StatusTodo, CreatedBy: "t"}
			return tx.CreateItem(ctx, next)
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("ALP-%d", round+2); next.ID != want {
			t.Errorf("round %d: next item after reopening = %s, want %s", round, next.ID, want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentOpen opens several stores at once on one fresh file: the
// file lock makes the migrations run once and every Open succeeds.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	for round, n := range []int{2, 2, 2, 4, 8} {
		t.Run(fmt.Sprintf("round %d with %d stores", round, n), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "shared.db")
			stores := make([]*sqlite.Store, n)
			errs := make([]error, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					<-start
					stores[i], errs[i] = sqlite.Open(ctx, path, sqlite.Options{})
				})
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("Open #%d: %v", i, err)
				} else {
					t.Cleanup(func() { stores[i].Close() })
				}
			}
			if t.Failed() {
				return
			}
			// Every store writes and sees the others' writes.
			for i, s := range stores {
				if err := createProject(ctx, s, fmt.Sprintf("p%d", i), fmt.Sprintf("P%d", i)); err != nil {
					t.Fatalf("store %d: %v", i, err)
				}
			}
			for i, s := range stores {
				var ps []*baton.Project
				if err := s.View(ctx, func(tx baton.Tx) (err error) { ps, err = tx.Projects(ctx); return err }); err != nil {
					t.Fatal(err)
				}
				if len(ps) != n {
					t.Errorf("store %d sees %d projects, want %d", i, len(ps), n)
				}
				if v := s.Info(ctx).SchemaVersion; v != latestMigration(t) {
					t.Errorf("store %d: SchemaVersion = %d, want %d", i, v, latestMigration(t))
				}
			}
			db := rawDB(t, path)
			var applied int
			if err := db.QueryRow(`SELECT COUNT(*) FROM goose_db_version WHERE version_id > 0`).Scan(&applied); err != nil {
				t.Fatal(err)
			}
			if applied != int(latestMigration(t)) {
				t.Errorf("%d migrations recorded, want %d: a migration ran twice or not at all", applied, latestMigration(t))
			}
		})
	}
}

// TestCloseCheckpoints checks that Close leaves the data in the main file:
// after Close the WAL is empty or gone.
func TestCloseCheckpoints(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := createProject(ctx, s, "alpha", "ALP"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close = %v, want nil", err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() != 0 {
		t.Errorf("the WAL holds %d bytes after Close, want it checkpointed", fi.Size())
	}
}

func TestOptionsClock(t *testing.T) {
	ctx := context.Background()
	fixed := time.Date(2030, 1, 2, 3, 4, 5, 678_900_000, time.UTC)
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "baton.db"), sqlite.Options{Clock: func() time.Time { return fixed }, Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := createProject(ctx, s, "alpha", "ALP"); err != nil {
		t.Fatal(err)
	}
	var it *baton.Item
	err = s.Update(ctx, func(tx baton.Tx) error {
		it = &baton.Item{Project: "alpha", Title: "clocked", Status: baton.StatusTodo, CreatedBy: "t"}
		return tx.CreateItem(ctx, it)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx baton.Tx) error {
		got, err := tx.Item(ctx, it.ID)
		if err != nil {
			return err
		}
		p, err := tx.Project(ctx, "alpha")
		if err != nil {
			return err
		}
		want := fixed.Truncate(time.Millisecond)
		if !got.CreatedAt.Equal(want) || !got.UpdatedAt.Equal(want) || !p.CreatedAt.Equal(want) {
			return fmt.Errorf("times = %v/%v/%v, want the clock's %v", got.CreatedAt, got.UpdatedAt, p.CreatedAt, want)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestOpenPathWithURICharacters opens databases whose directory names hold
// characters that are special in a "file:" URI. Each must live in its own
// file at exactly the path given, and the pragmas of the DSN must apply.
func TestOpenPathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, char string }{
		{"hash", "#"},
		{"question mark", "?"},
		{"percent", "%41"},
		{"space", " "},
		{"ampersand", "&"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "proj"+tc.char+"one", "baton.db")
			sibling := filepath.Join(dir, "proj"+tc.char+"two", "baton.db")
			s := open(t, path)
			if err := createProject(ctx, s, "alpha", "ALP"); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
				t.Errorf("the database is not at %q (stat: %v)", path, err)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if !e.IsDir() {
					t.Errorf("Open(%q) created the stray file %q", path, filepath.Join(dir, e.Name()))
				}
			}
			// A second database whose path differs only after the special
			// character must not share the first one's data.
			s2 := open(t, sibling)
			var ps []*baton.Project
			if err := s2.View(ctx, func(tx baton.Tx) (err error) { ps, err = tx.Projects(ctx); return err }); err != nil {
				t.Fatal(err)
			}
			if len(ps) != 0 {
				t.Errorf("the fresh database %q already holds project %q of %q: both opened one file", sibling, ps[0].Slug, path)
			}
			if err := s2.View(ctx, func(tx baton.Tx) error {
				return tx.CreateProject(ctx, &baton.Project{Slug: "beta", Prefix: "BET"})
			}); err == nil {
				t.Error("a write through View succeeded: the reader's query_only pragma was not applied")
			}
			if got := pragma(t, rawDB(t, sibling), "journal_mode"); got != "wal" {
				t.Errorf("journal_mode of %q = %q, want wal", sibling, got)
			}
		})
	}
}
