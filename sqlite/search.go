package sqlite

import (
	"github.com/baton-dev/baton/ftsquery"
)

// The full-text searches read their text with ftsquery (one syntax for
// every search tool and both stores) and match it through FTS5. A query
// over one index is one MATCH of the whole rendered query. Where a word may
// match in either of two indexes (stemmed, or as a prefix of the written
// word), each leaf of the query becomes a membership test of its own and
// SQL combines them, since one MATCH cannot reach two tables.

// searchQuery parses text, a search of field; anyWord makes juxtaposed
// words alternatives (search_learnings).
func searchQuery(text, field string, anyWord bool) (*ftsquery.Query, error) {
	return ftsquery.Parse(text, ftsquery.Options{Field: field, AnyWord: anyWord})
}

// leafIn returns the SQL condition that the row whose FTS rowid is rid
// matches leaf n, in words (the unstemmed index) or, for plain words, in
// stemmed too.
func leafIn(rid, words, stemmed string, n *ftsquery.Node) (string, []any) {
	q := n.FTS5()
	cond := rid + ` IN (SELECT rowid FROM ` + words + ` WHERE ` + words + ` MATCH ?)`
	if !n.Stemmed() {
		return cond, []any{q}
	}
	return `(` + cond + ` OR ` + rid + ` IN (SELECT rowid FROM ` + stemmed + ` WHERE ` + stemmed + ` MATCH ?))`, []any{q, q}
}

// leavesFor returns the leaves of q an index can match: every leaf in the
// unstemmed index, plain words only in the stemmed one.
func leavesFor(q *ftsquery.Query, stemmed bool) []*ftsquery.Node {
	var out []*ftsquery.Node
	for _, l := range q.Leaves() {
		if !stemmed || l.Stemmed() {
			out = append(out, l)
		}
	}
	return out
}
