package sqlcore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// The knowledge store (membot-operations.md §3): documents are rows per
// version, keyed by (scope, project, path, version_ms); the current
// version of a path is its newest row unless that row is a tombstone.
// Chunks hang off a version row, vectors off a chunk. Version ids are the
// version_ms instants formatted with baton.VersionLayout.

// EncodeVector stores v as little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector reads a vector stored by EncodeVector.
func DecodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// SearchWords cuts text into the distinct lower-case words (runs of
// letters and digits) a chunk search matches, at most
// baton.MaxChunkSearchWords of them, in order of first appearance.
func SearchWords(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if !seen[w] && len(out) < baton.MaxChunkSearchWords {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// versionID formats a version instant.
func versionID(ms int64) string { return FromMS(ms).Format(baton.VersionLayout) }

// parseVersion reads a version id; a malformed one is ERR_NOT_FOUND (no
// version can have that name).
func parseVersion(key baton.DocKey, v string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0, versionNotFound(key, v)
	}
	return t.UnixMilli(), nil
}

func versionNotFound(key baton.DocKey, v string) error {
	return baton.Errorf(baton.ErrNotFound, "%s has no version %q", key.Path, v).
		WithDetails("logical_path", key.Path, "version", v).
		WithHint("list the versions of this path to pick an existing version_id")
}

func docNotFound(key baton.DocKey) error {
	return baton.Errorf(baton.ErrNotFound, "no current document at %s", key.Path).
		WithDetails("logical_path", key.Path).
		WithHint("list the documents to find the path, or list its versions if it was deleted")
}

// checkKey validates a key's space (the project must exist) and
// normalises its path.
func (t *Tx) checkKey(ctx context.Context, key *baton.DocKey) error {
	if err := t.checkSpace(ctx, key.DocSpace); err != nil {
		return err
	}
	p, err := baton.NormalizeDocPath(key.Path)
	if err != nil {
		return err
	}
	key.Path = p
	return nil
}

func (t *Tx) checkSpace(ctx context.Context, s baton.DocSpace) error {
	if err := baton.CheckDocSpace(s); err != nil {
		return err
	}
	if s.Scope == baton.ScopeProject {
		if _, err := t.Self.Project(ctx, s.Project); err != nil {
			return err
		}
	}
	return nil
}

// spacesCond is the SQL condition that d is in one of spaces.
func spacesCond(spaces []baton.DocSpace) (string, []any, error) {
	if len(spaces) == 0 {
		return "", nil, baton.Errorf(baton.ErrInvalidInput, "no knowledge space to search").
			WithHint("name the project and/or global scope")
	}
	var conds []string
	var args []any
	for _, s := range spaces {
		if err := baton.CheckDocSpace(s); err != nil {
			return "", nil, err
		}
		conds = append(conds, `(d.scope = ? AND d.project = ?)`)
		args = append(args, s.Scope, s.Project)
	}
	return `(` + strings.Join(conds, ` OR `) + `)`, args, nil
}

// prefixCond is the condition that d.path starts with prefix (a raw
// string prefix; none when empty).
func prefixCond(prefix string) (string, []any) {
	if prefix == "" {
		return `1 = 1`, nil
	}
	return `substr(d.path, 1, ?) = ?`, []any{utf8.RuneCountInString(prefix), prefix}
}

// currentCond is the condition that row d is the current version of its
// path: its newest row, and not a tombstone.
const currentCond = `d.deleted = 0 AND d.version_ms = (SELECT MAX(x.version_ms) FROM documents x
	WHERE x.scope = d.scope AND x.project = d.project AND x.path = d.path)`

// docColumns reads a document row d; content is the expression for its
// content (” when lists leave it out).
func docColumns(content string) string {
	return `d.rid, d.scope, d.project, d.path, d.version_ms, d.deleted, ` + content + `, d.content_type, d.size_bytes,
	d.sha256, d.source_path, d.source_sha256, d.change_note, d.created_by, d.created_at,
	d.source_type, d.description, d.refresh_frequency_sec, d.refreshed_at, d.last_refresh_status,
	(SELECT o.created_by FROM documents o WHERE o.scope = d.scope AND o.project = d.project AND o.path = d.path ORDER BY o.version_ms LIMIT 1),
	(SELECT o.created_at FROM documents o WHERE o.scope = d.scope AND o.project = d.project AND o.path = d.path ORDER BY o.version_ms LIMIT 1)`
}

type scanner interface{ Scan(dest ...any) error }

func scanDoc(r scanner) (int64, *baton.Document, error) {
	var (
		d             baton.Document
		rid, ms, ca   int64
		firstAt       int64
		refreshedAt   int64
		deleted       int
		firstBy       string
		updatedByCopy string
	)
	if err := r.Scan(&rid, &d.Scope, &d.Project, &d.Path, &ms, &deleted, &d.Content, &d.ContentType, &d.Size,
		&d.SHA256, &d.SourcePath, &d.SourceSHA256, &d.ChangeNote, &updatedByCopy, &ca, &d.SourceType, &d.Description, &d.RefreshFrequencySec,
		&refreshedAt, &d.LastRefreshStatus, &firstBy, &firstAt); err != nil {
		return 0, nil, err
	}
	d.Version = versionID(ms)
	d.Deleted = deleted != 0
	d.UpdatedBy, d.UpdatedAt = updatedByCopy, FromMS(ca)
	d.CreatedBy, d.CreatedAt = firstBy, FromMS(firstAt)
	if refreshedAt != 0 {
		d.RefreshedAt = FromMS(refreshedAt)
	}
	return rid, &d, nil
}

// docRow finds the row of key's current version (version "") or of the
// named version.
func (t *Tx) docRow(ctx context.Context, key baton.DocKey, version string) (int64, *baton.Document, error) {
	q := `SELECT ` + docColumns(`d.content`) + ` FROM documents d WHERE d.scope = ? AND d.project = ? AND d.path = ? AND `
	args := []any{key.Scope, key.Project, key.Path}
	if version == "" {
		q += currentCond
	} else {
		ms, err := parseVersion(key, version)
		if err != nil {
			return 0, nil, err
		}
		q += `d.version_ms = ?`
		args = append(args, ms)
	}
	rid, d, err := scanDoc(t.Q.QueryRowContext(ctx, q, args...))
	if errors.Is(err, sql.ErrNoRows) {
		if version == "" {
			return 0, nil, docNotFound(key)
		}
		return 0, nil, versionNotFound(key, version)
	}
	return rid, d, err
}

// insertVersion appends d as the newest version of its path, at now or
// 1 ms after the path's newest row, whichever is later.
func (t *Tx) insertVersion(ctx context.Context, d *baton.Document) (int64, error) {
	now := t.Now()
	ms := MS(now)
	var last sql.NullInt64
	if err := t.Q.QueryRowContext(ctx, `SELECT MAX(version_ms) FROM documents WHERE scope = ? AND project = ? AND path = ?`,
		d.Scope, d.Project, d.Path).Scan(&last); err != nil {
		return 0, err
	}
	if last.Valid && last.Int64 >= ms {
		ms = last.Int64 + 1
	}
	if err := t.bumpKnowledge(ctx); err != nil {
		return 0, err
	}
	sum := sha256.Sum256([]byte(d.Content))
	d.SHA256 = hex.EncodeToString(sum[:])
	d.Size = int64(len(d.Content))
	if d.SourceSHA256 == "" && d.SourcePath == "" && !d.Deleted {
		d.SourceSHA256 = d.SHA256
	}
	d.Version = versionID(ms)
	d.UpdatedAt = FromMS(MS(now))
	deleted := 0
	if d.Deleted {
		deleted = 1
	}
	if d.SourceType == "" || d.Deleted {
		d.SourceType = baton.SourceInline
	}
	var refreshed int64
	if !d.RefreshedAt.IsZero() {
		refreshed = MS(d.RefreshedAt)
	}
	var rid int64
	err := t.Q.QueryRowContext(ctx, `INSERT INTO documents (scope, project, path, version_ms, deleted, content, content_type,
		size_bytes, sha256, source_path, source_sha256, change_note, created_by, created_at,
		source_type, description, refresh_frequency_sec, refreshed_at, last_refresh_status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING rid`,
		d.Scope, d.Project, d.Path, ms, deleted, d.Content, d.ContentType, d.Size, d.SHA256, d.SourcePath,
		d.SourceSHA256, d.ChangeNote, d.UpdatedBy, MS(d.UpdatedAt),
		d.SourceType, d.Description, d.RefreshFrequencySec, refreshed, d.LastRefreshStatus).Scan(&rid)
	if err != nil {
		return 0, err
	}
	var firstBy string
	var firstAt int64
	if err := t.Q.QueryRowContext(ctx, `SELECT created_by, created_at FROM documents WHERE scope = ? AND project = ? AND path = ?
		ORDER BY version_ms LIMIT 1`, d.Scope, d.Project, d.Path).Scan(&firstBy, &firstAt); err != nil {
		return 0, err
	}
	d.CreatedBy, d.CreatedAt = firstBy, FromMS(firstAt)
	return rid, nil
}

// PutDocument implements baton.KnowledgeTx.
func (t *Tx) PutDocument(ctx context.Context, d *baton.Document) error {
	if err := t.checkKey(ctx, &d.DocKey); err != nil {
		return err
	}
	if len(d.Content) > baton.MaxDocumentBytes {
		return baton.Errorf(baton.ErrInvalidInput, "content is %d bytes, over the limit of %d", len(d.Content), baton.MaxDocumentBytes).
			WithDetails("max_bytes", baton.MaxDocumentBytes).WithHint("split the document into smaller ones")
	}
	if !utf8.ValidString(d.Content) {
		return baton.Errorf(baton.ErrInvalidInput, "content is not valid UTF-8").WithHint("store text documents only")
	}
	if d.UpdatedBy == "" {
		return baton.Errorf(baton.ErrInvalidInput, "a document version needs its writer").WithHint("set UpdatedBy")
	}
	d.Deleted = false
	_, err := t.insertVersion(ctx, d)
	return err
}

// Document implements baton.KnowledgeTx.
func (t *Tx) Document(ctx context.Context, key baton.DocKey, version string) (*baton.Document, error) {
	if err := t.checkKey(ctx, &key); err != nil {
		return nil, err
	}
	_, d, err := t.docRow(ctx, key, version)
	return d, err
}

// ListDocuments implements baton.KnowledgeTx.
func (t *Tx) ListDocuments(ctx context.Context, f baton.DocumentFilter) ([]*baton.Document, error) {
	sc, args, err := spacesCond(f.Spaces)
	if err != nil {
		return nil, err
	}
	pc, pa := prefixCond(f.PathPrefix)
	limit := t.D.NoLimit()
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT `+docColumns(`''`)+` FROM documents d WHERE `+sc+` AND `+pc+` AND `+currentCond+`
		ORDER BY `+t.D.ByteOrder(`d.path`)+`, d.scope, d.project LIMIT `+t.D.LimitArg(), append(append(args, pa...), limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Document{}
	for rows.Next() {
		_, d, err := scanDoc(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// MoveDocument implements baton.KnowledgeTx.
func (t *Tx) MoveDocument(ctx context.Context, from baton.DocKey, toPath, by string) (*baton.Document, error) {
	if err := t.checkKey(ctx, &from); err != nil {
		return nil, err
	}
	to := baton.DocKey{DocSpace: from.DocSpace, Path: toPath}
	if err := t.checkKey(ctx, &to); err != nil {
		return nil, err
	}
	srcRID, d, err := t.docRow(ctx, from, "")
	if err != nil {
		return nil, err
	}
	if _, _, err := t.docRow(ctx, to, ""); err == nil || to.Path == from.Path {
		return nil, baton.Errorf(baton.ErrConflict, "%s already has a current document", to.Path).
			WithDetails("to_logical_path", to.Path).
			WithHint("pick another destination, or remove the document there first")
	} else if !isCode(err, baton.ErrNotFound) {
		return nil, err
	}
	d.DocKey = to
	d.ChangeNote = "move from " + from.Path
	d.UpdatedBy = by
	dstRID, err := t.insertVersion(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := t.copyChunks(ctx, srcRID, dstRID); err != nil {
		return nil, err
	}
	if _, err := t.insertVersion(ctx, &baton.Document{DocKey: from, Deleted: true, ContentType: d.ContentType,
		ChangeNote: "moved to " + to.Path, UpdatedBy: by}); err != nil {
		return nil, err
	}
	return d, nil
}

// copyChunks copies the chunks of version row src, with their vectors,
// to version row dst.
func (t *Tx) copyChunks(ctx context.Context, src, dst int64) error {
	rows, err := t.Q.QueryContext(ctx, `SELECT rid, ordinal, body, context, search_text, start_offset, end_offset
		FROM document_chunks WHERE doc_rid = ? ORDER BY ordinal`, src)
	if err != nil {
		return err
	}
	type row struct {
		rid          int64
		ordinal      int
		body, cx, st string
		start, end   int
	}
	var cs []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.rid, &r.ordinal, &r.body, &r.cx, &r.st, &r.start, &r.end); err != nil {
			rows.Close()
			return err
		}
		cs = append(cs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range cs {
		var nrid int64
		if err := t.Q.QueryRowContext(ctx, `INSERT INTO document_chunks (doc_rid, ordinal, body, context, search_text, start_offset, end_offset)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING rid`, dst, c.ordinal, c.body, c.cx, c.st, c.start, c.end).Scan(&nrid); err != nil {
			return err
		}
		if _, err := t.Q.ExecContext(ctx, `INSERT INTO chunk_vectors (chunk_rid, model, dims, vec)
			SELECT ?, model, dims, vec FROM chunk_vectors WHERE chunk_rid = ?`, nrid, c.rid); err != nil {
			return err
		}
	}
	return nil
}

func isCode(err error, code string) bool {
	var e *baton.Error
	return errors.As(err, &e) && e.Code == code
}

// DeleteDocument implements baton.KnowledgeTx.
func (t *Tx) DeleteDocument(ctx context.Context, key baton.DocKey, note, by string) (*baton.DocumentVersion, error) {
	if err := t.checkKey(ctx, &key); err != nil {
		return nil, err
	}
	_, cur, err := t.docRow(ctx, key, "")
	if err != nil {
		return nil, err
	}
	if note == "" {
		note = "deleted"
	}
	d := &baton.Document{DocKey: key, Deleted: true, ContentType: cur.ContentType, ChangeNote: note, UpdatedBy: by}
	if _, err := t.insertVersion(ctx, d); err != nil {
		return nil, err
	}
	return &baton.DocumentVersion{Version: d.Version, Deleted: true, ContentType: d.ContentType, SHA256: d.SHA256,
		ChangeNote: note, CreatedBy: by, CreatedAt: d.UpdatedAt}, nil
}

// DocumentVersions implements baton.KnowledgeTx.
func (t *Tx) DocumentVersions(ctx context.Context, key baton.DocKey) ([]*baton.DocumentVersion, error) {
	if err := t.checkKey(ctx, &key); err != nil {
		return nil, err
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT version_ms, deleted, content_type, size_bytes, sha256, source_path, source_sha256,
		change_note, last_refresh_status, created_by, created_at FROM documents WHERE scope = ? AND project = ? AND path = ? ORDER BY version_ms DESC`,
		key.Scope, key.Project, key.Path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.DocumentVersion{}
	for rows.Next() {
		var v baton.DocumentVersion
		var ms, ca int64
		var deleted int
		if err := rows.Scan(&ms, &deleted, &v.ContentType, &v.Size, &v.SHA256, &v.SourcePath, &v.SourceSHA256,
			&v.ChangeNote, &v.LastRefreshStatus, &v.CreatedBy, &ca); err != nil {
			return nil, err
		}
		v.Version, v.Deleted, v.CreatedAt = versionID(ms), deleted != 0, FromMS(ca)
		out = append(out, &v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, baton.Errorf(baton.ErrNotFound, "no versions of %s", key.Path).
			WithDetails("logical_path", key.Path).WithHint("list the documents to find the path")
	}
	return out, nil
}

// PruneDocuments implements baton.KnowledgeTx.
func (t *Tx) PruneDocuments(ctx context.Context, spaces []baton.DocSpace, before time.Time, dryRun bool) (baton.PruneResult, error) {
	var res baton.PruneResult
	sc, args, err := spacesCond(spaces)
	if err != nil {
		return res, err
	}
	// Older than the cutoff and not the newest row of its path.
	cond := sc + ` AND d.version_ms < ? AND d.version_ms < (SELECT MAX(x.version_ms) FROM documents x
		WHERE x.scope = d.scope AND x.project = d.project AND x.path = d.path)`
	args = append(args, MS(before))
	if err := t.Q.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(d.size_bytes), 0),
		COALESCE(SUM((SELECT COUNT(*) FROM document_chunks c WHERE c.doc_rid = d.rid)), 0)
		FROM documents d WHERE `+cond, args...).Scan(&res.RemovedVersions, &res.ReclaimedBytes, &res.RemovedChunks); err != nil {
		return res, err
	}
	if dryRun || res.RemovedVersions == 0 {
		return res, nil
	}
	if err := t.bumpKnowledge(ctx); err != nil {
		return res, err
	}
	victims := `SELECT d.rid FROM documents d WHERE ` + cond
	// Children first: the stores need not cascade.
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM chunk_vectors WHERE chunk_rid IN
		(SELECT rid FROM document_chunks WHERE doc_rid IN (`+victims+`))`, args...); err != nil {
		return res, err
	}
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM document_chunks WHERE doc_rid IN (`+victims+`)`, args...); err != nil {
		return res, err
	}
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM documents WHERE rid IN (`+victims+`)`, args...); err != nil {
		return res, err
	}
	return res, nil
}

