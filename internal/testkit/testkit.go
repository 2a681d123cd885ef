// Package testkit builds the real parts tests run against: a store with a
// project, the full registry and an environment, and helpers to call tools
// the way clients do.
//
// The store is SQLite on a temporary file, or, when BATON_TEST_STORE is
// "postgres", a schema of its own in the PostgreSQL database that
// BATON_TEST_POSTGRES_URL names, dropped when the test ends. The postgres
// package's tests run the tool suites that way.
package testkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlcore"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// Project and Prefix name the project every Kit starts with.
const (
	Project = "colibri"
	Prefix  = "COL"
)

// Kit is one isolated baton: its own database, registry and identity.
type Kit struct {
	T         testing.TB
	Store     baton.Store
	Registry  *tool.Registry
	Env       *tool.Env
	Principal baton.Principal
	// DBPath is the SQLite file; "" on PostgreSQL.
	DBPath string
	// Backend is "sqlite" or "postgres".
	Backend string
}

// Backend is the store backend tests run on: BATON_TEST_STORE, or sqlite.
func Backend() string {
	if os.Getenv("BATON_TEST_STORE") == "postgres" {
		return "postgres"
	}
	return "sqlite"
}

// SQLiteOnly skips a test that inspects SQLite's file itself.
func SQLiteOnly(t testing.TB) {
	t.Helper()
	if Backend() != "sqlite" {
		t.Skip("inspects the SQLite file; the same behaviour is covered on PostgreSQL through the store")
	}
}

// OpenPostgres opens a store on a schema of its own in the test database,
// emptied and given back to the pool of schemas when t ends. Without
// BATON_TEST_POSTGRES_URL the test skips.
func OpenPostgres(t testing.TB, clock baton.Clock) *postgres.Store {
	t.Helper()
	dsn := os.Getenv("BATON_TEST_POSTGRES_URL")
	if dsn == "" {
		t.Skip("BATON_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable); .ci/run sets it")
	}
	ctx := context.Background()
	schema := schemas.take(t, dsn)
	s, err := postgres.Open(ctx, dsn, postgres.Options{Clock: clock, Schema: schema, MaxConns: 8})
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		schemas.give(t, dsn, schema)
	})
	return s
}

// schemas reuses migrated schemas across the tests of one process: a
// migration costs a few hundred milliseconds, emptying the tables a few.
var schemas schemaPool

type schemaPool struct {
	mu   sync.Mutex
	free []string
	n    int
	once sync.Once
	// db empties schemas for the whole process: a connection of its own
	// per test cost a PostgreSQL backend started and warmed each time.
	db  *sql.DB
	dsn string
}

// cleaner is the pool's connection to dsn, opened on first use.
func (p *schemaPool) cleaner(dsn string) (*sql.DB, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.db != nil && p.dsn == dsn {
		return p.db, nil
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(4)
	p.db, p.dsn = db, dsn
	return db, nil
}

// take returns an empty schema: a free one, or a new name (Open creates
// and migrates it). Names carry the process id, so schemas left behind by
// processes that have ended are dropped on first use.
func (p *schemaPool) take(t testing.TB, dsn string) string {
	p.once.Do(func() { dropOrphans(dsn) })
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		return s
	}
	p.n++
	return fmt.Sprintf("t_%d_%d", os.Getpid(), p.n)
}

// give empties the schema's tables and puts it back; a schema that cannot
// be emptied is dropped instead.
func (p *schemaPool) give(t testing.TB, dsn, schema string) {
	ctx := context.Background()
	db, err := p.cleaner(dsn)
	if err == nil {
		err = truncateAll(ctx, db, schema)
	}
	if err != nil {
		if derr := postgres.DropSchema(ctx, dsn, schema); derr != nil {
			t.Errorf("drop schema %s: %v (emptying it failed: %v)", schema, derr, err)
		}
		return
	}
	p.mu.Lock()
	p.free = append(p.free, schema)
	p.mu.Unlock()
}

