package sqlite

import (
	"context"
	"io"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/portable"
	"github.com/baton-dev/baton/sqlcore"
)

var _ portable.Porter = (*Store)(nil)

// Export writes the database (or one project) as a baton export from one
// read snapshot: `baton export`.
func (s *Store) Export(ctx context.Context, w io.Writer, opts portable.ExportOptions) (*portable.Header, error) {
	if s.closed.Load() {
		return nil, errClosed()
	}
	opts.SchemaVersion = s.version
	var h *portable.Header
	// Once, not run: the file is written during the snapshot, so it must
	// not run twice.
	err := s.once(ctx, s.r, true, func(btx baton.Tx) error {
		t := btx.(*tx)
		var err error
		h, err = portable.Export(ctx, t.Q, t.D, w, opts)
		return err
	})
	return h, err
}

// Import writes an export's records in one write transaction: `baton
// import`.
func (s *Store) Import(ctx context.Context, r io.ReadSeeker, opts portable.ImportOptions) (*portable.Report, error) {
	return portable.Import(ctx, r, opts, portable.Backend{
		Update: func(ctx context.Context, fn func(q sqlcore.Querier, d sqlcore.Dialect) error) error {
			return s.Update(ctx, func(btx baton.Tx) error {
				t := btx.(*tx)
				// The import writes actions and audit sessions row by row.
				t.Head.Forget()
				t.ProjectsRead.ForgetAll()
				defer t.Head.Forget()
				defer t.ProjectsRead.ForgetAll()
				return fn(t.Q, t.D)
			})
		},
		Inserted: learningIndexed,
	})
}

// learningIndexed writes an imported learning into the full-text indexes,
// as AddLearning does: they are contentless, no trigger keeps them.
func learningIndexed(ctx context.Context, q sqlcore.Querier, t *portable.Table, row portable.Row) error {
	if t.Name != "learnings" {
		return nil
	}
	get := func(name string) string {
		for i, c := range t.Columns {
			if c.Name == name {
				s, _ := row[i].(string)
				return s
			}
		}
		return ""
	}
	applies, err := sqlcore.ParseList(get("applies_to"))
	if err != nil {
		return baton.Errorf(baton.ErrInvalidInput, "applies_to is not a JSON list of strings: %v", err)
	}
	var rid int64
	if err := q.QueryRowContext(ctx, `SELECT rid FROM learnings WHERE id = ?`, get("id")).Scan(&rid); err != nil {
		return err
	}
	for _, index := range learningIndexes {
		if _, err := q.ExecContext(ctx, `INSERT INTO `+index+` (rowid, pattern, context, applies_to) VALUES (?, ?, ?, ?)`,
			rid, get("pattern"), get("context"), strings.Join(applies, " ")); err != nil {
			return err
		}
	}
	return nil
}
