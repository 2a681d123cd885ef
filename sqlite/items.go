package sqlite

import (
	"context"
	"errors"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/ftsquery"
	"github.com/baton-dev/baton/sqlcore"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// tx is one SQLite transaction: the shared code in sqlcore.Tx plus the
// methods whose SQL is SQLite's own (full-text search, items, messages...).
type tx struct {
	sqlcore.Tx
}

// newTx wraps a database transaction whose clock is now.
func newTx(q sqlcore.Querier, now baton.Clock) *tx {
	t := &tx{}
	t.Tx = sqlcore.Tx{Q: q, Now: now, D: dialect{}, Self: t}
	return t
}

// newStoreTx is newTx for a transaction of s: read-only ones use its
// knowledge cache (vectors and keyword index).
func (s *Store) newStoreTx(q sqlcore.Querier, readOnly bool) *tx {
	t := newTx(q, s.clock)
	t.Vectors, t.ReadOnly = s.cache, readOnly
	return t
}

// dialect is how SQLite says what sqlcore leaves to each store.
type dialect struct{}

func (dialect) IsUnique(err error) bool { return isUnique(err) }

// Attempt just runs fn: a failed statement does not abort a SQLite
// transaction.
func (dialect) Attempt(_ context.Context, fn func() error) error { return fn() }

// NoLimit is -1: SQLite reads a negative LIMIT as none.
func (dialect) NoLimit() any { return -1 }

// LimitArg is limitArg.
func (dialect) LimitArg() string { return limitArg }

// limitArg is "+?": SQLite 3.53 reads the value bound to a bare "LIMIT ?"
// when it prepares the statement, to plan with it, and so marks the
// statement expired whenever that parameter is bound: every run of a
// kept statement was prepared again (sqlite3Reprepare, 6% of the server's
// CPU on the read-only mix). Through a unary plus the count is an
// expression read at run time, as every SQLite before did.
const limitArg = "+?"

// LabelsOf aggregates with json_group_array, ordered (SQLite 3.44+).
func (dialect) LabelsOf(idExpr string) string {
	return `(SELECT json_group_array(label ORDER BY position) FROM item_labels WHERE item_id = ` + idExpr + `)`
}

// ByteOrder is expr under SQLite's BINARY collation, which compares bytes.
// It is the default, but a column declared COLLATE NOCASE (agents.name)
// would otherwise order by its own collation.
func (dialect) ByteOrder(expr string) string { return expr + ` COLLATE BINARY` }

// EventInsert is the insert as it is: a SQLite file has no other replicas
// to notify, and a statement costs no round trip (SQLite's INSERT cannot
// carry another in a WITH either), so prior runs on its own.
func (dialect) EventInsert(insert string, _ *baton.Event, _ string) (string, []any, bool) {
	return insert, nil, false
}

func isUnique(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

func (t *tx) CreateProject(ctx context.Context, p *baton.Project) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = t.Now().UTC()
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO projects (slug, prefix, name, root, tools, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		p.Slug, p.Prefix, p.Name, p.Root, sqlcore.JSONList(sqlcore.UniqueList(p.Tools)), sqlcore.MS(p.CreatedAt))
	if isUnique(err) {
		return baton.Errorf(baton.ErrConflict, "a project with slug %q or prefix %q already exists", p.Slug, p.Prefix).
			WithType("duplicate").WithDetails("project", p.Slug, "prefix", p.Prefix).
			WithHint("choose another slug and prefix, or use the existing project")
	}
	return err
}

func (t *tx) CreateItem(ctx context.Context, it *baton.Item) error {
	if err := baton.CheckPhaseLabels(it.Labels); err != nil {
		return err
	}
	var err error
	if it.ID != "" {
		it.Sequence, _, err = t.TakeSequence(ctx, it.Project)
	} else {
		it.Sequence, it.ID, err = t.NextID(ctx, it.Project)
	}
	if err != nil {
		return err
	}
	if it.CreatedAt.IsZero() {
		it.CreatedAt = t.Now().UTC()
	}
	if it.UpdatedAt.IsZero() {
		it.UpdatedAt = it.CreatedAt
	}
	if it.UpdatedBy == "" {
		it.UpdatedBy = it.CreatedBy
	}
	if it.Kind == "" {
		it.Kind = baton.KindTask
	}
	if err := t.CheckParent(ctx, it); err != nil {
		return err
	}
	_, err = t.Q.ExecContext(ctx, `INSERT INTO items (id, project, sequence, title, description, kind, status, priority,
		assignee, parent_id, progress, estimate_hours, blocked_reason, close_reason, resume_status, created_by, updated_by,
		created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		it.ID, it.Project, it.Sequence, it.Title, it.Description, it.Kind, it.Status, it.Priority,
		it.Assignee, sqlcore.NullString(it.ParentID), it.Progress, it.EstimateHours, it.BlockedReason, it.CloseReason, it.ResumeStatus,
		it.CreatedBy, it.UpdatedBy, sqlcore.MS(it.CreatedAt), sqlcore.MS(it.UpdatedAt))
	if isUnique(err) {
		return baton.Errorf(baton.ErrConflict, "an item with id %q already exists", it.ID).
			WithType("duplicate").WithDetails("id", it.ID).WithHint("choose another id, or omit it to get the next one")
	}
	if err != nil {
		return err
	}
	return t.SetLabels(ctx, it.ID, it.Labels)
}

// itemLeaf is the condition for one leaf of a search: a plain word is a
// prefix of a written word (items_words) or of a stemmed one (items_fts),
// phrases and NEAR groups match written words; in title or description.
func itemLeaf(n *ftsquery.Node) (string, []any) {
	return leafIn("rid", "items_words", "items_fts", n)
}

// ListItems is sqlcore's, with this store's full-text condition.
func (t *tx) ListItems(ctx context.Context, f baton.ItemFilter) (baton.ItemPage, error) {
	if strings.TrimSpace(f.Search) == "" {
		return t.Tx.ListItems(ctx, f, "", nil)
	}
	q, err := searchQuery(f.Search, "search", false)
	if err != nil {
		return baton.ItemPage{}, err
	}
	c, a := q.Root.SQL(itemLeaf)
	return t.Tx.ListItems(ctx, f, c, a)
}