// ReplaceChunks implements baton.KnowledgeTx.
func (t *Tx) ReplaceChunks(ctx context.Context, key baton.DocKey, version string, chunks []*baton.Chunk) error {
	if err := t.checkKey(ctx, &key); err != nil {
		return err
	}
	rid, d, err := t.docRow(ctx, key, version)
	if err != nil {
		return err
	}
	if d.Deleted {
		return baton.Errorf(baton.ErrInvalidInput, "version %s of %s is a deletion and has no chunks", d.Version, key.Path).
			WithHint("chunk a version that holds content")
	}
	for i, c := range chunks {
		if c.Ordinal != i {
			return baton.Errorf(baton.ErrInvalidInput, "chunk %d has ordinal %d; ordinals must be 0, 1, 2...", i, c.Ordinal).
				WithHint("number the chunks from 0 in order")
		}
		if c.Start < 0 || c.End < c.Start || c.End > len(d.Content) {
			return baton.Errorf(baton.ErrInvalidInput, "chunk %d spans %d..%d, outside the content's %d bytes", i, c.Start, c.End, len(d.Content)).
				WithHint("give byte offsets into the version's content")
		}
	}
	if err := t.bumpKnowledge(ctx); err != nil {
		return err
	}
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM chunk_vectors WHERE chunk_rid IN (SELECT rid FROM document_chunks WHERE doc_rid = ?)`, rid); err != nil {
		return err
	}
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM document_chunks WHERE doc_rid = ?`, rid); err != nil {
		return err
	}
	for _, c := range chunks {
		st := c.SearchText
		if st == "" {
			st = c.Text
		}
		if err := t.Q.QueryRowContext(ctx, `INSERT INTO document_chunks (doc_rid, ordinal, body, context, search_text, start_offset, end_offset)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING rid`, rid, c.Ordinal, c.Text, c.Context, st, c.Start, c.End).Scan(&c.ID); err != nil {
			return err
		}
		c.Key, c.Version, c.SearchText = key, d.Version, st
	}
	return nil
}

