package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/storetest"
)

// TestStore runs the backend-neutral conformance suite, each case on a
// schema of its own.
func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) baton.Store { return testkit.OpenPostgres(t, nil) })
}

// TestListenAcrossStores: two stores on one schema stand for two replicas.
// A change committed through one wakes the other's listener with its
// project; a rolled-back change wakes nobody.
func TestListenAcrossStores(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := testkit.OpenPostgres(t, nil)
	b, err := postgres.Open(ctx, os.Getenv("BATON_TEST_POSTGRES_URL"), postgres.Options{Schema: a.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	change := func(project string, fail bool) error {
		return a.Update(ctx, func(tx baton.Tx) error {
			if err := tx.CreateProject(ctx, &baton.Project{Slug: project, Prefix: strings.ToUpper(project[:3])}); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, &baton.Event{Project: project, Type: "project.created"}); err != nil {
				return err
			}
			if fail {
				return errors.New("roll back")
			}
			return nil
		})
	}
	if err := change("alpha", false); err != nil {
		t.Fatal(err)
	}
	woken := make(chan string, 16)
	go b.Listen(ctx, func(p string) { woken <- p }, nil)
	next := func() string {
		select {
		case p := <-woken:
			return p
		case <-ctx.Done():
			t.Fatal("no wake-up")
			return ""
		}
	}
	// On connecting, the listener wakes every existing project: it may
	// have missed their notifications. Once it has, it is listening.
	if p := next(); p != "alpha" {
		t.Fatalf("first wake-up %q, want the catch-up of alpha", p)
	}
	if err := change("bravo", true); err == nil {
		t.Fatal("the failing change succeeded")
	}
	if err := change("charlie", false); err != nil {
		t.Fatal(err)
	}
	// Notifications arrive in commit order, so bravo's, had it been sent,
	// would come first.
	if p := next(); p != "charlie" {
		t.Fatalf("wake-up %q, want charlie (bravo rolled back)", p)
	}
}

// TestInfoHidesPassword: health reports show where the database is, never
// its password.
func TestInfoHidesPassword(t *testing.T) {
	t.Parallel()
	base := testkit.OpenPostgres(t, nil) // skips without a database
	u, err := url.Parse(os.Getenv("BATON_TEST_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "s3cret-pw")
	s, err := postgres.Open(context.Background(), u.String(), postgres.Options{Schema: base.Schema()})
	if err != nil {
		t.Skipf("the server refuses a password login (%v); redaction needs one", err)
	}
	defer s.Close()
	info := s.Info(context.Background())
	if want := latestMigration(t, "migrations"); !info.Open || info.Driver != "postgres" || info.SchemaVersion != want {
		t.Errorf("info = %+v, want an open postgres store at version %d", info, want)
	}
	if strings.Contains(info.Path, "s3cret-pw") || !strings.HasPrefix(info.Path, "postgres://") {
		t.Errorf("path %q shows the password or is not a URL", info.Path)
	}
}

// TestOpenErrors: a bad URL or an unreachable server is a structured
// error that says what to do, and never shows the password.
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dsn, code string }{
		{"postgres://user:pw@127.0.0.1:notaport/db", baton.ErrConfigInvalid},
		{"postgres://user:s3cret-pw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2", baton.ErrInitFailed},
	} {
		_, err := postgres.Open(context.Background(), tc.dsn, postgres.Options{})
		e := baton.AsError(err)
		if e.Code != tc.code || e.Hint == "" {
			t.Errorf("Open(%s) = %v (hint %q), want %s with a hint", tc.dsn, err, e.Hint, tc.code)
		}
		if strings.Contains(e.Message, "s3cret-pw") {
			t.Errorf("Open(%s): the message shows the password: %s", tc.dsn, e.Message)
		}
	}
}

// latestMigration is the highest number among the migration files in dir.
func latestMigration(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var latest int64
	for _, e := range entries {
		if num, _, ok := strings.Cut(e.Name(), "_"); ok && strings.HasSuffix(e.Name(), ".sql") {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				t.Fatalf("migration %s has no number: %v", e.Name(), err)
			}
			latest = max(latest, n)
		}
	}
	return latest
}

// TestMigrationsMatchSQLite: both stores report one schema version, so
// every change lands in both as the same migration number.
func TestMigrationsMatchSQLite(t *testing.T) {
	t.Parallel()
	if pg, lite := latestMigration(t, "migrations"), latestMigration(t, "../sqlite/migrations"); pg != lite {
		t.Errorf("the newest PostgreSQL migration is %d, SQLite's %d: they must match", pg, lite)
	}
}
