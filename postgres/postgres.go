// Package postgres is baton's store for deployments past one machine:
// several baton replicas on one PostgreSQL database, through pgx.
//
// Write transactions take one transaction-level advisory lock first, so
// writers run one at a time as they do on SQLite's single writer: every
// read-then-write in the store (sequence numbers, claims, hash chains)
// stays correct across replicas without retry loops. Reads run beside
// them on REPEATABLE READ snapshots.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrateLockID is the session advisory lock every baton migration takes,
// whatever its schema: the baseline installs a database-wide extension, so
// migrations of different schemas must not run at once either.
const migrateLockID = 0x6261746f6e // "baton"

// Store implements baton.Store over one PostgreSQL database (and schema).
type Store struct {
	db *sql.DB
	// group batches this process's concurrent Updates into one
	// transaction: one connection writes at a time, the other writers
	// queue in it holding nothing, and the advisory lock only decides
	// between replicas.
	group   sqlcore.Group[*sqlcore.BatchTx]
	cfg     *pgx.ConnConfig
	schema  string
	writeID int64  // the advisory lock that serialises writers
	channel string // the NOTIFY channel of this schema's events
	clock   baton.Clock
	version int64
	cache   *sqlcore.KnowledgeCache // vectors and keyword index for read-only searches
	closed  atomic.Bool
}

var _ baton.Store = (*Store)(nil)

// Options tune Open.
type Options struct {
	Clock baton.Clock // defaults to time.Now
	// Schema, when set, is created if missing and used as the search_path,
	// so several bators (or test runs) can share one database.
	Schema   string
	MaxConns int // connection pool size; defaults to 16
}

// IsURL reports whether dsn names a PostgreSQL database rather than a file.
func IsURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to the database at dsn (a postgres:// URL) and migrates it
// to the latest schema.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	cfg, schema, err := configure(dsn, opts)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, clock: opts.Clock, schema: schema, cache: sqlcore.NewKnowledgeCache(sqlcore.CacheOptions{StableChunkIDs: true})}
	if s.clock == nil {
		s.clock = time.Now
	}
	h := fnv.New64a()
	h.Write([]byte("baton-writer:" + s.schema))
	s.writeID = int64(h.Sum64() >> 1)
	s.channel = "baton_events"
	if s.schema != "" {
		s.channel += "." + s.schema
	}
	if len(s.channel) > 63 { // PostgreSQL's identifier limit
		s.channel = fmt.Sprintf("baton_events.%x", h.Sum64())
	}
	s.db = stdlib.OpenDB(*cfg)
	n := opts.MaxConns
	if n <= 0 {
		n = 16
	}
	s.db.SetMaxOpenConns(n)
	s.db.SetMaxIdleConns(n)
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, baton.Errorf(baton.ErrInitFailed, "cannot reach PostgreSQL at %s: %v", s.redacted(), redactErr(err)).
			WithHint("check that the server runs and the URL (user, host, port, database) is right")
	}
	if err := createSchema(ctx, s.db, schema); err != nil {
		s.db.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	s.group.Begin = s.beginBatch
	return s, nil
}

// configure parses dsn and settles the schema: Options.Schema, or a single
// schema named by the URL's search_path, becomes the search_path (the
// caller creates it with createSchema, on its own pool: a connection of
// its own here cost a PostgreSQL backend's start, 18 ms on a small VM).
func configure(dsn string, opts Options) (*pgx.ConnConfig, string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, "", baton.Errorf(baton.ErrConfigInvalid, "the database URL is not valid: %v", redactErr(err)).
			WithHint("use postgres://user@host:5432/dbname?sslmode=disable")
	}
	schema := opts.Schema
	if sp := cfg.RuntimeParams["search_path"]; schema == "" && sp != "" && !strings.ContainsAny(sp, ", \"") {
		schema = sp
	}
	if schema != "" {
		cfg.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	}
	return cfg, schema, nil
}

// createSchema creates schema ("": none) if it is missing. The pool's
// connections already name it in their search_path, which PostgreSQL
// resolves at each query, so they need no reconnecting.
func createSchema(ctx context.Context, db *sql.DB, schema string) error {
	if schema == "" {
		return nil
	}
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil && !isUnique(err) {
		return baton.Errorf(baton.ErrInitFailed, "cannot create schema %q: %v", schema, redactErr(err)).
			WithHint("check that the server runs, the URL (user, host, port, database) is right and the user may create schemas")
	}
	return nil
}

