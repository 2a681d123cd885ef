package postgres

import (
	"fmt"
	"strings"

	"github.com/baton-dev/baton/ftsquery"
)

// The full-text searches read their text with ftsquery, as on SQLite, and
// match each leaf of the query (word, phrase, NEAR group) against the
// tsvector columns; SQL combines the leaves with AND, OR and AND NOT, so a
// query means the same here as FTS5 makes of it there.
//
// Words and phrases are tsqueries (to_tsquery with the column's
// configuration; every lexeme quoted by ftsquery). A phrase of a
// multi-field vector is asked within each field's weight label, since
// FTS5 phrases never span columns. NEAR has no tsquery form (<N> means
// exactly N apart), so a NEAR group is checked on the positions the
// tsvector keeps, by FTS5's own rule: every term ends at most N tokens
// before the start of the term that starts last, all in one field.

// searchQuery parses text, a search of field; anyWord makes juxtaposed
// words alternatives (search_learnings).
func searchQuery(text, field string, anyWord bool) (*ftsquery.Query, error) {
	return ftsquery.Parse(text, ftsquery.Options{Field: field, AnyWord: anyWord})
}

// tsLeaf returns the SQL condition that leaf n matches: in the unstemmed
// column words (its fields labelled weights, "" for a single field) or,
// for plain words, in the stemmed column stemmed ("" for none).
func tsLeaf(words, stemmed, weights string, n *ftsquery.Node) (string, []any) {
	switch {
	case n.Kind == ftsquery.Near:
		return nearLeaf(words, weights, n)
	case n.Stemmed() && stemmed != "":
		q := n.TSQuery(weights)
		return `(` + words + ` @@ to_tsquery('baton_simple', ?) OR ` + stemmed + ` @@ to_tsquery('baton_english', ?))`, []any{q, q}
	}
	return words + ` @@ to_tsquery('baton_simple', ?)`, []any{n.TSQuery(weights)}
}

// anyLeaf returns the SQL condition that any of leaves matches in col
// (configuration cfg, fields labelled weights): one tsquery for the words
// and phrases, a position check per NEAR group.
func anyLeaf(col, cfg, weights string, leaves []*ftsquery.Node) (string, []any) {
	var plain []*ftsquery.Node
	var conds []string
	var args []any
	for _, l := range leaves {
		if l.Kind != ftsquery.Near {
			plain = append(plain, l)
			continue
		}
		c, a := nearLeaf(col, weights, l)
		conds, args = append(conds, c), append(args, a...)
	}
	if len(plain) > 0 {
		conds = append([]string{col + ` @@ to_tsquery('` + cfg + `', ?)`}, conds...)
		args = append([]any{ftsquery.AnyTSQuery(plain, weights)}, args...)
	}
	return `(` + strings.Join(conds, ` OR `) + `)`, args
}

// leavesFor returns the leaves of q an index can match: every leaf in the
// unstemmed column, plain words only in the stemmed one.
func leavesFor(q *ftsquery.Query, stemmed bool) []*ftsquery.Node {
	var out []*ftsquery.Node
	for _, l := range q.Leaves() {
		if !stemmed || l.Stemmed() {
			out = append(out, l)
		}
	}
	return out
}

// nearLeaf is the condition that NEAR group n matches in the unstemmed
// column col: the GIN index narrows the rows to those holding every term,
// then the positions decide. With weights, only those fields count.
//
// For each term i, s<i> holds where it starts (the positions of its first
// lexeme followed by the others, in one field). A clump ending at the
// latest start m matches when every term starts within its length plus the
// distance before m, FTS5's test; m need only range over the starts.
func nearLeaf(col, weights string, n *ftsquery.Node) (string, []any) {
	args := []any{n.TSQuery(weights)}
	var b strings.Builder
	b.WriteString(`(` + col + ` @@ to_tsquery('baton_simple', ?) AND EXISTS (WITH p AS (SELECT u.lexeme, x.pos, x.w
		FROM unnest(` + col + `) u, unnest(u.positions, u.weights) AS x(pos, w)`)
	if weights != "" {
		b.WriteString(` WHERE x.w = ANY(?::text[])`)
		args = append(args, strings.Split(weights, ""))
	}
	b.WriteString(`)`)
	for i, t := range n.Terms {
		fmt.Fprintf(&b, `, s%d AS (SELECT t0.pos, t0.w FROM p t0`, i)
		for j := 1; j < len(t.Tokens); j++ {
			fmt.Fprintf(&b, ` JOIN p t%d ON t%d.pos = t0.pos + %d AND t%d.w = t0.w`, j, j, j, j)
		}
		b.WriteString(` WHERE `)
		for j, tok := range t.Tokens {
			if j > 0 {
				b.WriteString(` AND `)
			}
			// An uncorrelated subquery: parsed once per statement.
			fmt.Fprintf(&b, `array_to_tsvector(ARRAY[t%d.lexeme]) @@ (SELECT to_tsquery('baton_simple', ?))`, j)
			args = append(args, ftsquery.TSTerm(tok, t.Prefix && j == len(t.Tokens)-1))
		}
		b.WriteString(`)`)
	}
	b.WriteString(` SELECT 1 FROM (`)
	for i := range n.Terms {
		if i > 0 {
			b.WriteString(` UNION `)
		}
		fmt.Fprintf(&b, `SELECT pos, w FROM s%d`, i)
	}
	b.WriteString(`) m WHERE `)
	for i, t := range n.Terms {
		if i > 0 {
			b.WriteString(` AND `)
		}
		fmt.Fprintf(&b, `EXISTS (SELECT 1 FROM s%d WHERE s%d.w = m.w AND s%d.pos BETWEEN m.pos - ? AND m.pos)`, i, i, i)
		args = append(args, len(t.Tokens)+n.Distance)
	}
	b.WriteString(`))`)
	return b.String(), args
}
