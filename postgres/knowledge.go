package postgres

import "strings"

// ChunkMatches matches any of words in document_chunks.fts (baton_english,
// stemmed), ranked by ts_rank with every weight 1, negated so that lower
// is better as with SQLite's bm25. Each word is quoted and holds only
// letters and digits, so it is data to to_tsquery, never syntax; a stop
// word alone matches nothing, as PostgreSQL drops it from the tsquery.
func (dialect) ChunkMatches(words []string) (string, []any) {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `'` + w + `'`
	}
	tsq := strings.Join(q, " | ")
	return `SELECT rid, -ts_rank('{1,1,1,1}', fts, to_tsquery('baton_english', ?))::float8 AS score
		FROM document_chunks WHERE fts @@ to_tsquery('baton_english', ?)`, []any{tsq, tsq}
}
