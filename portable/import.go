package portable

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
	"github.com/baton-dev/baton/tlog"
)

// ImportOptions tune Import.
type ImportOptions struct {
	// DryRun runs the whole import in its transaction, then rolls it back:
	// the report says what would be added, skipped and in conflict.
	DryRun bool
	// MaxBytes bounds the file (<= 0: DefaultMaxBytes).
	MaxBytes int64
	// Progress, if set, hears how many of the total records are done.
	Progress func(done, total int64)
}

// Backend is what Import needs of a store.
type Backend struct {
	// Update runs fn in one write transaction, rolled back when fn fails.
	// fn may run more than once (a store retrying a busy database).
	Update func(ctx context.Context, fn func(q sqlcore.Querier, d sqlcore.Dialect) error) error
	// Inserted, if set, runs after each row is inserted, for what the
	// store keeps beside its rows that no trigger writes.
	Inserted func(ctx context.Context, q sqlcore.Querier, t *Table, row Row) error
	// Finish, if set, runs last in the transaction of an import that
	// writes (not on a dry run): identity sequences past the rows.
	Finish func(ctx context.Context, q sqlcore.Querier) error
}

// Report is what an import did, or on a dry run would do.
type Report struct {
	Format      string       `json:"format"`
	Project     string       `json:"project"` // the exported project; "" for a whole server
	GeneratedAt string       `json:"generated_at"`
	MerkleRoot  string       `json:"merkle_root"`
	Records     int64        `json:"records"`
	DryRun      bool         `json:"dry_run"`
	Imported    bool         `json:"imported"` // committed: false on a dry run and on conflicts
	Added       int64        `json:"added"`
	Skipped     int64        `json:"skipped"` // already there, identical
	Types       []TypeReport `json:"types"`
	Conflicts   []Conflict   `json:"conflicts"`
}

// TypeReport is the outcome for one record type.
type TypeReport struct {
	Type      string `json:"type"`
	Records   int64  `json:"records"`
	Added     int64  `json:"added"`
	Skipped   int64  `json:"skipped"`
	Conflicts int64  `json:"conflicts"`
}

// Conflict is a record the database already holds otherwise: its key is
// there with other values, or a value the table keeps unique belongs to
// another row. Nothing is overwritten: an import with a conflict writes
// nothing.
type Conflict struct {
	Line    int64          `json:"line"`
	Type    string         `json:"type"`
	Key     map[string]any `json:"key"`     // the record's key columns and values
	Columns []string       `json:"columns"` // the columns that differ, or the unique columns taken
	Reason  string         `json:"reason"`
	keyText string
}

// KeyText is the record's key for people: "COL-1", "COL-1 / needs-review".
func (c Conflict) KeyText() string { return c.keyText }

var (
	errDryRun    = errors.New("dry run")
	errConflicts = errors.New("conflicts")
)

// Import checks the export file r holds (header, Merkle root, every line)
// before anything is written, then writes its records in one transaction
// of b: a record whose key is there with the same values is skipped, one
// whose key is there with other values is a conflict, and any conflict
// leaves the database as it was (the report lists them all, with an
// ERR_CONFLICT error). Rows keep their ids; row numbers are new.
func Import(ctx context.Context, r io.ReadSeeker, opts ImportOptions, b Backend) (*Report, error) {
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	h, err := check(ctx, r, limit)
	if err != nil {
		return nil, err
	}
	var rep *Report
	err = b.Update(ctx, func(q sqlcore.Querier, d sqlcore.Dialect) error {
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return err
		}
		rep = newReport(h, opts.DryRun)
		a := &applier{ctx: ctx, q: q, d: d, b: b, rep: rep, h: h, progress: opts.Progress}
		if err := a.run(r, limit); err != nil {
			return err
		}
		if len(rep.Conflicts) > 0 {
			return errConflicts
		}
		if opts.DryRun {
			return errDryRun
		}
		if b.Finish != nil {
			return b.Finish(ctx, q)
		}
		return nil
	})
	switch {
	case err == nil:
		rep.Imported = true
		return rep, nil
	case errors.Is(err, errDryRun):
		return rep, nil
	case errors.Is(err, errConflicts):
		first := rep.Conflicts[0]
		return rep, baton.Errorf(baton.ErrConflict, "%d records conflict with what the database holds (the first: line %d, %s %s): nothing was imported",
			len(rep.Conflicts), first.Line, first.Type, first.keyText).
			WithDetails("conflicts", len(rep.Conflicts), "first_line", first.Line).
			WithHint("an import never overwrites: a record whose key the database holds with other values is a conflict. " +
				"Import into an empty database (not one made by baton init), or change or remove those rows first")
	}
	return nil, err
}

