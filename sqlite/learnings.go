package sqlite

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
	var rid int64
	err = t.Q.QueryRowContext(ctx, `INSERT INTO learnings (id, item_id, project, pattern, normalized, context, applies_to,
		learning_type, quality_score, verified, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING rid`,
		id, l.ItemID, l.Project, l.Pattern, normalized, l.Context, sqlcore.JSONList(l.AppliesTo),
		l.Type, l.QualityScore, l.Verified, l.CreatedBy, sqlcore.MS(l.CreatedAt)).Scan(&rid)
	if isUnique(err) {
		// The check above runs in this write transaction, so only a race
		// the single writer rules out could land here; answer the same way.
		return sqlcore.DuplicateLearning(l.ItemID, "")
	}
	if err != nil {
		return err
	}
	// Both indexes are contentless: they keep only the index, keyed by the
	// learning's rid, so search joins back to learnings for the text.
	for _, index := range learningIndexes {
		if _, err := t.Q.ExecContext(ctx, `INSERT INTO `+index+` (rowid, pattern, context, applies_to) VALUES (?, ?, ?, ?)`,
			rid, l.Pattern, l.Context, strings.Join(l.AppliesTo, " ")); err != nil {
			return err
		}
	}
	l.ID = id
	return nil
}

// learningIndexes are the full-text indexes of learnings: stemmed
// (learnings_fts: "runs" finds "running") and unstemmed (learnings_words:
// "runn" finds "running").
var learningIndexes = []string{"learnings_fts", "learnings_words"}

// SearchLearnings ranks the learnings matching q.Text, a query in the
// ftsquery syntax (malformed: ERR_INVALID_INPUT naming "query"). Every word
// of the text is a stemmed prefix ("migrat" finds "migration", "running"
// finds "runs") and any juxtaposed word may match (AND, NOT, phrases and
// NEAR narrow), so recall is high and documents matching
// more words rank higher through BM25.
//
// Scope: the learnings of q.Project (every project when empty), or, with
// CrossProject, of every project except q.Project. Learnings below
// MinQualityScore are dropped unless verified.
//
// Rank: see sqlcore.RankLearnings, relevance being FTS5's bm25.
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
	// A query of alternatives only is settled by the MATCH below (any of
	// its leaves); with AND or NOT the whole query is checked too.
	if !query.AnyOf() {
		c, a := query.Root.SQL(func(n *ftsquery.Node) (string, []any) {
			return leafIn("l.rid", "learnings_words", "learnings_fts", n)
		})
		filter, fargs = filter+` AND `+c, append(fargs, a...)
	}
	// What each index ranks: the query's leaves it can match, any of them.
	exprs := map[string]string{}
	for i, index := range learningIndexes {
		exprs[index] = ftsquery.AnyFTS5(leavesFor(query, i == 0))
	}
	var cands []sqlcore.LearningCandidate
	byRID := map[int64]int{}
	pool := max(sqlcore.LearningPool, 4*limit)
	// Scores of the two indexes are on different scales, so a learning the
	// stemmed index finds keeps that score; the unstemmed index only adds
	// what prefixes alone reach, and is asked only when the stemmed one
	// leaves the pool short (a typed prefix longer than a stem, "runn").
	// A query with phrases or NEAR groups, which only the unstemmed index
	// answers, asks that index first, so all of its leaves rank on one
	// scale and the stemmed index only adds what stems alone reach.
	order := learningIndexes
	if exprs[learningIndexes[0]] != exprs[learningIndexes[1]] {
		order = []string{learningIndexes[1], learningIndexes[0]}
	}
	for i, index := range order {
		if i > 0 && len(cands) >= pool {
			break
		}
		if exprs[index] == "" {
			continue // phrases and NEAR groups only: nothing for the stemmed index
		}
		// One query per index yields all a candidate's rank needs. Which
		// fields matched is bm25 with the other columns weighted 0: below
		// zero exactly when a phrase of the expression occurs in that
		// column, as the column-filtered MATCH '{pattern} : (...)' would
		// say, without running the expression again over the whole index.
		// CROSS JOIN keeps the full-text match as the outer loop: left to
		// itself the planner may walk every learning of the project and
		// probe the index for each.
		rows, err := t.Q.QueryContext(ctx, `SELECT l.rid, bm25(`+index+`), bm25(`+index+`, 1, 0, 0) < 0,
			bm25(`+index+`, 0, 1, 0) < 0, l.quality_score
			FROM `+index+` CROSS JOIN learnings l ON l.rid = `+index+`.rowid
			WHERE `+index+` MATCH ? AND `+filter+` ORDER BY 2 LIMIT `+limitArg, append(append([]any{exprs[index]}, fargs...), pool)...)
		if err != nil {
			return nil, err
		}
		before, returned := len(cands), 0
		seen := map[int64]bool{}
		for rows.Next() {
			var c sqlcore.LearningCandidate
			if err := rows.Scan(&c.RID, &c.Score, &c.InPattern, &c.InContext, &c.Quality); err != nil {
				rows.Close()
				return nil, err
			}
			returned++
			seen[c.RID] = true
			if at, ok := byRID[c.RID]; ok {
				// Found by the other index too: it keeps that index's
				// score, and a field either index matches counts.
				cands[at].InPattern = cands[at].InPattern || c.InPattern
				cands[at].InContext = cands[at].InContext || c.InContext
				continue
			}
			byRID[c.RID] = len(cands)
			cands = append(cands, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		// This index's page may have left out some candidates of the first
		// that it matches too, in a field the first does not: ask about
		// those alone.
		if before > 0 && returned >= pool {
			if err := t.learningFields(ctx, index, exprs[index], cands[:before], seen); err != nil {
				return nil, err
			}
		}
	}
	if len(cands) == 0 {
		return []baton.LearningHit{}, nil
	}
	hits, rids := sqlcore.RankLearnings(cands, pool, limit)
	return hits, t.FillLearnings(ctx, hits, rids)
}

// learningFields adds the fields index finds expr in to the candidates
// not in seen.
func (t *tx) learningFields(ctx context.Context, index, expr string, cands []sqlcore.LearningCandidate, seen map[int64]bool) error {
	at := map[int64]int{}
	args := []any{expr}
	for i, c := range cands {
		if !seen[c.RID] {
			at[c.RID] = i
			args = append(args, c.RID)
		}
	}
	if len(at) == 0 {
		return nil
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT l.rid, bm25(`+index+`, 1, 0, 0) < 0, bm25(`+index+`, 0, 1, 0) < 0
		FROM `+index+` CROSS JOIN learnings l ON l.rid = `+index+`.rowid
		WHERE `+index+` MATCH ? AND l.rid IN (`+sqlcore.Placeholders(len(at))+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var rid int64
		var inPattern, inContext bool
		if err := rows.Scan(&rid, &inPattern, &inContext); err != nil {
			return err
		}
		c := &cands[at[rid]]
		c.InPattern, c.InContext = c.InPattern || inPattern, c.InContext || inContext
	}
	return rows.Err()
}
