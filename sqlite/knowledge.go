package sqlite

import "strings"

// ChunkMatches matches any of words in document_chunks_fts, ranked by
// bm25 (negative, lower is better). Each word is quoted and holds only
// letters and digits, so it is data to FTS5, never syntax.
func (dialect) ChunkMatches(words []string) (string, []any) {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"`
	}
	return `SELECT rowid AS rid, bm25(document_chunks_fts) AS score FROM document_chunks_fts WHERE document_chunks_fts MATCH ?`,
		[]any{strings.Join(q, " OR ")}
}
