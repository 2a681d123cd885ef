package postgres

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/ftsquery"
	"github.com/baton-dev/baton/sqlcore"
)

// AddLearning stores l on an existing item, assigning its id (L-N) and,
// when unset, its project (the item's) and creation time. A pattern that
// normalises like one already on the item is a duplicate; the same pattern
// on another item is not, since each item records what it taught.
func (t *tx) AddLearning(ctx context.Context, l *baton.Learning) error {
	normalized, id, err := t.PrepareLearning(ctx, l)
	if err != nil {
		return err
	}
	verified := 0
	if l.Verified {
		verified = 1
	}
	// applies_text is what the full-text columns (fts, words) index of
	// applies_to: its entries joined by spaces, as SQLite's indexes get
	// them. Under a savepoint, so a duplicate leaves the transaction usable.
	err = t.attempt(ctx, func() error {
		_, err := t.Q.ExecContext(ctx, `INSERT INTO learnings (id, item_id, project, pattern, normalized, context, applies_to,
			learning_type, quality_score, verified, created_by, created_at, applies_text)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, l.ItemID, l.Project, l.Pattern, normalized, l.Context, sqlcore.JSONList(l.AppliesTo),
			l.Type, l.QualityScore, verified, l.CreatedBy, sqlcore.MS(l.CreatedAt), strings.Join(l.AppliesTo, " "))
		return err
	})
	if isUnique(err) {
		// The check above runs under the writer lock, so only a race the
		// lock rules out could land here; answer the same way.
		return sqlcore.DuplicateLearning(l.ItemID, "")
	}
	if err != nil {
		return err
	}
	l.ID = id
	return nil
}

// learningIndex is one full-text column of learnings and the text search
// configuration its queries are parsed with.
type learningIndex struct{ column, config string }

// learningIndexes are the full-text columns of learnings: stemmed (fts:
// "runs" finds "running") and unstemmed (words: "runn" finds "running").
var learningIndexes = []learningIndex{{"fts", "baton_english"}, {"words", "baton_simple"}}

// SearchLearnings ranks the learnings matching q.Text, a query in the
// ftsquery syntax (malformed: ERR_INVALID_INPUT naming "query"). Every word
// of the text is a stemmed prefix ("migrat" finds "migration", "running"
// finds "runs") and any juxtaposed word may match (AND, NOT, phrases and
// NEAR narrow), so recall is high and documents matching
// more words rank higher.
//
// Scope: the learnings of q.Project (every project when empty), or, with
// CrossProject, of every project except q.Project. Learnings below
// MinQualityScore are dropped unless verified.
//
// Rank: see sqlcore.RankLearnings, except that relevance is ts_rank where
// SQLite has FTS5's bm25 (the hit's BM25 field). ts_rank runs with every
// weight 1, as bm25 runs with every column weighted alike (the field
// priority rewards the column), and without length normalisation: it grows
// with how often the words occur, and a learning matching more of the
// words ranks higher, but unlike bm25 it has no inverse document frequency
// and ignores length, so learnings that match the same words equally often
// score exactly alike.
//
// Ties are broken by rid, oldest learning first, wherever they occur: when
// the candidate pool is cut (equal ts_rank: the older learning stays in)
// and in the final order (equal rank: the older learning first, SQLite's
// rule too), so results are stable across calls and backends.
func (t *tx) SearchLearnings(ctx context.Context, q baton.LearningQuery) ([]baton.LearningHit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return []baton.LearningHit{}, nil
	}
	query, err := searchQuery(q.Text, "query", true)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = sqlcore.DefaultLearningLimit
	}
	filter, fargs := `(l.quality_score >= ? OR l.verified = 1)`, []any{q.MinQualityScore}
	switch {
	case q.Project == "":
	case q.CrossProject:
		filter, fargs = filter+` AND l.project <> ?`, append(fargs, q.Project)
	default:
		filter, fargs = filter+` AND l.project = ?`, append(fargs, q.Project)
	}
	// A query of alternatives only is settled by matching any of its
	// leaves (below); with AND or NOT the whole query is checked too.
	if !query.AnyOf() {
		c, a := query.Root.SQL(func(n *ftsquery.Node) (string, []any) { return tsLeaf("l.words", "l.fts", "ABC", n) })
		filter, fargs = filter+` AND `+c, append(fargs, a...)
	}
	pool := max(sqlcore.LearningPool, 4*limit)
	// Scores of the two columns are on different scales, so a learning the
	// stemmed column finds keeps that score; the unstemmed column only adds
	// what prefixes alone reach, and is asked only when the stemmed one
	// leaves the pool short (a typed prefix longer than a stem, "runn").
	// Each index ranks by the query's leaves it can match (a NEAR group
	// by its terms, which is what ts_rank can see) and finds the rows
	// where any of them matches.
	// A query with phrases or NEAR groups, which only the unstemmed column
	// answers, asks that column first, so all of its leaves rank on one
	// scale and the stemmed column only adds what stems alone reach.
	order := learningIndexes
	if len(leavesFor(query, true)) != len(leavesFor(query, false)) {
		order = []learningIndex{learningIndexes[1], learningIndexes[0]}
	}
	var cands []sqlcore.LearningCandidate
	byRID := map[int64]int{}
	var indexes []learningIndex
	for n, index := range order {
		leaves := leavesFor(query, index == learningIndexes[0])
		if n > 0 && len(cands) >= pool {
			break
		}
		if len(leaves) == 0 {
			continue // phrases and NEAR groups only: nothing for the stemmed index
		}
		indexes = append(indexes, index)
		match, margs := anyLeaf("l."+index.column, index.config, "ABC", leaves)
		args := append([]any{ftsquery.AnyTSQuery(leaves, "")}, margs...)
		rows, err := t.Q.QueryContext(ctx, `SELECT l.rid, -ts_rank('{1,1,1,1}', l.`+index.column+`, to_tsquery('`+index.config+`', ?))::float8,
			l.quality_score FROM learnings l WHERE `+match+` AND `+filter+` ORDER BY 2, l.rid LIMIT ?`,
			append(append(args, fargs...), pool)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var c sqlcore.LearningCandidate
			if err := rows.Scan(&c.RID, &c.Score, &c.Quality); err != nil {
				rows.Close()
				return nil, err
			}
			if _, seen := byRID[c.RID]; seen {
				continue
			}
			byRID[c.RID] = len(cands)
			cands = append(cands, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if len(cands) == 0 {
		return []baton.LearningHit{}, nil
	}
	// Which fields matched: the text restricted to the pattern (weight A)
	// or the context (B), in the columns asked; read for the candidates by
	// rid, with none of their text, which only the page's rows need.
	var inPattern, inContext []string
	var args []any
	for _, f := range []struct {
		weight string
		conds  *[]string
	}{{"A", &inPattern}, {"B", &inContext}} {
		for _, index := range indexes {
			c, a := anyLeaf("l."+index.column, index.config, f.weight, leavesFor(query, index == learningIndexes[0]))
			*f.conds, args = append(*f.conds, c), append(args, a...)
		}
	}
	for _, c := range cands {
		args = append(args, c.RID)
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT l.rid, `+strings.Join(inPattern, " OR ")+`, `+strings.Join(inContext, " OR ")+`
		FROM learnings l WHERE l.rid IN (`+sqlcore.Placeholders(len(cands))+`)`, args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rid int64
		var inPattern, inContext bool
		if err := rows.Scan(&rid, &inPattern, &inContext); err != nil {
			rows.Close()
			return nil, err
		}
		c := &cands[byRID[rid]]
		c.InPattern, c.InContext = inPattern, inContext
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hits, rids := sqlcore.RankLearnings(cands, pool, limit)
	return hits, t.FillLearnings(ctx, hits, rids)
}
