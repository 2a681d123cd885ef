// Package sqlcore is the dialect-neutral transaction code shared by the
// SQLite and PostgreSQL stores: presence, events, claims, the audit trail,
// item records, dependencies, the queue, moves, profiles and tokens. The
// queries use SQLite-style ? placeholders (the PostgreSQL store rebinds
// them) and SQL both databases read the same way; the few real
// differences go through a Dialect.
//
// A backend's transaction embeds Tx, so the methods here complete its
// baton.Tx, and points Tx.Self back at itself, so that shared code reaching
// for methods it does not hold (Item, Project) runs the backend's own.
package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// Querier runs statements: a *sql.Tx, or a wrapper around one.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Dialect is what the shared code cannot say in SQL both databases accept
// with the same meaning.
type Dialect interface {
	// IsUnique reports whether err is a unique or primary-key violation.
	IsUnique(err error) bool
	// Attempt runs fn, a statement whose failure the caller handles and
	// carries on from. PostgreSQL aborts the whole transaction on a failed
	// statement unless it ran under a savepoint; SQLite just runs fn.
	Attempt(ctx context.Context, fn func() error) error
	// NoLimit is the LIMIT parameter meaning "no limit": SQLite refuses
	// NULL there and PostgreSQL refuses -1.
	NoLimit() any
	// LimitArg is the placeholder a LIMIT takes its count from. SQLite
	// (since 3.5x) reads a bare "LIMIT ?" at prepare time, marking the
	// statement to be prepared again at every bind, which undoes keeping
	// statements prepared; it does not look through a unary plus.
	LimitArg() string
	// LabelsOf is a scalar subquery of the labels of the item whose id is
	// idExpr, in their order, as the text of a JSON array ("[]" for none):
	// one item's row and its labels in one statement.
	LabelsOf(idExpr string) string
	// ByteOrder is expr collated by bytes, for an ORDER BY on text that
	// must come out the same on both (SQLite's default BINARY collation,
	// PostgreSQL's "C"; SQLite knows no collation named "C").
	ByteOrder(expr string) string
	// EventInsert is the statement AppendEvent runs for e: insert (an
	// INSERT ... RETURNING seq) as it is, or wrapped so that the same
	// statement does what else a new event needs (PostgreSQL notifies the
	// other replicas), with the arguments the wrapping adds after insert's.
	// prior, when not "", is a statement without results that must run
	// just before (the call's action): withPrior says the query runs it
	// too, its arguments first; otherwise the caller runs it.
	EventInsert(insert string, e *baton.Event, prior string) (query string, args []any, withPrior bool)
	// ChunkMatches is a query of (rid, score) over document_chunks: the
	// chunks whose indexed text holds any of words (lower-case letters and
	// digits), score lower for a better match (FTS5's bm25 on SQLite,
	// ts_rank negated on PostgreSQL), with its arguments.
	ChunkMatches(words []string) (string, []any)
}

// Tx holds one store transaction and implements the parts of baton.Tx
// that both stores share.
type Tx struct {
	Q    Querier
	Now  baton.Clock
	D    Dialect
	Self baton.Tx // the backend's transaction that embeds this one
	// opened are the audit sessions this transaction started: the call
	// that opens a session is not one of its records.
	opened map[string]bool
	// Vectors is the store's vector cache (nil: none); ReadOnly says the
	// transaction is a read-only snapshot, the only kind that uses it.
	Vectors  *VectorCache
	ReadOnly bool
	bumped   bool // the knowledge generation moved on in this transaction
	// found are the ids Item found an item under in this transaction.
	// Activity, which needs only to know that one exists, does not read it
	// again: items are never deleted, and an id moved away still leads to
	// its item (Alias).
	found map[string]bool
	// claimRows are the claim rows read in this transaction (claimMemo).
	claimRows map[string]claimMemo
	// Head is the group commit batch's chain head (nil outside a batch:
	// every append reads it).
	Head *ChainHead
	// ProjectsRead are the projects the batch has read (nil outside a
	// batch: every lookup reads).
	ProjectsRead *ProjectMemo
}

// MS stores an instant as Unix milliseconds, the stores' time columns.
func MS(t time.Time) int64 { return t.UnixMilli() }

// FromMS reads an instant stored by MS, in UTC.
func FromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// JSONList encodes a string list for a TEXT column; nil is stored as [] so
// readers never meet null.
func JSONList(s []string) string {
	if s == nil {
		s = []string{}
	}
	b, _ := json.Marshal(s) // a []string always marshals
	return string(b)
}

// ParseList decodes a JSONList column; it never returns a nil list.
func ParseList(s string) ([]string, error) {
	out := []string{}
	if s == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// Placeholders is "?, ?, ..." for an IN list of n values.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// JoinAnd joins WHERE conditions.
func JoinAnd(conds []string) string { return strings.Join(conds, " AND ") }

// NextRecordID returns the next free id PREFIX-N for an append-only table
// whose rows are numbered by rid. Writers run one at a time (SQLite's
// single writer, PostgreSQL's advisory lock) and this runs inside the
// write transaction, so no other insert can take the number between the
// read and the insert. Ids given by callers (runs only) may already hold
// PREFIX-N; those numbers are skipped. One statement finds the number:
// it counts up from MAX(rid)+1 while the id is taken (almost always not
// at all), so a write pays one round trip, not two or more.
func (t *Tx) NextRecordID(ctx context.Context, table, prefix string) (string, error) {
	var id string
	err := t.Q.QueryRowContext(ctx, nextRecordID(table), prefix, prefix).Scan(&id)
	return id, err
}

// InsertRecord inserts a row into an append-only table numbered by rid,
// under the id NextRecordID would return, and returns that id. cols names
// the columns after id, args their values. Finding the id inside the
// INSERT spares the write a round trip (on PostgreSQL, under the writers'
// lock).
func (t *Tx) InsertRecord(ctx context.Context, table, prefix, cols string, args ...any) (string, error) {
	var id string
	err := t.Q.QueryRowContext(ctx, `INSERT INTO `+table+` (id, `+cols+`) VALUES ((`+nextRecordID(table)+`), `+
		Placeholders(len(args))+`) RETURNING id`, append([]any{prefix, prefix}, args...)...).Scan(&id)
	return id, err
}

// nextRecordID is the query of NextRecordID, whose arguments are the
// prefix, twice.
func nextRecordID(table string) string {
	return `WITH RECURSIVE candidate(n) AS (
			SELECT COALESCE(MAX(rid), 0) + 1 FROM ` + table + `
			UNION ALL
			SELECT n + 1 FROM candidate
			WHERE EXISTS (SELECT 1 FROM ` + table + ` WHERE id = CAST(? AS TEXT) || '-' || CAST(n AS TEXT))
		)
		SELECT CAST(? AS TEXT) || '-' || CAST(MAX(n) AS TEXT) FROM candidate`
}

// Strings runs a query returning one text column (an empty list for no
// rows).
func (t *Tx) Strings(ctx context.Context, query string, args ...any) ([]string, error) {
	out, err := Column(ctx, t.Q, query, args...)
	if out == nil && err == nil {
		out = []string{}
	}
	return out, err
}

// Column runs a query of one text column on q and returns its values (nil
// for no rows).
func Column(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
