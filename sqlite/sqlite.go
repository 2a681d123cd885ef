// Package sqlite is baton's embedded store: one SQLite file through the
// pure-Go modernc driver, WAL, one writer connection and a pool of readers.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
	"github.com/baton-dev/baton/sqlite/walvfs"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store implements baton.Store over one SQLite file.
type Store struct {
	path    string
	w       *sql.DB // exactly one connection: SQLite has one writer
	r       *sql.DB // readers; WAL lets them run beside the writer
	clock   baton.Clock
	version int64
	closed  atomic.Bool
	cache   *sqlcore.KnowledgeCache // vectors and keyword index for read-only searches
	// group batches concurrent Updates into one transaction on w.
	group sqlcore.Group[*sqlcore.BatchTx]
	// ckpt copies the write-ahead log into the database file beside the
	// writer (see checkpoint.go).
	ckpt *checkpointer
}

var _ baton.Store = (*Store)(nil)

// Options tune Open.
type Options struct {
	Clock   baton.Clock // defaults to time.Now
	Readers int         // reader pool size; defaults to max(4, 2*NumCPU)
	// BusyTimeout is how long SQLite itself waits for another process's
	// lock before one attempt of a transaction fails busy; Update and
	// View then try again until the context's deadline (see
	// sqlcore.RetryBusy). Defaults to DefaultBusyTimeout.
	BusyTimeout time.Duration
}

// DefaultBusyTimeout bounds SQLite's own wait for a lock in one attempt.
// SQLite's wait cannot be interrupted, so it is kept short: the retries
// around it watch the call's deadline.
const DefaultBusyTimeout = time.Second

// Open opens (creating if needed) the database at path and migrates it to
// the latest schema.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, baton.Errorf(baton.ErrConfigInvalid, "database path is empty").WithHint("pass --db or set BATON_DB")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, baton.Errorf(baton.ErrInitFailed, "cannot create the database directory: %v", err)
	}
	s := &Store{path: abs, clock: opts.Clock, cache: sqlcore.NewKnowledgeCache(sqlcore.CacheOptions{})}
	if s.clock == nil {
		s.clock = time.Now
	}
	// Both pools keep their statements prepared (see cachingConnector).
	wc, err := newCachingConnector(DSN(abs, opts, true))
	if err != nil {
		return nil, err
	}
	s.w = sql.OpenDB(wc)
	s.w.SetMaxOpenConns(1)
	s.w.SetConnMaxIdleTime(0)
	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		return nil, err
	}
	rc, err := newCachingConnector(DSN(abs, opts, false))
	if err != nil {
		s.w.Close()
		return nil, err
	}
	s.r = sql.OpenDB(rc)
	n := opts.Readers
	if n <= 0 {
		n = max(4, 2*runtime.NumCPU())
	}
	s.r.SetMaxOpenConns(n)
	s.r.SetMaxIdleConns(n)
	// The checkpointer's connection is a reader's: a checkpoint changes no
	// data, and query_only lets it change none.
	s.ckpt = newCheckpointer(rc)
	s.group.Begin = s.beginBatch
	s.group.Committed = s.ckpt.committed
	return s, nil
}

// WALCheckpointPages is the size of the write-ahead log, in pages, at
// which the writer checkpoints it (16 MiB of 4 KiB pages); the file stays
// at about that size once reached.
const WALCheckpointPages = 4000

