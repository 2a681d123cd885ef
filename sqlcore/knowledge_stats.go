package sqlcore

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
)

// MarkRefreshed implements baton.KnowledgeTx.
func (t *Tx) MarkRefreshed(ctx context.Context, key baton.DocKey, version, status string, at time.Time) error {
	if err := t.checkKey(ctx, &key); err != nil {
		return err
	}
	rid, _, err := t.docRow(ctx, key, version)
	if err != nil {
		return err
	}
	_, err = t.Q.ExecContext(ctx, `UPDATE documents SET refreshed_at = ?, last_refresh_status = ? WHERE rid = ?`,
		MS(at), status, rid)
	return err
}

// KnowledgeStats implements baton.KnowledgeTx.
func (t *Tx) KnowledgeStats(ctx context.Context, spaces []baton.DocSpace, prefix string, due time.Time) (*baton.KnowledgeStats, error) {
	sc, args, err := spacesCond(spaces)
	if err != nil {
		return nil, err
	}
	pc, pa := prefixCond(prefix)
	where := sc + ` AND ` + pc
	args = append(args, pa...)
	st := &baton.KnowledgeStats{BySourceType: map[string]int{}, ByMimeType: map[string]int{}, LastRefreshStatus: map[string]int{}}
	newest := `d.version_ms = (SELECT MAX(x.version_ms) FROM documents x
		WHERE x.scope = d.scope AND x.project = d.project AND x.path = d.path)`
	if err := t.Q.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(d.size_bytes), 0),
		COUNT(DISTINCT d.scope || '/' || d.project || '/' || d.path) FROM documents d WHERE `+where, args...).
		Scan(&st.TotalVersions, &st.TotalVersionsBytes, &st.DistinctPaths); err != nil {
		return nil, err
	}
	if err := t.Q.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE WHEN d.deleted = 0 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN d.deleted = 1 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN d.deleted = 0 THEN d.size_bytes ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN d.deleted = 0 AND d.refresh_frequency_sec > 0 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN d.deleted = 0 AND d.refresh_frequency_sec > 0
			AND (d.refreshed_at = 0 OR d.refreshed_at + d.refresh_frequency_sec * 1000 < ?) THEN 1 ELSE 0 END), 0)
		FROM documents d WHERE `+where+` AND `+newest, append([]any{MS(due)}, args...)...).
		Scan(&st.CurrentFiles, &st.TombstonedPaths, &st.CurrentBytes, &st.RefreshScheduled, &st.RefreshDue); err != nil {
		return nil, err
	}
	for _, g := range []struct {
		col string
		m   map[string]int
	}{{"d.source_type", st.BySourceType}, {"d.content_type", st.ByMimeType}, {"d.last_refresh_status", st.LastRefreshStatus}} {
		rows, err := t.Q.QueryContext(ctx, `SELECT `+g.col+`, COUNT(*) FROM documents d WHERE `+where+` AND `+currentCond+`
			AND `+g.col+` <> '' GROUP BY `+g.col, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return nil, err
			}
			g.m[k] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if err := t.Q.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN `+currentCond+` THEN 1 ELSE 0 END), 0)
		FROM document_chunks c JOIN documents d ON d.rid = c.doc_rid WHERE `+where, args...).
		Scan(&st.TotalChunks, &st.CurrentChunks); err != nil {
		return nil, err
	}
	return st, nil
}

// StaleVersions implements baton.KnowledgeTx.
func (t *Tx) StaleVersions(ctx context.Context, model string, limit int) ([]baton.StaleVersion, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT d.scope, d.project, d.path, d.version_ms FROM documents d
		WHERE `+currentCond+` AND d.content <> '' AND (
			NOT EXISTS (SELECT 1 FROM document_chunks c WHERE c.doc_rid = d.rid)
			OR EXISTS (SELECT 1 FROM document_chunks c WHERE c.doc_rid = d.rid AND NOT EXISTS
				(SELECT 1 FROM chunk_vectors v WHERE v.chunk_rid = c.rid AND v.model = ?)))
		ORDER BY d.rid LIMIT `+t.D.LimitArg(), model, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []baton.StaleVersion{}
	for rows.Next() {
		var s baton.StaleVersion
		var ms int64
		if err := rows.Scan(&s.Key.Scope, &s.Key.Project, &s.Key.Path, &ms); err != nil {
			return nil, err
		}
		s.Version = versionID(ms)
		out = append(out, s)
	}
	return out, rows.Err()
}

// ChunksByID implements baton.KnowledgeTx.
func (t *Tx) ChunksByID(ctx context.Context, ids []int64) ([]*baton.Chunk, error) {
	if len(ids) > baton.MaxChunkSearchLimit {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%d chunk ids asked for, over the limit of %d", len(ids), baton.MaxChunkSearchLimit).
			WithHint("ask in smaller batches")
	}
	out := []*baton.Chunk{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT `+chunkColumns+`, d.source_path, d.content_type FROM document_chunks c
		JOIN documents d ON d.rid = c.doc_rid WHERE c.rid IN (`+Placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var source, mime string
		c, err := scanChunk(rows, &source, &mime)
		if err != nil {
			return nil, err
		}
		c.SourcePath, c.ContentType = source, mime
		out = append(out, c)
	}
	return out, rows.Err()
}

// DropVectors implements baton.KnowledgeTx.
func (t *Tx) DropVectors(ctx context.Context, key baton.DocKey) (int, error) {
	if err := t.checkKey(ctx, &key); err != nil {
		return 0, err
	}
	if err := t.bumpKnowledge(ctx); err != nil {
		return 0, err
	}
	res, err := t.Q.ExecContext(ctx, `DELETE FROM chunk_vectors WHERE chunk_rid IN (SELECT c.rid FROM document_chunks c
		JOIN documents d ON d.rid = c.doc_rid WHERE d.scope = ? AND d.project = ? AND d.path = ?)`, key.Scope, key.Project, key.Path)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
