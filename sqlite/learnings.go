package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/ftsquery"
	"github.com/baton-dev/baton/sqlcore"
)

// Search ranking of Symphony's search_learnings: 50% BM25, 30% field
// priority, 20% quality score, each scaled to 0..1.
const (
	weightBM25    = 0.5
	weightField   = 0.3
	weightQuality = 0.2

	priorityPattern   = 1.0
	priorityContext   = 0.6
	priorityAppliesTo = 0.3

	defaultLearningLimit = 50
	// candidatePool is how many of the best bm25 matches are ranked in
	// full (at least 4x the limit); bm25 is scaled within them.
	candidatePool = 200
)

// AddLearning stores l on an existing item, assigning its id (L-N) and,
// when unset, its project (the item's) and creation time. A pattern that
// normalises like one already on the item is a duplicate; the same pattern
// on another item is not, since each item records what it taught.
func (t *tx) AddLearning(ctx context.Context, l *baton.Learning) error {
	if err := t.Activity(ctx, l.ItemID, l.CreatedBy, l.CreatedAt); err != nil {
		return err
	}
	it, err := t.Item(ctx, l.ItemID)
	if err != nil {
		return err
	}
	if l.Project == "" {
		l.Project = it.Project
	} else if l.Project != it.Project {
		// The foreign key would catch an unknown project, but only as an
		// opaque constraint error.
		if _, err := t.Project(ctx, l.Project); err != nil {
			return err
		}
	}
	normalized := baton.NormalizePattern(l.Pattern)
	var existing string
	err = t.Q.QueryRowContext(ctx, `SELECT id FROM learnings WHERE item_id = ? AND normalized = ?`, l.ItemID, normalized).
		Scan(&existing)
	if err == nil {
		return duplicateLearning(l.ItemID, existing)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	id, err := t.NextRecordID(ctx, "learnings", "L")
	if err != nil {
		return err
	}
	if l.CreatedAt.IsZero() {
		l.CreatedAt = t.Now().UTC()
	}
	if l.AppliesTo == nil {
		l.AppliesTo = []string{}
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
		return duplicateLearning(l.ItemID, "")
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

func duplicateLearning(itemID, existing string) *baton.Error {
	e := baton.Errorf(baton.ErrConflict, "%s already has a learning with this pattern", itemID).
		WithType("duplicate").WithDetails("field", "pattern")
	if existing != "" {
		e.Message = fmt.Sprintf("%s already has this learning as %s (patterns match ignoring case, punctuation and spacing)", itemID, existing)
		e.WithDetails("existing_id", existing)
	}
	return e.WithHint("the learning is already recorded; add a learning only for a genuinely different pattern")
}

const learningColumns = `l.rid, l.id, l.item_id, l.project, l.pattern, l.context, l.applies_to, l.learning_type,
	l.quality_score, l.verified, l.created_by, l.created_at`

// scanLearning reads learningColumns, then any extra columns into extra,
// and returns the learning with its rid.
func scanLearning(sc interface{ Scan(...any) error }, extra ...any) (*baton.Learning, int64, error) {
	var l baton.Learning
	var rid, created int64
	var appliesTo string
	dest := append([]any{&rid, &l.ID, &l.ItemID, &l.Project, &l.Pattern, &l.Context, &appliesTo, &l.Type,
		&l.QualityScore, &l.Verified, &l.CreatedBy, &created}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return nil, 0, err
	}
	var err error
	if l.AppliesTo, err = sqlcore.ParseList(appliesTo); err != nil {
		return nil, 0, fmt.Errorf("learning %s: applies_to: %w", l.ID, err)
	}
	l.CreatedAt = sqlcore.FromMS(created)
	return &l, rid, nil
}

// Learnings returns an item's learnings oldest first (none for an unknown item).
func (t *tx) Learnings(ctx context.Context, itemID string) ([]*baton.Learning, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+learningColumns+` FROM learnings l WHERE l.item_id = ? ORDER BY l.rid`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Learning{}
	for rows.Next() {
		l, _, err := scanLearning(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

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
// Rank = 0.5*BM25 + 0.3*field priority + 0.2*quality/100. BM25 is scaled
// within the candidates (scope and quality filters applied, before the
// limit, so the limit never changes a score): best 1, worst 0, and 1 for
// all when they score alike. Field priority is that of the best field the
// text matches: pattern 1, context 0.6, applies_to 0.3. Equal ranks go to
// the older learning (lower rid), so results are stable across calls.
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
		limit = defaultLearningLimit
	}
	// Two phases, so a query that matches much of the corpus does not load
	// every match: FTS5 ranks the candidates by bm25 alone and keeps the
	// best few, then only those rows are read.
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
	type candidate struct {
		hit  baton.LearningHit
		rid  int64
		bm25 float64
	}
	var cands []candidate
	byRID := map[int64]int{}
	pool := max(candidatePool, 4*limit)
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
	var indexes []string
	for i, index := range order {
		if i > 0 && len(cands) >= pool {
			break
		}
		if exprs[index] == "" {
			continue // phrases and NEAR groups only: nothing for the stemmed index
		}
		indexes = append(indexes, index)
		// CROSS JOIN keeps the full-text match as the outer loop: left to
		// itself the planner may walk every learning of the project and
		// probe the index for each.
		rows, err := t.Q.QueryContext(ctx, `SELECT l.rid, bm25(`+index+`)
			FROM `+index+` CROSS JOIN learnings l ON l.rid = `+index+`.rowid
			WHERE `+index+` MATCH ? AND `+filter+` ORDER BY 2 LIMIT ?`, append(append([]any{exprs[index]}, fargs...), pool)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var c candidate
			if err := rows.Scan(&c.rid, &c.bm25); err != nil {
				rows.Close()
				return nil, err
			}
			if _, seen := byRID[c.rid]; seen {
				continue
			}
			c.hit.MatchedField, c.hit.FieldPriority = "applies_to", priorityAppliesTo
			byRID[c.rid] = len(cands)
			cands = append(cands, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if len(cands) > pool {
		slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.bm25, b.bm25) })
		cands = cands[:pool]
		clear(byRID)
		for i, c := range cands {
			byRID[c.rid] = i
		}
	}
	if len(cands) == 0 {
		return []baton.LearningHit{}, nil
	}
	ids := make([]any, 0, len(cands))
	for _, c := range cands {
		ids = append(ids, c.rid)
	}
	// Which field matched: the rows whose pattern (then context) matches,
	// as plain membership queries. (A rowid IN (...) constraint would make
	// FTS5 run the query once per candidate.)
	for _, f := range []struct {
		index, column string
		priority      float64
	}{
		{"learnings_fts", "context", priorityContext}, {"learnings_words", "context", priorityContext},
		{"learnings_fts", "pattern", priorityPattern}, {"learnings_words", "pattern", priorityPattern},
	} {
		if !slices.Contains(indexes, f.index) {
			continue
		}
		hits, err := t.Q.QueryContext(ctx, `SELECT rowid FROM `+f.index+` WHERE `+f.index+` MATCH ?`,
			"{"+f.column+"} : ("+exprs[f.index]+")")
		if err != nil {
			return nil, err
		}
		for hits.Next() {
			var rid int64
			if err := hits.Scan(&rid); err != nil {
				hits.Close()
				return nil, err
			}
			if i, ok := byRID[rid]; ok {
				cands[i].hit.MatchedField, cands[i].hit.FieldPriority = f.column, f.priority
			}
		}
		hits.Close()
		if err := hits.Err(); err != nil {
			return nil, err
		}
	}
	full, err := t.Q.QueryContext(ctx, `SELECT `+learningColumns+` FROM learnings l WHERE l.rid IN (`+sqlcore.Placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return nil, err
	}
	for full.Next() {
		l, rid, err := scanLearning(full)
		if err != nil {
			full.Close()
			return nil, err
		}
		cands[byRID[rid]].hit.Learning = l
	}
	full.Close()
	if err := full.Err(); err != nil {
		return nil, err
	}
	// FTS5's bm25() is negative, lower is better.
	best, worst := 0.0, 0.0
	for i, c := range cands {
		if i == 0 || c.bm25 < best {
			best = c.bm25
		}
		if i == 0 || c.bm25 > worst {
			worst = c.bm25
		}
	}
	for i := range cands {
		c := &cands[i]
		c.hit.BM25 = 1
		if worst > best {
			c.hit.BM25 = (worst - c.bm25) / (worst - best)
		}
		// Scores outside 0..100 must not outweigh relevance.
		quality := float64(min(max(c.hit.Learning.QualityScore, 0), 100)) / 100
		c.hit.Rank = weightBM25*c.hit.BM25 + weightField*c.hit.FieldPriority + weightQuality*quality
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		switch {
		case a.hit.Rank > b.hit.Rank:
			return -1
		case a.hit.Rank < b.hit.Rank:
			return 1
		}
		return cmp.Compare(a.rid, b.rid)
	})
	out := make([]baton.LearningHit, 0, min(limit, len(cands)))
	for _, c := range cands[:min(limit, len(cands))] {
		out = append(out, c.hit)
	}
	return out, nil
}