// DSN is the modernc driver's data source name for the database at the
// absolute path abs with the store's settings: the writer's (write true:
// BEGIN IMMEDIATE) or a reader's (query_only). The load harness opens its
// SQLite floor through it, so the floor runs on exactly the store's settings.
func DSN(abs string, opts Options, write bool) string {
	// A 64 MiB page cache per connection keeps full-text ranking (which
	// reads every match's document size) off the read syscall path. Reads
	// are not memory-mapped: SQLite drops a connection's mapping (munmap)
	// whenever another connection has committed since its last read, so
	// under writes every read transaction paid munmap, mmap and a page
	// fault per page touched, about a tenth of the server's CPU on the
	// bench's mix; with no writes, the page cache serves as well.
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	q := url.Values{}
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", max(1, busy.Milliseconds())), "foreign_keys(1)", "journal_mode(WAL)", "synchronous(NORMAL)",
		"cache_size(-65536)", "mmap_size(0)"} {
		q.Add("_pragma", p)
	}
	if write {
		q.Set("_txlock", "immediate")
		// Each call of a group commit runs under a savepoint, whose
		// sub-journal (the pages it changed, to roll back to) spills to a
		// temporary file past 64 KiB, one write syscall per page and per
		// page number: 5% of the server's CPU on the bench's mix. In memory
		// it lives as long as the batch's transaction, a few MB at most.
		q.Add("_pragma", "temp_store(MEMORY)")
		// The writer checkpoints the write-ahead log when a commit leaves
		// it at WALCheckpointPages: copying each page changed since into
		// the database file, then two fsyncs, all while it holds the
		// writer. At SQLite's default of 1,000 pages that was 3.3 % of the
		// server's CPU on the bench's mix, and its closed loop ran about a
		// tenth faster at 4,000: hot pages (the ends of the logs, the items
		// written) are copied once per checkpoint however often they changed.
		// The checkpointer (checkpoint.go) copies most of the log before
		// then, off the writer's path, so this one's stall is short.
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", WALCheckpointPages))
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	// Each frame of the write-ahead log goes out in one write, not two
	// (see walvfs); should SQLite refuse the VFS, the default one serves.
	if walvfs.Register() {
		q.Set("vfs", walvfs.Name)
	}
	// SQLite reads a "file:" DSN as a URI: '?', '#' and '%' in the path
	// must be escaped or they end it.
	return "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q.Encode()
}

// migrate applies the embedded migrations under a file lock, so processes
// starting together on one file migrate once, and records the version in
// PRAGMA user_version.
func (s *Store) migrate(ctx context.Context) error {
	// user_version is set only after every migration succeeded, so a file
	// already at the newest embedded version needs neither the lock nor
	// goose: the common start of an existing database.
	latest, err := latestMigration()
	if err != nil {
		return err
	}
	if err := s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&s.version); err == nil && s.version == latest {
		return nil
	}
	unlock, err := lockFile(s.path + ".migrate-lock")
	if err != nil {
		return baton.Errorf(baton.ErrInitFailed, "cannot lock the database for migration: %v", err)
	}
	defer unlock()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, s.w, sub, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return baton.Errorf(baton.ErrInitFailed, "migrations: %v", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return baton.Errorf(baton.ErrInitFailed, "migrating %s: %v", s.path, err).
			WithHint("the file may belong to a newer baton or be damaged; pass another --db to start fresh")
	}
	if err := s.rechain(ctx); err != nil {
		return err
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return err
	}
	if _, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		return err
	}
	return s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&s.version)
}

// latestMigration is the version of the newest embedded migration, from the
// numbers its file names start with.
func latestMigration() (int64, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, e := range entries {
		digits := strings.TrimLeft(strings.SplitN(e.Name(), "_", 2)[0], "0")
		if n, err := strconv.ParseInt(digits, 10, 64); err == nil && n > latest {
			latest = n
		}
	}
	return latest, nil
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Update runs fn in one write transaction (BEGIN IMMEDIATE), shared with
// the Updates running beside it (sqlcore.Group: each under a savepoint of
// its own, one COMMIT for all), and returns after that COMMIT. fn's
// statements are not interrupted when ctx ends (an interrupted write can
// roll back the whole shared transaction); ctx is checked before each
// instead. A busy database (another process holding the lock past the busy
// timeout) runs fn again until ctx's deadline, as View does.
func (s *Store) Update(ctx context.Context, fn func(baton.Tx) error) error {
	if s.closed.Load() {
		return errClosed()
	}
	start := time.Now()
	err := sqlcore.RetryBusy(ctx, IsBusy, func() error {
		return s.group.Do(ctx, func(b *sqlcore.BatchTx) error {
			return b.Call(func(t *sql.Tx, m *sqlcore.BatchMemo) error {
				st := s.newStoreTx(sqlcore.Uninterrupted(t), false)
				st.Head, st.ProjectsRead = &m.Head, &m.Projects
				return fn(st)
			})
		})
	})
	return outOfTime(ctx, err, start)
}

// beginBatch begins a group commit's transaction on the writer. The
// transaction is not tied to ctx (database/sql would roll it back when ctx
// ended, under every call of the batch); SQLite's own wait for another
// process's lock is bounded by the busy timeout.
func (s *Store) beginBatch(ctx context.Context) (*sqlcore.GroupTx[*sqlcore.BatchTx], error) {
	t, err := s.w.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return nil, err
	}
	return sqlcore.SQLGroupTx(t), nil
}