// SchemaURL is dsn with its search_path set to schema: the URL another
// baton process (a replica, a stdio agent) opens the same schema with.
func SchemaURL(dsn, schema string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", baton.Errorf(baton.ErrConfigInvalid, "the database URL is not valid: %v", redactErr(err))
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// DropSchema removes a schema and everything in it (for tests and
// throw-away deployments).
func DropSchema(ctx context.Context, dsn, schema string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// Analyze updates the planner's statistics of the store's tables (those of
// its schema, or of the search path's first schema), as autovacuum does
// once enough rows changed. A server whose autovacuum is off, or a load
// test that has just filled a fresh schema, would otherwise plan every query
// for the empty tables it never analyzed: claim_next's ready-work query
// then walks the whole queue (160 ms at 6,400 items, under the writers'
// lock).
func (s *Store) Analyze(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, pgx.Identifier{t}.Sanitize())
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(tables) == 0 {
		return err
	}
	_, err = s.db.ExecContext(ctx, `ANALYZE `+strings.Join(tables, ", "))
	return err
}

// Migrate brings the database at dsn to the newest schema and reports the
// version before and after: `baton migrate`. Open does the same, so this is
// for running migrations ahead of a rollout.
func Migrate(ctx context.Context, dsn string, opts Options) (from, to int64, err error) {
	cfg, schema, err := configure(dsn, opts)
	if err != nil {
		return 0, 0, err
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if err := createSchema(ctx, db, schema); err != nil {
		return 0, 0, err
	}
	return up(ctx, db)
}

// up applies the embedded migrations while holding a session advisory
// lock, so replicas starting together migrate once: the others wait, then
// find nothing to do. (goose's own locker polls once a second at best.)
func up(ctx context.Context, db *sql.DB) (from, to int64, err error) {
	p, err := provider(db)
	if err != nil {
		return 0, 0, err
	}
	if v, ok := current(ctx, db, p); ok {
		return v, v, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, 0, baton.Errorf(baton.ErrInitFailed, "cannot reach PostgreSQL: %v", redactErr(err))
	}
	defer conn.Close()
	// A lock_timeout in the URL is for writes meeting other writers; a
	// replica starting while another migrates waits for it (bounded by
	// ctx) instead of failing to start. RESET returns the session to the
	// URL's setting before the connection goes back to the pool.
	if _, err := conn.ExecContext(ctx, `SET lock_timeout = 0`); err != nil {
		return 0, 0, baton.Errorf(baton.ErrInitFailed, "cannot prepare the migration lock: %v", redactErr(err))
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `RESET lock_timeout`) }()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrateLockID); err != nil {
		return 0, 0, baton.Errorf(baton.ErrInitFailed, "cannot lock the database for migration: %v", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLockID)
	if from, err = p.GetDBVersion(ctx); err != nil {
		from = 0
	}
	if _, err := p.Up(ctx); err != nil {
		return from, 0, baton.Errorf(baton.ErrInitFailed, "migrating: %v", err).
			WithHint("the database may belong to a newer baton; point --db at another database or schema")
	}
	if err := rechain(ctx, db); err != nil {
		return from, 0, err
	}
	to, err = p.GetDBVersion(ctx)
	return from, to, err
}

// current reports whether the database has every migration applied and
// no re-hashing queued, and its version: then there is nothing to lock
// the database for, and an Open (every replica's start, every CLI command)
// needs one connection rather than three. Anything else, a new database
// included, takes the locked path, which also reports what is wrong.
func current(ctx context.Context, db *sql.DB, p *goose.Provider) (int64, bool) {
	sources := p.ListSources()
	if len(sources) == 0 {
		return 0, false
	}
	var ready bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL
		AND to_regclass('thought_rechain') IS NOT NULL AND to_regclass('action_rechain') IS NOT NULL`).Scan(&ready); err != nil || !ready {
		return 0, false
	}
	var latest, applied int64
	var queued bool
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0), COUNT(DISTINCT version_id) FILTER (WHERE version_id > 0),
		EXISTS (SELECT 1 FROM thought_rechain) OR EXISTS (SELECT 1 FROM action_rechain WHERE pending = 1)
		FROM goose_db_version`).Scan(&latest, &applied, &queued); err != nil {
		return 0, false
	}
	want := sources[len(sources)-1].Version
	return latest, latest == want && applied == int64(len(sources)) && !queued
}

