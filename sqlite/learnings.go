package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
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
	cands := &candidates{byRID: map[int64]int{}}
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
		if i > 0 && len(cands.list) >= pool {
			break
		}
		if exprs[index] == "" {
			continue // phrases and NEAR groups only: nothing for the stemmed index
		}
		if i > 0 && len(cands.list) > 0 && !noMoreLearnings {
			added, err := t.moreLearnings(ctx, index, exprs[index], filter, fargs, pool, cands)
			if err != nil {
				return nil, err
			}
			if added {
				continue
			}
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
		before, returned := len(cands.list), 0
		seen := map[int64]bool{}
		for rows.Next() {
			var c sqlcore.LearningCandidate
			if err := rows.Scan(&c.RID, &c.Score, &c.InPattern, &c.InContext, &c.Quality); err != nil {
				rows.Close()
				return nil, err
			}
			returned++
			seen[c.RID] = true
			cands.add(c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		// This index's page may have left out some candidates of the first
		// that it matches too, in a field the first does not: ask about
		// those alone.
		if before > 0 && returned >= pool {
			if err := t.learningFields(ctx, index, exprs[index], cands.list[:before], seen); err != nil {
				return nil, err
			}
		}
	}
	if len(cands.list) == 0 {
		return []baton.LearningHit{}, nil
	}
	hits, rids := sqlcore.RankLearnings(cands.list, pool, limit)
	return hits, t.FillLearnings(ctx, hits, rids)
}

// noMoreLearnings turns moreLearnings off, for the test that compares its
// results with the ranked query's.
var noMoreLearnings bool

// moreLearnings adds to cands what the second index asked finds beyond
// them, exactly as the ranked query below would, when that index's
// matches are too few to need ranking; it reports false, having changed
// nothing, when they may be more than pool (then only the ranked query
// knows which pool are the best). Its query leaves out the candidates
// already known to match in their pattern (the field that ranks highest:
// nothing about them can change), and runs bm25 only on the rest: for the
// score of a learning it adds (a candidate keeps the first index's score)
// and for the fields of any. On a small corpus whose words index alike in
// both indexes, it returns no row at all.
//
// Why it is exact: the ranked query's page is the index's best pool
// matches, and every match when there are no more than pool. The query
// here returns the matches but the settled candidates, at most
// pool-len(settled)+1 of them; when it returns no more than
// pool-len(settled), the index matches at most pool learnings in all.
func (t *tx) moreLearnings(ctx context.Context, index, expr, filter string, fargs []any, pool int, cands *candidates) (bool, error) {
	known, settled := make([]int64, 0, len(cands.list)), make([]int64, 0, len(cands.list))
	for _, c := range cands.list {
		known = append(known, c.RID)
		if c.InPattern {
			settled = append(settled, c.RID)
		}
	}
	knownJSON, err := json.Marshal(known)
	if err != nil {
		return false, err
	}
	settledJSON, err := json.Marshal(settled)
	if err != nil {
		return false, err
	}
	room := pool - len(settled)
	rows, err := t.Q.QueryContext(ctx, `SELECT l.rid, l.quality_score,
		CASE WHEN l.rid IN (SELECT value FROM json_each(?)) THEN NULL ELSE bm25(`+index+`) END,
		bm25(`+index+`, 1, 0, 0) < 0, bm25(`+index+`, 0, 1, 0) < 0
		FROM `+index+` CROSS JOIN learnings l ON l.rid = `+index+`.rowid
		WHERE `+index+` MATCH ? AND `+filter+` AND l.rid NOT IN (SELECT value FROM json_each(?)) LIMIT `+limitArg,
		append(append([]any{string(knownJSON), expr}, fargs...), string(settledJSON), room+1)...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var found []sqlcore.LearningCandidate
	for rows.Next() {
		var c sqlcore.LearningCandidate
		var score sql.NullFloat64
		if err := rows.Scan(&c.RID, &c.Quality, &score, &c.InPattern, &c.InContext); err != nil {
			return false, err
		}
		c.Score = score.Float64
		if found = append(found, c); len(found) > room {
			return false, nil
		}
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	for _, c := range found {
		cands.add(c)
	}
	return true, nil
}

// candidates are a search's matches so far, each learning once.
type candidates struct {
	list  []sqlcore.LearningCandidate
	byRID map[int64]int // index in list
}

// add takes in a match of one index. A learning the other index found
// already keeps that index's score (the two score on different scales),
// and a field either index matches counts.
func (cs *candidates) add(c sqlcore.LearningCandidate) {
	if at, ok := cs.byRID[c.RID]; ok {
		cs.list[at].InPattern = cs.list[at].InPattern || c.InPattern
		cs.list[at].InContext = cs.list[at].InContext || c.InContext
		return
	}
	cs.byRID[c.RID] = len(cs.list)
	cs.list = append(cs.list, c)
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
