package portable

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
	"github.com/baton-dev/baton/tlog"
)

// ExportOptions tune Export.
type ExportOptions struct {
	// Project limits the export to one project's rows; the tables of the
	// whole server (profiles, agents, the action log...) are left out.
	Project string
	// Now is the header's generated_at (zero: the current time).
	Now time.Time
	// SchemaVersion is the database's schema version, for the header.
	SchemaVersion int64
	// Progress, if set, hears how many of the total records are written.
	Progress func(done, total int64)
}

// Export writes the database q reads (one read snapshot: it is read twice,
// once for the header's Merkle root and counts, once to write) as an
// export file to w.
func Export(ctx context.Context, q sqlcore.Querier, d sqlcore.Dialect, w io.Writer, opts ExportOptions) (*Header, error) {
	tables := Tables()
	if opts.Project != "" {
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE slug = ?`, opts.Project).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, baton.ProjectNotFound(opts.Project)
		}
		tables = nil
		for _, t := range Tables() {
			if t.Scope != "" {
				tables = append(tables, t)
			}
		}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	h := &Header{Format: Format, SchemaVersion: opts.SchemaVersion, GeneratedAt: now.UTC(), Project: opts.Project}
	counts := map[string]int64{}
	tree := tlog.NewTree()
	err := eachLine(ctx, q, d, tables, opts.Project, func(t *Table, line []byte) error {
		leaf := tlog.LeafHash(line)
		if err := tree.Append(leaf); err != nil {
			return err
		}
		h.LineHashes = append(h.LineHashes, leaf[:lineHashBytes]...)
		counts[t.Type]++
		h.Records++
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.MerkleRoot = hex.EncodeToString(tree.Root())
	for _, t := range tables {
		h.Counts = append(h.Counts, Count{t.Type, counts[t.Type]})
	}
	if head := h.line(); len(head) > MaxHeaderBytes {
		// Past some 16 million records: the import names no changed line,
		// but still refuses the file.
		h.LineHashes = nil
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(append(h.line(), '\n')); err != nil {
		return nil, err
	}
	again := tlog.NewTree()
	var done int64
	err = eachLine(ctx, q, d, tables, opts.Project, func(_ *Table, line []byte) error {
		if err := again.Append(tlog.LeafHash(line)); err != nil {
			return err
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
		done++
		if opts.Progress != nil && done%1000 == 0 {
			opts.Progress(done, h.Records)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if root := hex.EncodeToString(again.Root()); root != h.MerkleRoot || done != h.Records {
		// The snapshot guarantees the same rows twice; this is a bug.
		return nil, baton.Errorf(baton.ErrInternal, "the database read differently the second time (%d records, root %s; first %d, %s)",
			done, root, h.Records, h.MerkleRoot).WithHint("run the export again; report this if it repeats")
	}
	if opts.Progress != nil {
		opts.Progress(done, h.Records)
	}
	return h, bw.Flush()
}

// eachLine reads every row of tables (of project, when not "") in export
// order and calls fn with its record line, which fn must not keep.
func eachLine(ctx context.Context, q sqlcore.Querier, d sqlcore.Dialect, tables []*Table, project string,
	fn func(t *Table, line []byte) error) error {
	var buf []byte
	for _, t := range tables {
		query, args := selectAll(t, d, project)
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("reading %s: %w", t.Name, err)
		}
		raw := make([]any, len(t.Columns))
		ptrs := make([]any, len(t.Columns))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		row := make(Row, len(t.Columns))
		err = func() error {
			defer rows.Close()
			for rows.Next() {
				if err := rows.Scan(ptrs...); err != nil {
					return err
				}
				for i, c := range t.Columns {
					v, err := normalize(c, raw[i])
					if err != nil {
						return unexportable(t, c, shown(raw), err)
					}
					row[i] = v
				}
				if buf, err = appendLine(buf[:0], t, row); err != nil {
					return unexportable(t, Column{}, row, err)
				}
				if err := fn(t, buf); err != nil {
					return err
				}
			}
			return rows.Err()
		}()
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// unexportable says which row of t cannot be written and why.
func unexportable(t *Table, c Column, row Row, err error) error {
	what := t.Name
	if c.Name != "" {
		what += "." + c.Name
	}
	return baton.Errorf(baton.ErrInternal, "%s of the row %s cannot be exported: %v", what, keyText(t, row), err).
		WithDetails("table", t.Name, "column", c.Name).
		WithHint("correct that row (the value breaks the column's rule), then export again")
}

// selectAll is the query reading t's exported rows in export order.
func selectAll(t *Table, d sqlcore.Dialect, project string) (string, []any) {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
	}
	b.WriteString(" FROM " + t.Name)
	var args []any
	if project != "" {
		b.WriteString(" WHERE " + t.Scope)
		args = append(args, project)
	}
	b.WriteString(" ORDER BY ")
	for i, o := range t.Order {
		if i > 0 {
			b.WriteString(", ")
		}
		if c := t.Column(o); c != nil && c.Kind == Text {
			b.WriteString(d.ByteOrder(o))
		} else {
			b.WriteString(o)
		}
	}
	return b.String(), args
}

// keyText names a row of t for people: its key's values ("COL-1",
// "COL-1 / needs-review"), or, for a table keyed by its whole row, its
// first columns.
func keyText(t *Table, row Row) string {
	key := t.Key
	if key == nil {
		for _, c := range t.Columns[:min(3, len(t.Columns))] {
			key = append(key, c.Name)
		}
	}
	parts := make([]string, 0, len(key))
	for _, k := range key {
		v := row[t.index(k)]
		switch x := v.(type) {
		case string:
			parts = append(parts, cut(x))
		case nil:
			parts = append(parts, "null")
		default:
			parts = append(parts, fmt.Sprint(x))
		}
	}
	return strings.Join(parts, " / ")
}

// shown is a row as the database returned it, for naming it in an error.
func shown(raw []any) Row {
	row := make(Row, len(raw))
	for i, v := range raw {
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		row[i] = v
	}
	return row
}

var errNoRows = sql.ErrNoRows

// isNoRows reports whether err is database/sql's "no rows".
func isNoRows(err error) bool { return errors.Is(err, errNoRows) }