func errClosed() error {
	return baton.Errorf(baton.ErrInternal, "the store is closed").WithHint("the server is shutting down; retry against a running server")
}

// View runs fn in one read transaction over a consistent snapshot, on the
// reader pool: it never waits for the writer.
func (s *Store) View(ctx context.Context, fn func(baton.Tx) error) error {
	return s.run(ctx, s.r, true, fn)
}

// run runs fn in one transaction, again while SQLite reports the database
// busy (another process holds the lock past the busy timeout), until ctx's
// deadline: then the error is ERR_RATE_LIMITED type busy, never a bare
// "database is locked". fn may therefore run more than once; each run sees
// a fresh transaction, the earlier one rolled back.
func (s *Store) run(ctx context.Context, db *sql.DB, readOnly bool, fn func(baton.Tx) error) error {
	if s.closed.Load() {
		return errClosed()
	}
	start := time.Now()
	err := sqlcore.RetryBusy(ctx, IsBusy, func() error { return s.once(ctx, db, readOnly, fn) })
	return outOfTime(ctx, err, start)
}

// outOfTime is sqlcore.OutOfTime, knowing one more way SQLite says the
// context ended: the driver interrupts a statement when its context ends
// (SQLITE_INTERRUPT, "interrupted (9)"), which is the call running out of
// time (retryable), not a fault of the store.
func outOfTime(ctx context.Context, err error, start time.Time) error {
	if isInterrupt(err) && ctx.Err() != nil {
		err = fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return sqlcore.OutOfTime(ctx, err, start)
}

// isInterrupt reports whether err is SQLite's "interrupted": a statement
// stopped by sqlite3_interrupt, which the driver calls when the
// statement's context ends.
func isInterrupt(err error) bool {
	var se interface{ Code() int }
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_INTERRUPT
}

// IsBusy reports whether err is SQLite's lock contention, "database is
// locked": SQLITE_BUSY with any extended code (recovery, snapshot,
// timeout), from any statement, BEGIN and COMMIT included. SQLITE_LOCKED
// is a conflict inside one connection, which waiting does not cure.
func IsBusy(err error) bool {
	var se interface{ Code() int }
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// once is one attempt of run.
//
// Its statements run without ctx's cancellation, which is checked before
// each of them instead (sqlcore.Uninterrupted, as a group commit's are):
// handed a context that can end, database/sql watches each transaction
// and each result set, and the driver each statement, from a goroutine of
// its own, which cost more than the reads of a short call. A read whose
// time runs out stops at its next statement; one still waiting for a
// connection stops waiting.
func (s *Store) once(ctx context.Context, db *sql.DB, readOnly bool, fn func(baton.Tx) error) error {
	// Waiting for a connection of the pool still ends with ctx.
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	t, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return err
	}
	// Rollback after Commit is a no-op; deferring it means no path, panics
	// included, leaves the single writer connection inside a transaction.
	defer t.Rollback()
	if err := fn(s.newStoreTx(sqlcore.Uninterrupted(t), readOnly)); err != nil {
		return err
	}
	if readOnly {
		return t.Rollback()
	}
	return t.Commit()
}

// Info reports the file, whether it is open and the schema version.
func (s *Store) Info(ctx context.Context) baton.StoreInfo {
	info := baton.StoreInfo{Driver: "sqlite", Path: s.path, SchemaVersion: s.version}
	if !s.closed.Load() {
		var v int64
		if err := s.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err == nil {
			info.Open, info.SchemaVersion = true, v
		}
	}
	return info
}

// Close checkpoints the WAL and closes every connection.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	// The background checkpointer stops first: the last checkpoint is the
	// writer's, and TRUNCATE needs the log to itself.
	ckErr := s.ckpt.close()
	// A checkpoint can be refused while another process reads; the WAL is
	// still durable, so that is no failure to close.
	_, _ = s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return errors.Join(ckErr, s.r.Close(), s.w.Close())
}