// chunkColumns reads a chunk c of document row d.
const chunkColumns = `c.rid, d.scope, d.project, d.path, d.version_ms, c.ordinal, c.body, c.context, c.search_text, c.start_offset, c.end_offset`

func scanChunk(r scanner, extra ...any) (*baton.Chunk, error) {
	var c baton.Chunk
	var ms int64
	dest := append([]any{&c.ID, &c.Key.Scope, &c.Key.Project, &c.Key.Path, &ms, &c.Ordinal, &c.Text, &c.Context,
		&c.SearchText, &c.Start, &c.End}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	c.Version = versionID(ms)
	return &c, nil
}

// Chunks implements baton.KnowledgeTx.
func (t *Tx) Chunks(ctx context.Context, key baton.DocKey, version string) ([]*baton.Chunk, error) {
	if err := t.checkKey(ctx, &key); err != nil {
		return nil, err
	}
	rid, _, err := t.docRow(ctx, key, version)
	if err != nil {
		return nil, err
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT `+chunkColumns+` FROM document_chunks c JOIN documents d ON d.rid = c.doc_rid
		WHERE c.doc_rid = ? ORDER BY c.ordinal`, rid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Chunk{}
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// PutVectors implements baton.KnowledgeTx.
func (t *Tx) PutVectors(ctx context.Context, vs []baton.ChunkVector) error {
	if len(vs) > 0 {
		if err := t.bumpKnowledge(ctx); err != nil {
			return err
		}
	}
	for _, v := range vs {
		if v.Model == "" || len(v.Vector) == 0 || len(v.Vector) > baton.MaxVectorDims {
			return baton.Errorf(baton.ErrInvalidInput, "a vector needs a model and 1..%d dimensions (got %q, %d)",
				baton.MaxVectorDims, v.Model, len(v.Vector)).WithHint("store the embedder's model id with its output")
		}
		for _, x := range v.Vector {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return baton.Errorf(baton.ErrInvalidInput, "the vector of chunk %d holds NaN or infinity", v.ChunkID).
					WithHint("check the embedder: its output must be finite numbers")
			}
		}
		var ok bool
		if err := t.Q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM document_chunks WHERE rid = ?)`, v.ChunkID).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return baton.Errorf(baton.ErrNotFound, "no chunk %d", v.ChunkID).WithHint("store the chunks before their vectors")
		}
		if _, err := t.Q.ExecContext(ctx, `DELETE FROM chunk_vectors WHERE chunk_rid = ? AND model = ?`, v.ChunkID, v.Model); err != nil {
			return err
		}
		if _, err := t.Q.ExecContext(ctx, `INSERT INTO chunk_vectors (chunk_rid, model, dims, vec) VALUES (?, ?, ?, ?)`,
			v.ChunkID, v.Model, len(v.Vector), EncodeVector(v.Vector)); err != nil {
			return err
		}
	}
	return nil
}