func provider(db *sql.DB) (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, baton.Errorf(baton.ErrInitFailed, "migrations: %v", err)
	}
	return p, nil
}

func (s *Store) migrate(ctx context.Context) (err error) {
	_, s.version, err = up(ctx, s.db)
	return err
}

// Update runs fn in one write transaction, after every other writer of the
// schema (on any replica) has finished, shared with the Updates of this
// process running beside it (sqlcore.Group: each but the first under a
// savepoint of its own, one COMMIT for all), and returns after that COMMIT. fn's statements
// are not cancelled when ctx ends (a cancelled statement would take the
// shared transaction down); ctx is checked before each instead.
// Lock contention (a lock_timeout, a deadlock, a serialization failure)
// runs fn again in a new transaction until ctx's deadline, as on SQLite;
// then, like a deadline that passes while waiting for the writers' lock,
// it is ERR_RATE_LIMITED type busy (sqlcore.Busy), never ERR_INTERNAL.
func (s *Store) Update(ctx context.Context, fn func(baton.Tx) error) error {
	if s.closed.Load() {
		return errClosed()
	}
	start := time.Now()
	err := sqlcore.RetryBusy(ctx, IsBusy, func() error {
		return s.group.Do(ctx, func(b *sqlcore.BatchTx) error {
			return b.Call(func(t *sql.Tx, m *sqlcore.BatchMemo) error {
				pt := s.newTx(sqlcore.Uninterrupted(t), false)
				pt.Head, pt.ProjectsRead = &m.Head, &m.Projects
				return fn(pt)
			})
		})
	})
	return sqlcore.OutOfTime(ctx, err, start)
}

// beginBatch begins a group commit's transaction and takes the writers'
// advisory lock in it. The transaction is not tied to ctx (database/sql
// would roll it back when ctx ended, under every call of the batch); ctx's
// deadline, the earliest of the batch's calls', bounds the wait for the
// lock (pgx then closes the connection, and the group gives the calls with
// time left to the next batch).
func (s *Store) beginBatch(ctx context.Context) (*sqlcore.GroupTx[*sqlcore.BatchTx], error) {
	t, err := s.db.BeginTx(context.WithoutCancel(ctx), &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return nil, err
	}
	if _, err := t.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, s.writeID); err != nil {
		_ = t.Rollback()
		return nil, err
	}
	return sqlcore.SQLGroupTx(t), nil
}

// IsBusy reports whether err is PostgreSQL's lock contention, which a new
// transaction may not meet: serialization_failure (40001),
// deadlock_detected (40P01), lock_not_available (55P03, lock_timeout).
func IsBusy(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", "40P01", "55P03":
		return true
	}
	return false
}

// View runs fn in one read-only transaction over a consistent snapshot.
func (s *Store) View(ctx context.Context, fn func(baton.Tx) error) error {
	if s.closed.Load() {
		return errClosed()
	}
	t, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return err
	}
	defer t.Rollback()
	if err := fn(s.newTx(t, true)); err != nil {
		return err
	}
	return t.Rollback()
}

func errClosed() error {
	return baton.Errorf(baton.ErrInternal, "the store is closed").WithHint("the server is shutting down; retry against a running server")
}

// Info reports the redacted URL, whether the database answers and the
// schema version.
func (s *Store) Info(ctx context.Context) baton.StoreInfo {
	info := baton.StoreInfo{Driver: "postgres", Path: s.redacted(), SchemaVersion: s.version}
	if !s.closed.Load() {
		var v int64
		if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&v); err == nil {
			info.Open, info.SchemaVersion = true, v
		}
	}
	return info
}

// redacted is the database's address without its password.
func (s *Store) redacted() string {
	u := url.URL{Scheme: "postgres", Host: fmt.Sprintf("%s:%d", s.cfg.Host, s.cfg.Port), Path: "/" + s.cfg.Database}
	if s.cfg.User != "" {
		u.User = url.User(s.cfg.User)
	}
	if s.schema != "" {
		u.RawQuery = url.Values{"search_path": {s.schema}}.Encode()
	}
	return u.String()
}

