package sqlcore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/baton-dev/baton"
)

// Search ranking of Symphony's search_learnings: 50% text relevance (FTS5's
// bm25 on SQLite, ts_rank on PostgreSQL), 30% field priority, 20% quality
// score, each scaled to 0..1.
const (
	weightBM25    = 0.5
	weightField   = 0.3
	weightQuality = 0.2

	priorityPattern   = 1.0
	priorityContext   = 0.6
	priorityAppliesTo = 0.3

	// DefaultLearningLimit is the page of a search that names none.
	DefaultLearningLimit = 50
	// LearningPool is how many of the best relevance matches are ranked in
	// full (at least 4x the limit); relevance is scaled within them.
	LearningPool = 200
)

// PrepareLearning checks l before AddLearning stores it: the item exists
// (l.Project defaults to its project), any other project named exists, and
// the item has no learning whose pattern normalises alike. It returns the
// normalised pattern and the learning's new id (L-N), and sets
// l.CreatedAt (when unset) and l.AppliesTo (never nil).
func (t *Tx) PrepareLearning(ctx context.Context, l *baton.Learning) (normalized, id string, err error) {
	if err := t.Activity(ctx, l.ItemID, l.CreatedBy, l.CreatedAt); err != nil {
		return "", "", err
	}
	it, err := t.Self.Item(ctx, l.ItemID)
	if err != nil {
		return "", "", err
	}
	if l.Project == "" {
		l.Project = it.Project
	} else if l.Project != it.Project {
		// The foreign key would catch an unknown project, but only as an
		// opaque constraint error.
		if _, err := t.Self.Project(ctx, l.Project); err != nil {
			return "", "", err
		}
	}
	normalized = baton.NormalizePattern(l.Pattern)
	var existing string
	err = t.Q.QueryRowContext(ctx, `SELECT id FROM learnings WHERE item_id = ? AND normalized = ?`, l.ItemID, normalized).
		Scan(&existing)
	if err == nil {
		return "", "", DuplicateLearning(l.ItemID, existing)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", "", err
	}
	if id, err = t.NextRecordID(ctx, "learnings", "L"); err != nil {
		return "", "", err
	}
	if l.CreatedAt.IsZero() {
		l.CreatedAt = t.Now().UTC()
	}
	if l.AppliesTo == nil {
		l.AppliesTo = []string{}
	}
	return normalized, id, nil
}

// DuplicateLearning is the conflict of a pattern already on itemID, as
// the learning existing when known.
func DuplicateLearning(itemID, existing string) *baton.Error {
	e := baton.Errorf(baton.ErrConflict, "%s already has a learning with this pattern", itemID).
		WithType("duplicate").WithDetails("field", "pattern")
	if existing != "" {
		e.Message = fmt.Sprintf("%s already has this learning as %s (patterns match ignoring case, punctuation and spacing)", itemID, existing)
		e.WithDetails("existing_id", existing)
	}
	return e.WithHint("the learning is already recorded; add a learning only for a genuinely different pattern")
}

// LearningColumns are the columns ScanLearning reads, in its order, of
// learnings as l.
const LearningColumns = `l.rid, l.id, l.item_id, l.project, l.pattern, l.context, l.applies_to, l.learning_type,
	l.quality_score, l.verified, l.created_by, l.created_at`

// ScanLearning reads LearningColumns and returns the learning with its rid.
func ScanLearning(sc interface{ Scan(...any) error }) (*baton.Learning, int64, error) {
	var l baton.Learning
	var rid, created int64
	var appliesTo string
	if err := sc.Scan(&rid, &l.ID, &l.ItemID, &l.Project, &l.Pattern, &l.Context, &appliesTo, &l.Type,
		&l.QualityScore, &l.Verified, &l.CreatedBy, &created); err != nil {
		return nil, 0, err
	}
	var err error
	if l.AppliesTo, err = ParseList(appliesTo); err != nil {
		return nil, 0, fmt.Errorf("learning %s: applies_to: %w", l.ID, err)
	}
	l.CreatedAt = FromMS(created)
	return &l, rid, nil
}

