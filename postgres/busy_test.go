package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/postgres"
)

// TestPoint5LockContentionIsNotInternal (issue 12, point 5) on
// PostgreSQL: while another replica holds the writers' lock, a write that
// meets lock_timeout (55P03) tries again until the lock is free, and a
// write whose deadline comes first, whether it met lock_timeout or was
// still waiting for the lock, fails with the retryable busy error
// (ERR_RATE_LIMITED type busy, retry_after_ms), as on SQLite, never
// ERR_INTERNAL, and writes nothing.
func TestPoint5LockContentionIsNotInternal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	holder := testkit.OpenPostgres(t, nil)
	open := func(params string) *postgres.Store {
		s, err := postgres.Open(ctx, os.Getenv("BATON_TEST_POSTGRES_URL")+params, postgres.Options{Schema: holder.Schema(), MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	// A replica whose sessions give up on a lock after 20 ms, and one that
	// waits for locks as long as its context lets it.
	quick, waiting := open("&lock_timeout=20"), open("")

	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- holder.Update(ctx, func(tx baton.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	create := func(ctx context.Context, s baton.Store, slug string) error {
		return s.Update(ctx, func(tx baton.Tx) error {
			return tx.CreateProject(ctx, &baton.Project{Slug: slug, Prefix: "P" + slug[:2]})
		})
	}
	for _, c := range []struct {
		name string
		s    baton.Store
		slug string
	}{
		{"lock_timeout, then the deadline", quick, "quick"},
		{"waiting for the lock past the deadline", waiting, "waiting"},
	} {
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		e := baton.AsError(create(short, c.s, c.slug))
		cancel()
		if e == nil || e.Code != baton.ErrRateLimited || e.Type != "busy" || e.Hint == "" {
			t.Errorf("%s: %+v, want ERR_RATE_LIMITED type busy with a hint", c.name, e)
		} else if ms, ok := e.Details["retry_after_ms"].(int64); !ok || ms <= 0 {
			t.Errorf("%s: retry_after_ms = %#v", c.name, e.Details["retry_after_ms"])
		}
	}

	// Meeting lock_timeout again and again is retried until the lock is free.
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	if err := create(ctx, quick, "patient"); err != nil {
		t.Fatalf("a write without a deadline that met lock_timeout: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var ps []*baton.Project
	if err := holder.View(ctx, func(tx baton.Tx) (err error) { ps, err = tx.Projects(ctx); return err }); err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Slug != "patient" {
		t.Errorf("projects = %v, want only the patient write's", ps)
	}
}

// A replica whose URL sets a short lock_timeout still starts while
// another replica migrates: it waits for the migration lock (0x6261746f6e,
// "baton") instead of failing with 55P03. Its schema is new, so it has
// migrating to do (an up-to-date one takes no lock: the test below).
func TestStartWaitsForAnotherReplicasMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	holder := testkit.OpenPostgres(t, nil)
	conn := holdMigrationLock(t, holder)
	time.AfterFunc(300*time.Millisecond, func() {
		_, _ = conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, int64(0x6261746f6e))
	})
	dsn := os.Getenv("BATON_TEST_POSTGRES_URL")
	schema := fmt.Sprintf("fresh_%d", os.Getpid())
	t.Cleanup(func() { _ = postgres.DropSchema(ctx, dsn, schema) })
	s, err := postgres.Open(ctx, dsn+"&lock_timeout=20", postgres.Options{Schema: schema, MaxConns: 2})
	if err != nil {
		t.Fatalf("starting while another replica migrates: %v", err)
	}
	s.Close()
}

// A replica opening a schema that has every migration starts without the
// migration lock, so while another process holds it, and with one
// connection: it finds the schema current and has nothing to wait for.
func TestStartOfACurrentSchemaTakesNoLock(t *testing.T) {
	t.Parallel()
	holder := testkit.OpenPostgres(t, nil)
	holdMigrationLock(t, holder)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, os.Getenv("BATON_TEST_POSTGRES_URL"), postgres.Options{Schema: holder.Schema(), MaxConns: 2})
	if err != nil {
		t.Fatalf("opening a current schema while the migration lock is held: %v", err)
	}
	defer s.Close()
	if got, want := s.Info(ctx).SchemaVersion, holder.Info(ctx).SchemaVersion; got != want || got == 0 {
		t.Errorf("schema version %d, want %d", got, want)
	}
}

// holdMigrationLock takes the migration lock on a connection of s's pool
// until the caller releases it or the test ends. The lock is the
// database's, not the schema's: tests opening new schemas beside this one
// wait for it, so it is given back as soon as the test is done.
func holdMigrationLock(t *testing.T, s *postgres.Store) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.ExecContext(ctx, `SELECT pg_advisory_unlock_all()`)
		conn.Close()
	})
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(0x6261746f6e)); err != nil {
		t.Fatal(err)
	}
	return conn
}
