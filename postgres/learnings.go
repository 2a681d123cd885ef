package postgres

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

// Search ranking of Symphony's search_learnings: 50% text relevance, 30%
// field priority, 20% quality score, each scaled to 0..1. SQLite scores
// relevance with FTS5's bm25; here it is ts_rank (see SearchLearnings).
const (
	weightBM25    = 0.5
	weightField   = 0.3
	weightQuality = 0.2

	priorityPattern   = 1.0
	priorityContext   = 0.6
	priorityAppliesTo = 0.3

	defaultLearningLimit = 50
	// candidatePool is how many of the best ts_rank matches are ranked in
	// full (at least 4x the limit); relevance is scaled within them.
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
		return duplicateLearning(l.ItemID, "")
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
// more words rank higher.
//
// Scope: the learnings of q.Project (every project when empty), or, with
// CrossProject, of every project except q.Project. Learnings below
// MinQualityScore are dropped unless verified.
//
// Rank = 0.5*relevance + 0.3*field priority + 0.2*quality/100, as on
// SQLite, except that relevance is ts_rank where SQLite has FTS5's bm25
// (the hit's BM25 field). ts_rank runs with every weight 1, as bm25 runs
// with every column weighted alike (the field priority rewards the
// column), and without length normalisation: it grows with how often the
// words occur, and a learning matching more of the words ranks higher, but
// unlike bm25 it has no inverse document frequency and ignores length, so
// learnings that match the same words equally often score exactly alike.
// Relevance is scaled within the candidates (scope and quality filters
// applied, before the limit, so the limit never changes a score): best 1,
// worst 0, and 1 for all when they score alike. Field priority is that of
// the best field the text matches: pattern 1, context 0.6, applies_to 0.3.
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
		limit = defaultLearningLimit
	}
	// Two phases, so a query that matches much of the corpus does not load
	// every match: the candidates are ranked by ts_rank alone and the best
	// few kept, then only those rows are read.
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
	type candidate struct {
		hit baton.LearningHit
		rid int64
		// score is ts_rank negated, so that, like FTS5's bm25, lower is
		// better and the scaling below reads the same as SQLite's.
		score float64
	}
	var cands []candidate
	byRID := map[int64]int{}
	pool := max(candidatePool, 4*limit)
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
		rows, err := t.Q.QueryContext(ctx, `SELECT l.rid, -ts_rank('{1,1,1,1}', l.`+index.column+`, to_tsquery('`+index.config+`', ?))::float8
			FROM learnings l WHERE `+match+` AND `+filter+` ORDER BY 2, l.rid LIMIT ?`,
			append(append(args, fargs...), pool)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var c candidate
			if err := rows.Scan(&c.rid, &c.score); err != nil {
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
		slices.SortFunc(cands, func(a, b candidate) int {
			return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.rid, b.rid))
		})
		cands = cands[:pool]
		clear(byRID)
		for i, c := range cands {
			byRID[c.rid] = i
		}
	}
	if len(cands) == 0 {
		return []baton.LearningHit{}, nil
	}
	// Which field matched, read with the rows: the text restricted to the
	// pattern (weight A) or the context (weight B), in the columns asked.
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
		args = append(args, c.rid)
	}
	full, err := t.Q.QueryContext(ctx, `SELECT `+learningColumns+`, `+strings.Join(inPattern, " OR ")+`, `+strings.Join(inContext, " OR ")+`
		FROM learnings l WHERE l.rid IN (`+sqlcore.Placeholders(len(cands))+`)`, args...)
	if err != nil {
		return nil, err
	}
	for full.Next() {
		var inPattern, inContext bool
		l, rid, err := scanLearning(full, &inPattern, &inContext)
		if err != nil {
			full.Close()
			return nil, err
		}
		c := &cands[byRID[rid]]
		c.hit.Learning = l
		switch {
		case inPattern:
			c.hit.MatchedField, c.hit.FieldPriority = "pattern", priorityPattern
		case inContext:
			c.hit.MatchedField, c.hit.FieldPriority = "context", priorityContext
		}
	}
	full.Close()
	if err := full.Err(); err != nil {
		return nil, err
	}
	best, worst := 0.0, 0.0
	for i, c := range cands {
		if i == 0 || c.score < best {
			best = c.score
		}
		if i == 0 || c.score > worst {
			worst = c.score
		}
	}
	for i := range cands {
		c := &cands[i]
		c.hit.BM25 = 1
		if worst > best {
			c.hit.BM25 = (worst - c.score) / (worst - best)
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