// ChunkVectors implements baton.KnowledgeTx.
func (t *Tx) ChunkVectors(ctx context.Context, f baton.VectorFilter) ([]baton.ChunkVector, error) {
	sc, args, err := spacesCond(f.Spaces)
	if err != nil {
		return nil, err
	}
	pc, pa := prefixCond(f.PathPrefix)
	cond := sc + ` AND ` + pc + ` AND v.model = ?`
	args = append(append(args, pa...), f.Model)
	if !f.IncludeHistory {
		cond += ` AND ` + currentCond
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT v.chunk_rid, v.model, v.vec, d.scope, d.project, d.path, d.version_ms, c.ordinal
		FROM chunk_vectors v JOIN document_chunks c ON c.rid = v.chunk_rid JOIN documents d ON d.rid = c.doc_rid
		WHERE `+cond+` ORDER BY v.chunk_rid`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []baton.ChunkVector{}
	for rows.Next() {
		var v baton.ChunkVector
		var blob []byte
		var ms int64
		if err := rows.Scan(&v.ChunkID, &v.Model, &blob, &v.Key.Scope, &v.Key.Project, &v.Key.Path, &ms, &v.Ordinal); err != nil {
			return nil, err
		}
		v.Vector, v.Version = DecodeVector(blob), versionID(ms)
		out = append(out, v)
	}
	return out, rows.Err()
}

// SearchChunks implements baton.KnowledgeTx. A read-only transaction
// ranks from the cache's keyword index (BM25 over Go-stemmed terms,
// keywordindex.go); a write transaction, or a snapshot older than the
// index, asks the database's full-text search (Dialect.ChunkMatches),
// whose tokenizer and scores differ slightly.
func (t *Tx) SearchChunks(ctx context.Context, q baton.ChunkQuery) ([]baton.ChunkHit, error) {
	sc, args, err := spacesCond(q.Spaces)
	if err != nil {
		return nil, err
	}
	words := SearchWords(q.Text)
	if len(words) == 0 {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the query holds no word to search for").
			WithDetails("field", "query").WithHint("give at least one word of letters or digits")
	}
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = 50
	case limit > baton.MaxChunkSearchLimit:
		limit = baton.MaxChunkSearchLimit
	}
	if hits, ok, err := t.searchKeywords(ctx, SearchTerms(words), q.Spaces, q.PathPrefix, limit); err != nil {
		return nil, err
	} else if ok {
		out, ok, err := t.chunkHits(ctx, hits)
		if err != nil || ok {
			return out, err
		}
		t.Vectors.dropKeywords() // the index lost step with the database: search it instead
	}
	m, margs := t.D.ChunkMatches(words)
	pc, pa := prefixCond(q.PathPrefix)
	all := append(append(append(margs, args...), pa...), limit)
	rows, err := t.Q.QueryContext(ctx, `SELECT `+chunkColumns+`, m.score FROM (`+m+`) m
		JOIN document_chunks c ON c.rid = m.rid JOIN documents d ON d.rid = c.doc_rid
		WHERE `+sc+` AND `+pc+` AND `+currentCond+` ORDER BY m.score, c.rid LIMIT `+t.D.LimitArg(), all...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []baton.ChunkHit{}
	for rows.Next() {
		var h baton.ChunkHit
		c, err := scanChunk(rows, &h.Score)
		if err != nil {
			return nil, err
		}
		h.Chunk = *c
		out = append(out, h)
	}
	return out, rows.Err()
}

// chunkHits reads the chunks of the keyword index's hits, in their order;
// ok is false when one is missing (the index does not match the snapshot).
func (t *Tx) chunkHits(ctx context.Context, hits []kwHit) ([]baton.ChunkHit, bool, error) {
	out := make([]baton.ChunkHit, len(hits))
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		at[h.rid] = i
		out[i].Score = h.score
		out[i].Chunk.Key, out[i].Chunk.Version = h.key, h.version
	}
	found := 0
	for start := 0; start < len(hits); start += 500 {
		part := hits[start:min(len(hits), start+500)]
		ids := make([]any, len(part))
		for i, h := range part {
			ids[i] = h.rid
		}
		rows, err := t.Q.QueryContext(ctx, `SELECT rid, ordinal, body, context, search_text, start_offset, end_offset
			FROM document_chunks WHERE rid IN (`+Placeholders(len(ids))+`)`, ids...)
		if err != nil {
			return nil, false, err
		}
		for rows.Next() {
			var rid int64
			var c baton.Chunk
			if err := rows.Scan(&rid, &c.Ordinal, &c.Text, &c.Context, &c.SearchText, &c.Start, &c.End); err != nil {
				rows.Close()
				return nil, false, err
			}
			if i, ok := at[rid]; ok {
				c.ID, c.Key, c.Version = rid, out[i].Chunk.Key, out[i].Chunk.Version
				out[i].Chunk = c
				found++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, false, err
		}
	}
	return out, found == len(hits), nil
}