// redactErr keeps a password out of an error that quotes the URL.
func redactErr(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "://"); i >= 0 {
		if at := strings.Index(msg[i:], "@"); at > 0 {
			if colon := strings.Index(msg[i+3:i+at], ":"); colon >= 0 {
				msg = msg[:i+3+colon] + ":xxxxx" + msg[i+at:]
			}
		}
	}
	return msg
}

// Close closes every connection.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.db.Close()
}

// Schema is the schema the store works in ("" for the URL's default).
func (s *Store) Schema() string { return s.schema }

// DB is the connection pool, for tests that inspect or tamper with rows.
func (s *Store) DB() *sql.DB { return s.db }

// tx is one PostgreSQL transaction: the shared code in sqlcore.Tx plus the
// methods whose SQL is PostgreSQL's own (full-text search, items,
// messages...).
type tx struct {
	sqlcore.Tx
	channel string // where AppendEvent notifies other replicas
	sp      int    // savepoints taken, for unique names
}

// newTx wraps a database transaction; its queries use ? placeholders.
func (s *Store) newTx(q sqlcore.Querier, readOnly bool) *tx {
	t := &tx{channel: s.channel}
	t.Tx = sqlcore.Tx{Q: rebound{q}, Now: s.clock, D: dialect{t}, Self: t, Vectors: s.cache, ReadOnly: readOnly}
	return t
}

// dialect is how PostgreSQL says what sqlcore leaves to each store.
type dialect struct{ t *tx }

func (dialect) IsUnique(err error) bool { return isUnique(err) }

// Attempt runs fn under a savepoint (see tx.attempt).
func (d dialect) Attempt(ctx context.Context, fn func() error) error { return d.t.attempt(ctx, fn) }

// NoLimit is NULL: PostgreSQL refuses a negative LIMIT.
func (dialect) NoLimit() any { return nil }

// LimitArg is a plain placeholder: PostgreSQL plans a parameterised LIMIT
// once for any count.
func (dialect) LimitArg() string { return "?" }

// LabelsOf aggregates with json_agg, ordered; no row gives "[]".
func (dialect) LabelsOf(idExpr string) string {
	return `(SELECT COALESCE(json_agg(label ORDER BY position), '[]')::text FROM item_labels WHERE item_id = ` + idExpr + `)`
}

// ByteOrder collates expr as "C": byte order, as SQLite's BINARY, whatever
// the database's locale.
func (dialect) ByteOrder(expr string) string { return expr + ` COLLATE "C"` }

// EventInsert notifies the other replicas of the project's new event in
// the insert's own statement, and runs prior (the call's action) in it
// too: each statement of its own was a round trip more in every write,
// each made under the writers' lock. A data-modifying WITH runs once, to
// completion, whether or not the query reads it.
// NOTIFY is transactional: listeners hear it only if the call commits, and
// PostgreSQL folds identical payloads of one transaction into one. The
// payload is the project alone (far below the 8000-byte limit); listeners
// read the rows themselves.
func (d dialect) EventInsert(insert string, e *baton.Event, prior string) (string, []any, bool) {
	with := `WITH `
	if prior != "" {
		with += `prior AS (` + prior + `), `
	}
	return with + `e AS (` + insert + `) SELECT e.seq FROM e, LATERAL pg_notify(?, ?)`, []any{d.t.channel, e.Project}, true
}

// pgCode is the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func isUnique(err error) bool { return pgCode(err) == "23505" }

func isForeignKey(err error) bool { return pgCode(err) == "23503" }

// attempt runs one statement that may fail in a way the caller handles
// (a unique violation, say) under a savepoint: PostgreSQL aborts the whole
// transaction on any failed statement, SQLite does not, and the callers
// carry on after such failures.
func (t *tx) attempt(ctx context.Context, fn func() error) error {
	t.sp++
	name := fmt.Sprintf("baton_sp%d", t.sp)
	if _, err := t.Q.ExecContext(ctx, "SAVEPOINT "+name); err != nil {
		return err
	}
	if err := fn(); err != nil {
		if _, rerr := t.Q.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+name); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	_, err := t.Q.ExecContext(ctx, "RELEASE SAVEPOINT "+name)
	return err
}
