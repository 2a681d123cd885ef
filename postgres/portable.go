package postgres

import (
	"context"
	"io"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/portable"
	"github.com/baton-dev/baton/sqlcore"
	"github.com/jackc/pgx/v5"
)

var _ portable.Porter = (*Store)(nil)

// Export writes the database (or one project) as a baton export from one
// REPEATABLE READ snapshot: `baton export`.
func (s *Store) Export(ctx context.Context, w io.Writer, opts portable.ExportOptions) (*portable.Header, error) {
	opts.SchemaVersion = s.version
	var h *portable.Header
	err := s.View(ctx, func(btx baton.Tx) error {
		t := btx.(*tx)
		var err error
		h, err = portable.Export(ctx, t.Q, t.D, w, opts)
		return err
	})
	return h, err
}

// Import writes an export's records in one write transaction (after the
// other writers of the schema, as every Update): `baton import`.
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
		Inserted: learningText,
		Finish:   identitiesPastRows,
	})
}

// learningText fills an imported learning's applies_text, which its
// full-text columns index, as AddLearning does.
func learningText(ctx context.Context, q sqlcore.Querier, t *portable.Table, row portable.Row) error {
	if t.Name != "learnings" {
		return nil
	}
	var id, applies string
	for i, c := range t.Columns {
		switch c.Name {
		case "id":
			id, _ = row[i].(string)
		case "applies_to":
			applies, _ = row[i].(string)
		}
	}
	list, err := sqlcore.ParseList(applies)
	if err != nil {
		return baton.Errorf(baton.ErrInvalidInput, "applies_to is not a JSON list of strings: %v", err)
	}
	_, err = q.ExecContext(ctx, `UPDATE learnings SET applies_text = ? WHERE id = ?`, strings.Join(list, " "), id)
	return err
}

// identitiesPastRows moves every identity sequence of the schema past
// the largest value its column holds, so rows inserted with their own
// ids (file_reservations keeps its numbers) do not meet a default that
// hands the same number out again. A sequence already further on stays.
func identitiesPastRows(ctx context.Context, q sqlcore.Querier) error {
	rows, err := q.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY table_name, column_name`)
	if err != nil {
		return err
	}
	type identity struct{ table, column string }
	var ids []identity
	for rows.Next() {
		var i identity
		if err := rows.Scan(&i.table, &i.column); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, i)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, i := range ids {
		table, column := pgx.Identifier{i.table}.Sanitize(), pgx.Identifier{i.column}.Sanitize()
		var seq string
		if err := q.QueryRowContext(ctx, `SELECT pg_get_serial_sequence(?, ?)`, table, i.column).Scan(&seq); err != nil {
			return err
		}
		// setval's is_called true: the next value is max + 1. Only ever
		// forward: GREATEST with the sequence's own position.
		if _, err := q.ExecContext(ctx, `SELECT setval(CAST(? AS regclass), m) FROM (
				SELECT MAX(`+column+`) AS m FROM `+table+`) x
			WHERE m IS NOT NULL AND m >= (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM `+seq+`)`,
			seq); err != nil {
			return err
		}
	}
	return nil
}