// truncateAll empties what a test used of the schema: the tables that hold
// rows, deleted children first, and the sequences that have been drawn
// from. It deletes rather than truncates: TRUNCATE gives every table it
// empties, and with CASCADE every table that refers to one, new files for
// the table and each index, and PostgreSQL unlinks the old ones only at
// the next checkpoint. Across a test run that was hundreds of thousands of
// files in one directory, and most of the suite's time went to the
// kernel's file creation. A test leaves a few rows in a few tables.
func truncateAll(ctx context.Context, db *sql.DB, schema string) error {
	tables, err := sqlcore.Column(ctx, db, `SELECT quote_ident(tablename) FROM pg_tables
		WHERE schemaname = $1 AND tablename <> 'goose_db_version'`, schema)
	if err != nil || len(tables) == 0 {
		return err
	}
	parents, err := foreignKeys(ctx, db, schema)
	if err != nil {
		return err
	}
	q := quoteIdent(schema) + "."
	probes := make([]string, len(tables))
	for i, t := range tables {
		probes[i] = fmt.Sprintf("SELECT %d WHERE EXISTS (SELECT 1 FROM %s)", i, q+t)
	}
	probe := strings.Join(probes, " UNION ALL ")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The triggers name their tables unqualified, as the store's
	// connections see them.
	if _, err := tx.ExecContext(ctx, "SET LOCAL search_path TO "+quoteIdent(schema)); err != nil {
		return err
	}
	// A delete's triggers may write to a table already emptied (an item's
	// counts), so the tables are probed again until none holds a row.
	for round := 0; ; round++ {
		used, err := sqlcore.Column(ctx, tx, probe)
		if err != nil {
			return err
		}
		if len(used) == 0 {
			break
		}
		if round == 3 {
			return fmt.Errorf("schema %s: tables %s still hold rows", schema, strings.Join(used, ", "))
		}
		var order []string
		for _, i := range used {
			n, _ := strconv.Atoi(i)
			order = append(order, tables[n])
		}
		order, err = childrenFirst(order, parents)
		if err != nil {
			return err
		}
		for _, t := range order {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+q+t); err != nil {
				return err
			}
		}
	}
	drawn, err := sqlcore.Column(ctx, tx, `SELECT quote_ident(sequencename) FROM pg_sequences
		WHERE schemaname = $1 AND last_value IS NOT NULL AND sequencename <> 'goose_db_version_id_seq'`, schema)
	if err != nil {
		return err
	}
	for _, seq := range drawn {
		if _, err := tx.ExecContext(ctx, "ALTER SEQUENCE "+q+seq+" RESTART"); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// foreignKeys maps each table of schema to the other tables its foreign
// keys refer to.
func foreignKeys(ctx context.Context, db *sql.DB, schema string) (map[string][]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT quote_ident(ch.relname), quote_ident(pa.relname)
		FROM pg_constraint k
		JOIN pg_class ch ON ch.oid = k.conrelid
		JOIN pg_class pa ON pa.oid = k.confrelid
		JOIN pg_namespace n ON n.oid = k.connamespace
		WHERE k.contype = 'f' AND n.nspname = $1 AND k.conrelid <> k.confrelid`, schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parents := map[string][]string{}
	for rows.Next() {
		var child, parent string
		if err := rows.Scan(&child, &parent); err != nil {
			return nil, err
		}
		parents[child] = append(parents[child], parent)
	}
	return parents, rows.Err()
}

// childrenFirst orders tables so that each comes before the tables its
// foreign keys refer to.
func childrenFirst(tables []string, parents map[string][]string) ([]string, error) {
	left := map[string]bool{}
	for _, t := range tables {
		left[t] = true
	}
	var out []string
	for len(left) > 0 {
		progressed := false
		for _, t := range tables {
			if !left[t] {
				continue
			}
			referred := false // does a table still to be emptied refer to t?
			for c := range left {
				if c != t && slices.Contains(parents[c], t) {
					referred = true
					break
				}
			}
			if !referred {
				out = append(out, t)
				delete(left, t)
				progressed = true
			}
		}
		if !progressed {
			return nil, fmt.Errorf("tables %v refer to each other in a cycle", slices.Sorted(maps.Keys(left)))
		}
	}
	return out, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// dropOrphans drops the test schemas of processes that no longer run.
func dropOrphans(dsn string) {
	ctx := context.Background()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT nspname FROM pg_namespace WHERE nspname ~ '^t_[0-9]+_[0-9]+$'`)
	if err != nil {
		return
	}
	var orphans []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		pid := strings.Split(name, "_")[1]
		if _, err := os.Stat("/proc/" + pid); os.IsNotExist(err) {
			orphans = append(orphans, name)
		}
	}
	rows.Close()
	for _, name := range orphans {
		_ = postgres.DropSchema(ctx, dsn, name)
	}
}

// DB is a second connection pool to the kit's database, for what no tool
// does or shows; write queries with ? placeholders and run them through
// Exec, Count or Query, which adapt them to the backend.
func (k *Kit) DB() *sql.DB {
	k.T.Helper()
	if ps, ok := k.Store.(*postgres.Store); ok {
		return ps.DB()
	}
	uri := "file:" + (&url.URL{Path: k.DBPath}).EscapedPath() + "?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)"
	d, err := sql.Open("sqlite", uri)
	if err != nil {
		k.T.Fatalf("open second connection: %v", err)
	}
	k.T.Cleanup(func() { d.Close() })
	return d
}