// Check reads the whole export file r holds as Import does before it
// writes anything, and returns its header: a caller can refuse a bad
// file before it even opens (or creates) the database.
func Check(ctx context.Context, r io.Reader, opts ImportOptions) (*Header, error) {
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	return check(ctx, r, limit)
}

func newReport(h *Header, dry bool) *Report {
	rep := &Report{Format: h.Format, Project: h.Project, GeneratedAt: baton.Timestamp(h.GeneratedAt), MerkleRoot: h.MerkleRoot,
		Records: h.Records, DryRun: dry, Types: []TypeReport{}, Conflicts: []Conflict{}}
	for _, c := range h.Counts {
		if c.N > 0 {
			rep.Types = append(rep.Types, TypeReport{Type: c.Type, Records: c.N})
		}
	}
	return rep
}

// lineReader reads the lines of a file within its limits.
type lineReader struct {
	r     *bufio.Reader
	n     int64 // lines read
	size  int64 // bytes read
	limit int64
	buf   []byte
}

func newLineReader(r io.Reader, limit int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<20), limit: limit}
}

// next returns the next line without its newline (valid until the next
// call), at most max bytes; io.EOF after the last.
func (l *lineReader) next(max int) ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.size += int64(len(chunk))
		if l.size > l.limit {
			return nil, baton.Errorf(baton.ErrInvalidInput, "the file is larger than the limit of %d bytes (at line %d)", l.limit, l.n+1).
				WithDetails("limit_bytes", l.limit, "line", l.n+1).
				WithHint("if the export really is that large, raise the limit with --max-size")
		}
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		if len(l.buf)+len(body) > max {
			return nil, baton.Errorf(baton.ErrInvalidInput, "line %d is longer than the limit of %d bytes", l.n+1, max).
				WithDetails("line", l.n+1, "limit_bytes", max).
				WithHint("baton export writes no line that long: the file is not an export, or was damaged")
		}
		l.buf = append(l.buf, body...)
		switch {
		case err == nil:
			l.n++
			return l.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(l.buf) == 0 {
				return nil, io.EOF
			}
			l.n++ // a last line without its newline
			return l.buf, nil
		default:
			return nil, err
		}
	}
}

// lineError is a problem with line n of the file.
func lineError(n int64, err error) error {
	return baton.Errorf(baton.ErrInvalidInput, "line %d: %v", n, err).
		WithDetails("line", n).
		WithHint("import reads the files baton export writes, unchanged; export again from the source database")
}