// Learnings returns an item's learnings oldest first (none for an unknown item).
func (t *Tx) Learnings(ctx context.Context, itemID string) ([]*baton.Learning, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+LearningColumns+` FROM learnings l WHERE l.item_id = ? ORDER BY l.rid`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Learning{}
	for rows.Next() {
		l, _, err := ScanLearning(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LearningCandidate is one learning a search matched, as its ranking needs
// it and no more: rid, relevance score (lower is better: FTS5's bm25, or
// ts_rank negated), quality score, and which fields the search matches.
type LearningCandidate struct {
	RID       int64
	Score     float64
	Quality   int
	InPattern bool
	InContext bool
}

// RankLearnings ranks the candidates and returns the best limit, with the
// rid of each; their Learning is left for FillLearnings, so only the
// page's rows are ever read in full.
//
// Beyond pool candidates, the worst scores go (equal scores: the newer
// learning). Rank = 0.5*relevance + 0.3*field priority + 0.2*quality/100,
// relevance scaled within the candidates: best 1, worst 0, and 1 for all
// when they score alike. Field priority is that of the best field matched:
// pattern 1, context 0.6, applies_to 0.3. Equal ranks go to the older
// learning (lower rid), so results are stable across calls.
func RankLearnings(cands []LearningCandidate, pool, limit int) ([]baton.LearningHit, []int64) {
	if len(cands) > pool {
		slices.SortFunc(cands, func(a, b LearningCandidate) int {
			return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.RID, b.RID))
		})
		cands = cands[:pool]
	}
	best, worst := 0.0, 0.0
	for i, c := range cands {
		if i == 0 || c.Score < best {
			best = c.Score
		}
		if i == 0 || c.Score > worst {
			worst = c.Score
		}
	}
	type ranked struct {
		hit baton.LearningHit
		rid int64
	}
	all := make([]ranked, len(cands))
	for i, c := range cands {
		h := baton.LearningHit{BM25: 1, MatchedField: "applies_to", FieldPriority: priorityAppliesTo}
		switch {
		case c.InPattern:
			h.MatchedField, h.FieldPriority = "pattern", priorityPattern
		case c.InContext:
			h.MatchedField, h.FieldPriority = "context", priorityContext
		}
		if worst > best {
			h.BM25 = (worst - c.Score) / (worst - best)
		}
		// Scores outside 0..100 must not outweigh relevance.
		quality := float64(min(max(c.Quality, 0), 100)) / 100
		h.Rank = weightBM25*h.BM25 + weightField*h.FieldPriority + weightQuality*quality
		all[i] = ranked{h, c.RID}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		switch {
		case a.hit.Rank > b.hit.Rank:
			return -1
		case a.hit.Rank < b.hit.Rank:
			return 1
		}
		return cmp.Compare(a.rid, b.rid)
	})
	all = all[:min(limit, len(all))]
	hits, rids := make([]baton.LearningHit, len(all)), make([]int64, len(all))
	for i, r := range all {
		hits[i], rids[i] = r.hit, r.rid
	}
	return hits, rids
}

// FillLearnings reads the learning of each hit, whose rid is rids[i].
func (t *Tx) FillLearnings(ctx context.Context, hits []baton.LearningHit, rids []int64) error {
	if len(rids) == 0 {
		return nil
	}
	at := make(map[int64]int, len(rids))
	args := make([]any, len(rids))
	for i, rid := range rids {
		at[rid], args[i] = i, rid
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT `+LearningColumns+` FROM learnings l WHERE l.rid IN (`+Placeholders(len(rids))+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		l, rid, err := ScanLearning(rows)
		if err != nil {
			return err
		}
		hits[at[rid]].Learning = l
	}
	return rows.Err()
}