// Rebind turns ? placeholders into PostgreSQL's $1, $2... on that backend.
func (k *Kit) Rebind(query string) string {
	if k.Backend != "postgres" {
		return query
	}
	return postgres.Rebind(query)
}

// Exec runs one statement on a second connection and reports the rows it
// changed.
func (k *Kit) Exec(query string, args ...any) int64 {
	k.T.Helper()
	res, err := k.DB().Exec(k.Rebind(query), args...)
	if err != nil {
		k.T.Fatalf("%s: %v", query, err)
	}
	n, _ := res.RowsAffected()
	return n
}

// Count runs a query returning one integer on a second connection.
func (k *Kit) Count(query string, args ...any) int {
	k.T.Helper()
	var n int
	if err := k.DB().QueryRow(k.Rebind(query), args...).Scan(&n); err != nil {
		k.T.Fatalf("%s: %v", query, err)
	}
	return n
}

// New opens a fresh store in t's temporary directory with the project
// colibri (prefix COL) and the full registry, acting as agent-alice.
func New(t testing.TB) *Kit {
	t.Helper()
	return open(t, nil)
}

// NewAt is New on a fake clock, given to the store as well as to the tools,
// as the CLI does: the store reads its own clock where its interface takes
// no "now" (lazy claim expiry), so both must agree.
func NewAt(t testing.TB, c *Clock) *Kit {
	t.Helper()
	k := open(t, c.Now)
	k.Env.Clock = c.Now
	return k
}

func open(t testing.TB, clock baton.Clock) *Kit {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	var s baton.Store
	path, backend := "", Backend()
	if backend == "postgres" {
		s = OpenPostgres(t, clock)
	} else {
		path = filepath.Join(dir, "baton.db")
		FreshSQLite(t, path)
		ss, err := sqlite.Open(ctx, path, sqlite.Options{Clock: clock})
		if err != nil {
			t.Fatalf("open store: %v", err)
		}
		t.Cleanup(func() { ss.Close() })
		s = ss
	}
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: Project, Prefix: Prefix})
	}); err != nil {
		t.Fatalf("create project: %v", err)
	}
	reg := tools.Registry()
	return &Kit{
		T: t, Store: s, Registry: reg, DBPath: path, Backend: backend,
		Env: &tool.Env{Store: s, Registry: reg, DataDir: dir, WorkDir: dir,
			Server: tool.ServerInfo{Version: "test", Mode: "TEST", Started: time.Now()}},
		Principal: baton.Principal{Agent: "agent-alice", Source: baton.SourceTest},
	}
}

// sqliteTemplate is an empty SQLite database at the latest schema, made
// once per test process: migrating a new file takes 30-50 ms and copying
// this one about 2, and most tests open a fresh store (the migrations
// themselves are the sqlite package's tests, on new files).
var sqliteTemplate struct {
	once sync.Once
	data []byte
	err  error
}

// migratedSQLite is the template's bytes: the store opens it as it opens
// any database already at the latest schema, and migrates nothing.
func migratedSQLite() ([]byte, error) {
	sqliteTemplate.once.Do(func() {
		dir, err := os.MkdirTemp("", "baton-testkit-")
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "baton.db")
		s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		// Closing checkpoints the write-ahead log into the file, which is
		// then the whole database.
		if err := s.Close(); err != nil {
			sqliteTemplate.err = err
			return
		}
		if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
			sqliteTemplate.err = fmt.Errorf("the template's write-ahead log holds %d bytes after closing", fi.Size())
			return
		}
		sqliteTemplate.data, sqliteTemplate.err = os.ReadFile(path)
	})
	return sqliteTemplate.data, sqliteTemplate.err
}