// check reads the whole file once before anything is written: the header,
// each line within the limits, the Merkle root of the record lines
// against the header's (naming the first line that differs), then every
// record's type, columns and values, the order of the types and the
// header's counts.
func check(ctx context.Context, r io.Reader, limit int64) (*Header, error) {
	lr := newLineReader(r, limit)
	head, err := lr.next(MaxHeaderBytes)
	if errors.Is(err, io.EOF) {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the file is empty").WithHint("name the file baton export wrote")
	}
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(head)
	if err != nil {
		return nil, err
	}
	tree := tlog.NewTree()
	var (
		n, firstDiff int64
		shapeErr     error
		last         = -1
		counts       = map[string]int64{}
		cat          = catalogue()
	)
	for {
		line, err := lr.next(MaxLineBytes)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n++
		leaf := tlog.LeafHash(line)
		if err := tree.Append(leaf); err != nil {
			return nil, err
		}
		if firstDiff == 0 && len(h.LineHashes) > 0 {
			i := (n - 1) * lineHashBytes
			if i+lineHashBytes > int64(len(h.LineHashes)) || !bytes.Equal(leaf[:lineHashBytes], h.LineHashes[i:i+lineHashBytes]) {
				firstDiff = n
			}
		}
		if shapeErr == nil {
			t, _, err := parseLine(line)
			switch {
			case err != nil:
				shapeErr = lineError(n+1, err)
			case cat.index[t] < last:
				shapeErr = lineError(n+1, fmt.Errorf("a %s record after %s records: an export holds its records a type at a time, in a fixed order",
					t.Type, cat.tables[last].Type))
			default:
				last = cat.index[t]
				counts[t.Type]++
			}
		}
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	if root := hex.EncodeToString(tree.Root()); root != h.MerkleRoot {
		return nil, tampered(h, n, firstDiff, root)
	}
	if shapeErr != nil {
		return nil, shapeErr
	}
	if n != h.Records {
		return nil, baton.Errorf(baton.ErrInvalidInput, "line 1: the header lists %d records, the file holds %d", h.Records, n).
			WithDetails("line", 1).WithHint("the header was changed after the export: export again from the source database")
	}
	for _, t := range Tables() {
		if want := h.CountOf(t.Type); counts[t.Type] != want {
			return nil, baton.Errorf(baton.ErrInvalidInput, "line 1: the header counts %d %s records, the file holds %d", want, t.Type, counts[t.Type]).
				WithDetails("line", 1, "type", t.Type).WithHint("the header was changed after the export: export again from the source database")
		}
	}
	return h, nil
}

// tampered is the error of a file whose record lines do not give the
// header's Merkle root, naming the first line that differs.
func tampered(h *Header, n, firstDiff int64, root string) error {
	var msg string
	line := firstDiff + 1 // the header is line 1
	switch {
	case firstDiff > h.Records:
		msg = fmt.Sprintf("line %d is past the %d records the export wrote: lines were added", line, h.Records)
	case firstDiff > 0:
		msg = fmt.Sprintf("line %d is not the line the export wrote there: it was changed, or lines were added or removed before it", line)
	case n < h.Records:
		line = n + 2
		msg = fmt.Sprintf("the file ends after %d of the %d records the export wrote: it was cut short at line %d", n, h.Records, line)
	default:
		line = 0
		msg = "the record lines do not give the header's merkle_root: a line was changed, added or removed"
	}
	e := baton.Errorf(baton.ErrInvalidInput, "%s (Merkle root %s, the header says %s); nothing was imported", msg, root, h.MerkleRoot).
		WithDetails("merkle_root", root, "header_merkle_root", h.MerkleRoot).
		WithHint("the file changed after baton export wrote it (an edit, a damaged or cut copy, changed line endings): export again from the source database")
	if line > 0 {
		e = e.WithDetails("line", line)
	}
	return e
}

// applier writes one file's records in one transaction.
type applier struct {
	ctx      context.Context
	q        sqlcore.Querier
	d        sqlcore.Dialect
	b        Backend
	rep      *Report
	h        *Header
	progress func(done, total int64)
	docs     bool // a document version was added
}

// tableState is what the applier keeps while it writes one table.
type tableState struct {
	t        *Table
	tr       *TypeReport
	sel      string   // the row with the record's key
	ins      string   // the insert
	uniq     []string // the key of the row holding each unique set
	deferred int      // the column written after the table's rows, or -1
	pending  []pendingRef
	seen     map[string]int64 // keyed by the whole row: how often each line came
	empty    bool             // the table held no row before this import
}

func (a *applier) run(r io.Reader, limit int64) error {
	lr := newLineReader(r, limit)
	if _, err := lr.next(MaxHeaderBytes); err != nil {
		return err
	}
	tree := tlog.NewTree()
	var st *tableState
	var n int64
	for {
		line, err := lr.next(MaxLineBytes)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n++
		if err := tree.Append(tlog.LeafHash(line)); err != nil {
			return err
		}
		t, row, err := parseLine(line)
		if err != nil {
			return lineError(n+1, fmt.Errorf("%v (the file changed while it was imported)", err))
		}
		if st == nil || st.t != t {
			if err := a.finishTable(st); err != nil {
				return err
			}
			if st, err = a.startTable(t); err != nil {
				return err
			}
		}
		if err := a.record(st, n+1, line, row); err != nil {
			return err
		}
		if n%1000 == 0 {
			if err := a.ctx.Err(); err != nil {
				return err
			}
			if a.progress != nil {
				a.progress(n, a.h.Records)
			}
		}
	}
	if err := a.finishTable(st); err != nil {
		return err
	}
	if root := hex.EncodeToString(tree.Root()); root != a.h.MerkleRoot || n != a.h.Records {
		return baton.Errorf(baton.ErrInvalidInput, "the file changed while it was imported (its Merkle root is now %s): nothing was imported", root).
			WithHint("leave the file alone during the import and run it again")
	}
	if a.docs {
		// Search caches reload when the knowledge generation moves on.
		if _, err := a.q.ExecContext(a.ctx, `INSERT INTO knowledge_state (id, gen) VALUES (1, 1)
			ON CONFLICT (id) DO UPDATE SET gen = knowledge_state.gen + 1`); err != nil {
			return err
		}
	}
	if a.progress != nil {
		a.progress(n, a.h.Records)
	}
	return nil
}

func (a *applier) startTable(t *Table) (*tableState, error) {
	st := &tableState{t: t, deferred: -1, seen: map[string]int64{}}
	// A table empty before its first record (an import into a new
	// database) holds nothing to compare with: its records go straight in.
	var one int
	err := a.q.QueryRowContext(a.ctx, `SELECT 1 FROM `+t.Name+` LIMIT 1`).Scan(&one)
	switch {
	case isNoRows(err):
		st.empty = true
	case err != nil:
		return nil, err
	}
	for i := range a.rep.Types {
		if a.rep.Types[i].Type == t.Type {
			st.tr = &a.rep.Types[i]
		}
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	st.ins = `INSERT INTO ` + t.Name + ` (` + strings.Join(names, ", ") + `) VALUES (` + sqlcore.Placeholders(len(names)) + `)`
	if t.Key != nil {
		st.sel = `SELECT ` + strings.Join(names, ", ") + ` FROM ` + t.Name + ` WHERE ` + equal(t.Key)
		for _, u := range t.Unique {
			st.uniq = append(st.uniq, `SELECT `+strings.Join(t.Key, ", ")+` FROM `+t.Name+` WHERE `+equal(u))
		}
	}
	if t.Deferred != "" {
		st.deferred = t.index(t.Deferred)
	}
	return st, nil
}

// equal is "a = ? AND b = ?" for columns.
func equal(columns []string) string {
	conds := make([]string, len(columns))
	for i, c := range columns {
		conds[i] = c + ` = ?`
	}
	return sqlcore.JoinAnd(conds)
}

// values are row's values of columns.
func values(t *Table, row Row, columns []string) []any {
	out := make([]any, len(columns))
	for i, c := range columns {
		out[i] = row[t.index(c)]
	}
	return out
}

// record writes one record (line n) unless the database holds it already.
func (a *applier) record(st *tableState, n int64, line []byte, row Row) error {
	t := st.t
	if st.empty {
		// Only this import's rows are there: a key met twice is a
		// damaged file, which the insert refuses.
		return a.insert(st, n, row)
	}
	if t.Key == nil {
		// Keyed by the whole row: the k-th identical line is there when the
		// database holds k identical rows (including the ones written now).
		st.seen[string(line)]++
		have, err := a.countSame(t, row)
		if err != nil {
			return a.refused(n, t, row, err)
		}
		if have >= st.seen[string(line)] {
			a.skipped(st)
			return nil
		}
		return a.insert(st, n, row)
	}
	raw := make([]any, len(t.Columns))
	ptrs := make([]any, len(raw))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	err := a.q.QueryRowContext(a.ctx, st.sel, values(t, row, t.Key)...).Scan(ptrs...)
	if err == nil {
		var differ []string
		for i, c := range t.Columns {
			have, err := normalize(c, raw[i])
			if err != nil {
				return a.refused(n, t, row, fmt.Errorf("the database's row: column %s: %w", c.Name, err))
			}
			x, _ := appendValue(nil, c, have)
			y, _ := appendValue(nil, c, row[i])
			if !bytes.Equal(x, y) {
				differ = append(differ, c.Name)
			}
		}
		if len(differ) == 0 {
			a.skipped(st)
			return nil
		}
		a.conflict(st, Conflict{Line: n, Type: t.Type, Key: keyMap(t, row), Columns: differ, keyText: keyText(t, row),
			Reason: "the database holds this " + t.Type + " with other values in " + strings.Join(differ, ", ")})
		return nil
	}
	if !isNoRows(err) {
		return a.refused(n, t, row, err)
	}
	for i, u := range t.Unique {
		other := make(Row, len(t.Columns))
		keyPtrs := make([]any, len(t.Key))
		keyRaw := make([]any, len(t.Key))
		for j := range keyPtrs {
			keyPtrs[j] = &keyRaw[j]
		}
		err := a.q.QueryRowContext(a.ctx, st.uniq[i], values(t, row, u)...).Scan(keyPtrs...)
		if isNoRows(err) {
			continue
		}
		if err != nil {
			return a.refused(n, t, row, err)
		}
		for j, k := range t.Key {
			other[t.index(k)], _ = normalize(*t.Column(k), keyRaw[j])
		}
		a.conflict(st, Conflict{Line: n, Type: t.Type, Key: keyMap(t, row), Columns: u, keyText: keyText(t, row),
			Reason: fmt.Sprintf("the database's %s %s already has this %s", t.Type, keyText(t, other), strings.Join(u, " and "))})
		return nil
	}
	return a.insert(st, n, row)
}

func (a *applier) skipped(st *tableState) {
	a.rep.Skipped++
	st.tr.Skipped++
}

func (a *applier) conflict(st *tableState, c Conflict) {
	a.rep.Conflicts = append(a.rep.Conflicts, c)
	st.tr.Conflicts++
}

// insert adds row, its deferred column (if any) left NULL until the
// table's rows are all in. Once a record is in conflict, rows that refer
// to it may be refused: each goes in under a savepoint (Dialect.Attempt),
// and a refusal is reported beside the conflicts instead of ending the
// import, so the report lists everything that stands in the way.
func (a *applier) insert(st *tableState, n int64, row Row) error {
	t := st.t
	args := make([]any, len(row))
	copy(args, row)
	deferred := st.deferred >= 0 && row[st.deferred] != nil
	if deferred {
		args[st.deferred] = nil
	}
	write := func() error {
		if _, err := a.q.ExecContext(a.ctx, st.ins, args...); err != nil {
			return err
		}
		if a.b.Inserted != nil {
			return a.b.Inserted(a.ctx, a.q, t, row)
		}
		return nil
	}
	if len(a.rep.Conflicts) > 0 {
		if err := a.d.Attempt(a.ctx, write); err != nil {
			if cerr := a.ctx.Err(); cerr != nil {
				return cerr
			}
			a.conflict(st, Conflict{Line: n, Type: t.Type, Key: keyMap(t, row), Columns: []string{}, keyText: keyText(t, row),
				Reason: "the database refused it, most likely as it refers to a record in conflict above: " + err.Error()})
			return nil
		}
	} else if err := write(); err != nil {
		return a.refused(n, t, row, err)
	}
	if deferred {
		st.pending = append(st.pending, pendingRef{line: n, row: append(Row(nil), row...)})
	}
	if t.Name == "documents" {
		a.docs = true
	}
	a.rep.Added++
	st.tr.Added++
	return nil
}

// pendingRef is an inserted row whose deferred column is still to write.
type pendingRef struct {
	line int64
	row  Row
}

// finishTable writes the deferred column of the rows inserted.
func (a *applier) finishTable(st *tableState) error {
	if st == nil || len(st.pending) == 0 {
		return nil
	}
	t := st.t
	col := t.Columns[st.deferred].Name
	for _, p := range st.pending {
		args := append([]any{p.row[st.deferred]}, values(t, p.row, t.Key)...)
		write := func() error {
			_, err := a.q.ExecContext(a.ctx, `UPDATE `+t.Name+` SET `+col+` = ? WHERE `+equal(t.Key), args...)
			return err
		}
		if len(a.rep.Conflicts) > 0 {
			if err := a.d.Attempt(a.ctx, write); err != nil {
				if cerr := a.ctx.Err(); cerr != nil {
					return cerr
				}
				a.conflict(st, Conflict{Line: p.line, Type: t.Type, Key: keyMap(t, p.row), Columns: []string{col}, keyText: keyText(t, p.row),
					Reason: fmt.Sprintf("the database refused its %s, most likely as it refers to a record in conflict above: %v", col, err)})
			}
		} else if err := write(); err != nil {
			return a.refused(p.line, t, p.row, fmt.Errorf("its %s %v: %w", col, p.row[st.deferred], err))
		}
	}
	return nil
}

// countSame counts the rows identical to row.
func (a *applier) countSame(t *Table, row Row) (int64, error) {
	conds := make([]string, 0, len(t.Columns))
	args := make([]any, 0, len(t.Columns))
	for i, c := range t.Columns {
		if row[i] == nil {
			conds = append(conds, c.Name+` IS NULL`)
		} else {
			conds = append(conds, c.Name+` = ?`)
			args = append(args, row[i])
		}
	}
	var n int64
	err := a.q.QueryRowContext(a.ctx, `SELECT COUNT(*) FROM `+t.Name+` WHERE `+sqlcore.JoinAnd(conds), args...).Scan(&n)
	return n, err
}

// refused is a record the database would not take.
func (a *applier) refused(n int64, t *Table, row Row, err error) error {
	if cerr := a.ctx.Err(); cerr != nil {
		return cerr
	}
	return baton.Errorf(baton.ErrInvalidInput, "line %d (%s %s): the database refused the record: %v", n, t.Type, keyText(t, row), err).
		WithDetails("line", n, "type", t.Type).
		WithHint("nothing was imported. A --project export may refer to rows of other projects (a dependency, a parent item, " +
			"a learning's project): import those first, or export the whole server")
}

// keyMap is the record's key columns and values.
func keyMap(t *Table, row Row) map[string]any {
	key := t.Key
	if key == nil {
		key = make([]string, len(t.Columns))
		for i, c := range t.Columns {
			key[i] = c.Name
		}
	}
	m := map[string]any{}
	for _, k := range key {
		m[k] = row[t.index(k)]
	}
	return m
}
