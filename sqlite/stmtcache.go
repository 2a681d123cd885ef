package sqlite

import (
	"container/list"
	"context"
	"database/sql/driver"
	"reflect"

	msqlite "modernc.org/sqlite"
)

// stmtCacheSize bounds the statements one connection keeps prepared. The
// store's SQL is fixed per call site (about a hundred texts) except where a
// call builds it (IN lists, search filters): those pass through the
// least-recently-used end without pushing the hot texts out for long, and
// a client sending ever new shapes cannot grow the cache.
const stmtCacheSize = 256

// cachingConnector opens modernc connections that keep their statements
// prepared, keyed by SQL text.
//
// The driver re-parses every statement run through Exec or Query on a
// connection (sqlite3_prepare_v2 each time: 14% of the writer's CPU). The
// cache sits in the driver rather than in database/sql Stmts because a
// *sql.Stmt is prepared through the pool: preparing one while a
// transaction holds the single writer connection would wait for that very
// connection. At the driver, a miss prepares on the connection in hand and
// every later run on it only binds and steps.
type cachingConnector struct{ inner driver.Connector }

func newCachingConnector(dsn string) (driver.Connector, error) {
	inner, err := msqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return cachingConnector{inner}, nil
}

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return newCachingConn(conn), nil
}

func (c cachingConnector) Driver() driver.Driver { return c.inner.Driver() }

// modernConn is what the store needs of a modernc connection: the driver
// implements all of it.
type modernConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// modernStmt is a modernc statement: it runs with a context.
type modernStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// cachingConn is one connection with its prepared statements, least
// recently used last. database/sql uses a connection from one goroutine at
// a time (closing a Rows included), so the cache needs no lock of its own.
type cachingConn struct {
	modernConn
	lru   *list.List // of *cachedStmt, most recently used first
	stmts map[string]*list.Element
}

// cachedStmt is one prepared statement. A statement stepping through a
// result (open Rows) cannot run again until they close: busy counts them,
// and a run meanwhile (a query repeated inside a loop over its own rows)
// takes a fresh statement. One evicted while busy closes with its last
// Rows.
type cachedStmt struct {
	query   string
	st      modernStmt
	busy    int
	evicted bool
}

func newCachingConn(c driver.Conn) driver.Conn {
	mc, ok := c.(modernConn)
	if !ok { // not the driver the store was written for: run it as it is
		return c
	}
	return &cachingConn{modernConn: mc, lru: list.New(), stmts: map[string]*list.Element{}}
}

// stmt is the connection's prepared statement for query, prepared now if
// needed; nil (and no error) when the cached one is busy.
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if el, ok := c.stmts[query]; ok {
		cs := el.Value.(*cachedStmt)
		if cs.busy > 0 {
			return nil, nil
		}
		c.lru.MoveToFront(el)
		return cs, nil
	}
	ds, err := c.modernConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	st, ok := ds.(modernStmt)
	if !ok {
		ds.Close()
		return nil, nil
	}
	cs := &cachedStmt{query: query, st: st}
	c.stmts[query] = c.lru.PushFront(cs)
	for c.lru.Len() > stmtCacheSize {
		c.evict(c.lru.Back())
	}
	return cs, nil
}

func (c *cachingConn) evict(el *list.Element) {
	cs := el.Value.(*cachedStmt)
	c.lru.Remove(el)
	delete(c.stmts, cs.query)
	cs.evicted = true
	if cs.busy == 0 {
		cs.st.Close()
	}
}

// ExecContext runs query on its cached statement.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.modernConn.ExecContext(ctx, query, args)
	}
	return cs.st.ExecContext(ctx, args)
}

// QueryContext runs query on its cached statement, which stays busy until
// the rows close.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.modernConn.QueryContext(ctx, query, args)
	}
	rows, err := cs.st.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy++
	return &cachedRows{rows: rows, cs: cs}, nil
}

// Close finalizes every cached statement, then closes the connection:
// closing the store's pools closes them all.
func (c *cachingConn) Close() error {
	for el := c.lru.Front(); el != nil; el = el.Next() {
		el.Value.(*cachedStmt).st.Close()
	}
	c.lru.Init()
	clear(c.stmts)
	return c.modernConn.Close()
}

// cachedRows are rows of a cached statement: closing them frees the
// statement for its next run.
type cachedRows struct {
	rows   driver.Rows
	cs     *cachedStmt
	closed bool
}

func (r *cachedRows) Columns() []string              { return r.rows.Columns() }
func (r *cachedRows) Next(dest []driver.Value) error { return r.rows.Next(dest) }

func (r *cachedRows) Close() error {
	err := r.rows.Close()
	if !r.closed {
		r.closed = true
		r.cs.busy--
		if r.cs.evicted && r.cs.busy == 0 {
			r.cs.st.Close()
		}
	}
	return err
}

// The column type methods pass the driver's answers through, so
// Rows.ColumnTypes reads the same as without the cache.

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if t, ok := r.rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}