// FreshSQLite writes at path an empty SQLite database at the latest
// schema, a copy of the process's template: a store opened on it migrates
// nothing.
func FreshSQLite(t testing.TB, path string) {
	t.Helper()
	tpl, err := migratedSQLite()
	if err != nil {
		t.Fatalf("migrate a template database: %v", err)
	}
	if err := os.WriteFile(path, tpl, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Call runs a tool directly with args (a JSON string, a map or a struct).
func (k *Kit) Call(name string, args any) tool.Result {
	k.T.Helper()
	return k.Registry.Call(context.Background(), k.Env, k.Principal, name, Raw(k.T, args))
}

// As returns a copy of the kit acting as another agent.
func (k *Kit) As(agent string) *Kit {
	c := *k
	c.Principal.Agent = agent
	return &c
}

// OK runs a tool, fails the test on an error result, and decodes the
// structured output into a generic map.
func (k *Kit) OK(name string, args any) map[string]any {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err != nil {
		k.T.Fatalf("%s(%s): unexpected error %s", name, Raw(k.T, args), res.Text)
	}
	return Decode(k.T, res.Output)
}

// Fail runs a tool and fails the test unless it returns the error code.
func (k *Kit) Fail(name string, args any, code string) *baton.Error {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err == nil {
		k.T.Fatalf("%s(%s): want %s, got success %s", name, Raw(k.T, args), code, res.Text)
	}
	if res.Err.Code != code {
		k.T.Fatalf("%s(%s): want %s, got %s", name, Raw(k.T, args), code, res.Text)
	}
	return res.Err
}

// Raw turns args into JSON: strings are taken as JSON text.
func Raw(t testing.TB, args any) json.RawMessage {
	t.Helper()
	switch a := args.(type) {
	case nil:
		return json.RawMessage("{}")
	case string:
		return json.RawMessage(a)
	case json.RawMessage:
		return a
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("marshal args: %v", err)
	}
	return b
}

// Decode round-trips v through JSON into a generic map.
func Decode(t testing.TB, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return m
}

// On returns a copy of k reporting failures to t: a kit built by a parent
// test must not call Fatal on the parent from a subtest.
func (k *Kit) On(t testing.TB) *Kit {
	c := *k
	c.T = t
	return &c
}

// APIError is the inner object of the error envelope as a client reads it.
type APIError struct {
	Code    string         `json:"code"`
	Type    string         `json:"type"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
	Hint    string         `json:"next_action_hint"`
}

// FailEnvelope calls a tool that must fail with code and returns the error
// decoded from the text a client receives, checking the envelope's shape:
// one "error" key, the expected code (also in Result.Err), a message and a
// type.
func (k *Kit) FailEnvelope(name string, args any, code string) APIError {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err == nil {
		k.T.Fatalf("%s(%s) as %s: want %s, got success %s", name, Raw(k.T, args), k.Principal.Agent, code, res.Text)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		k.T.Fatalf("%s: error text is not JSON: %v: %s", name, err, res.Text)
	}
	if len(env) != 1 || env["error"] == nil {
		k.T.Fatalf("%s: error text is not the envelope {\"error\": {...}}: %s", name, res.Text)
	}
	var e APIError
	if err := json.Unmarshal(env["error"], &e); err != nil {
		k.T.Fatalf("%s: decode envelope: %v", name, err)
	}
	if e.Code != code {
		k.T.Fatalf("%s(%s) as %s: want %s, got %s", name, Raw(k.T, args), k.Principal.Agent, code, res.Text)
	}
	if res.Err.Code != e.Code {
		k.T.Fatalf("%s: Result.Err code %s differs from the envelope's %s", name, res.Err.Code, e.Code)
	}
	if e.Message == "" || e.Type == "" {
		k.T.Fatalf("%s: envelope lacks message or type: %s", name, res.Text)
	}
	return e
}

// AddProject creates another project beside colibri.
func (k *Kit) AddProject(slug, prefix string) {
	k.T.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: slug, Prefix: prefix})
	}); err != nil {
		k.T.Fatalf("create project %s: %v", slug, err)
	}
}

// StoreItem creates an item directly through the store, for what the tools
// under test cannot produce (any status or kind, a parent, a chosen
// creation time). Empty fields default to a todo task titled "item" in
// colibri, created by agent-alice.
func (k *Kit) StoreItem(it *baton.Item) string {
	k.T.Helper()
	ctx := context.Background()
	if it.Project == "" {
		it.Project = Project
	}
	if it.Status == "" {
		it.Status = baton.StatusTodo
	}
	if it.Kind == "" {
		it.Kind = baton.KindTask
	}
	if it.Title == "" {
		it.Title = "item"
	}
	if it.CreatedBy == "" {
		it.CreatedBy = "agent-alice"
	}
	if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.CreateItem(ctx, it) }); err != nil {
		k.T.Fatalf("create item: %v", err)
	}
	return it.ID
}

// Depend records that id cannot start before dependsOn is done.
func (k *Kit) Depend(id, dependsOn string) {
	k.T.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.AddDependency(ctx, id, dependsOn) }); err != nil {
		k.T.Fatalf("add dependency %s -> %s: %v", id, dependsOn, err)
	}
}
