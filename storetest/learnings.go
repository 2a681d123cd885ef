package storetest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// The learnings conformance group: one fixed corpus, recorded through
// baton.Tx, and the results of SearchLearnings on it. Backends rank text
// differently (SQLite: FTS5 bm25; PostgreSQL: ts_rank), so the corpus is
// built where their rankings agree: documents of a group have the same
// length in tokens, and learnings that must tie are symmetric (the same
// words, or the same words in other columns). The expected results are
// lists of groups: the order of the groups is asserted, and within a group
// only membership, where the backends' scores tie.

// learnDoc is one learning of the corpus, recorded on an item of its own.
type learnDoc struct {
	name, project    string
	pattern, context string
	appliesTo        []string
	quality          int
	verified         bool
}

var learnCorpus = []learnDoc{
	// A word only one learning has.
	{"rare", "alpha", "Zeppelin hangars need wide doors", "", nil, 50, false},

	// "cache" in five learnings of 8 tokens each: three times in the
	// pattern, once in the pattern (twice, tying), once in the context,
	// once in applies_to.
	{"cache3", "alpha", "cache the cache before the cache warms", "always", nil, 50, false},
	{"cache1a", "alpha", "cache entries expire after ten idle minutes", "always", nil, 50, false},
	{"cache1b", "alpha", "cache keys include the tenant id prefix", "always", nil, 50, false},
	{"cacheCtx", "alpha", "session tokens rotate every hour by default", "cache", nil, 50, false},
	{"cacheApplies", "alpha", "request logs keep seven days today", "", []string{"internal/cache/"}, 50, false},

	// Stems and prefixes.
	{"mig1", "alpha", "Write each migration as one file", "", nil, 50, false},
	{"mig2", "alpha", "Migrations run in lexical order", "", nil, 50, false},
	{"mig3", "alpha", "Avoid migrating during peak traffic", "", nil, 50, false},
	{"immigrant", "alpha", "Immigrant visas take months", "", nil, 50, false},
	{"runs", "alpha", "The scheduler runs jobs serially", "", nil, 50, false},

	// The same five tokens, "goroutine" in a different column each.
	{"inPattern", "alpha", "goroutine leak detection", "general note", nil, 50, false},
	{"inContext", "alpha", "general note", "goroutine leak detection", nil, 50, false},
	{"inApplies", "alpha", "general note", "", []string{"goroutine/leak/detection"}, 50, false},

	// Identical learnings (on different items): equal in every score.
	{"twin1", "alpha", "flaky network test", "", nil, 50, false},
	{"twin2", "alpha", "flaky network test", "", nil, 50, false},
	{"twin3", "alpha", "flaky network test", "", nil, 50, false},

	// Any word may match; matching more of them ranks higher.
	{"pg", "alpha", "Postgres needs an index here", "", nil, 50, false},
	{"vacuum", "alpha", "Vacuum tables after bulk deletes", "", nil, 50, false},
	{"both", "alpha", "Postgres vacuum blocks schema changes", "", nil, 50, false},

	// Quality and verification.
	{"qLow", "alpha", "quality low unverified", "", nil, 30, false},
	{"qLowVerified", "alpha", "quality low verified", "", nil, 10, true},
	{"qEdge", "alpha", "quality exactly at threshold", "", nil, 60, false},
	{"qHigh", "alpha", "quality high", "", nil, 90, false},

	// Projects.
	{"invAlpha", "alpha", "stale invalidation in alpha", "", nil, 50, false},
	{"invBeta", "beta", "stale invalidation in beta", "", nil, 50, false},
	{"invGamma", "gamma", "stale invalidation in gamma", "", nil, 50, false},

	// Unrelated learnings, so the words searched for are not everywhere.
	{"filler1", "beta", "filler note number one about nothing", "", nil, 50, false},
	{"filler2", "beta", "filler note number two about nothing", "", nil, 50, false},
	{"filler3", "gamma", "filler note number three about nothing", "", nil, 50, false},
	{"filler4", "gamma", "filler note number four about nothing", "", nil, 50, false},
}

// learnStore records the corpus in projects alpha, beta and gamma, in the
// order of learnCorpus (so older learnings come first), and returns the
// store with each learning's id by name.
func learnStore(t *testing.T, open func(t *testing.T) baton.Store) (*env, map[string]string) {
	t.Helper()
	e := newEnv(t, open)
	for _, p := range [][2]string{{"alpha", "AL"}, {"beta", "BE"}, {"gamma", "GA"}} {
		e.project(p[0], p[1])
	}
	ids := map[string]string{}
	for _, d := range learnCorpus {
		n := learnTokens(d.pattern) + learnTokens(d.context) + learnTokens(strings.Join(d.appliesTo, " "))
		if strings.HasPrefix(d.name, "cache") && n != 8 {
			t.Fatalf("corpus %s has %d tokens; the cache group assumes 8 each", d.name, n)
		}
		it := e.create(newItem(d.project, d.name))
		l := &baton.Learning{ItemID: it.ID, Pattern: d.pattern, Context: d.context, AppliesTo: d.appliesTo,
			Type: "pattern", QualityScore: d.quality, Verified: d.verified, CreatedBy: "agent-alice"}
		e.update(func(tx baton.Tx) error { return tx.AddLearning(e.ctx, l) })
		if l.ID == "" || l.Project != d.project {
			t.Fatalf("AddLearning(%s) assigned id %q, project %q", d.name, l.ID, l.Project)
		}
		ids[d.name] = l.ID
	}
	return e, ids
}

// learnTokens counts words as the full-text indexes split them.
func learnTokens(s string) int {
	return len(strings.FieldsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}))
}

func (e *env) searchLearnings(q baton.LearningQuery) []baton.LearningHit {
	e.t.Helper()
	var hits []baton.LearningHit
	e.view(func(tx baton.Tx) (err error) { hits, err = tx.SearchLearnings(e.ctx, q); return err })
	if hits == nil {
		e.t.Fatalf("SearchLearnings(%+v) returned nil, want a non-nil slice", q)
	}
	return hits
}

// hitNames maps hits back to corpus names.
func hitNames(hits []baton.LearningHit, ids map[string]string) []string {
	byID := map[string]string{}
	for n, id := range ids {
		byID[id] = n
	}
	out := []string{}
	for _, h := range hits {
		n, ok := byID[h.Learning.ID]
		if !ok {
			n = h.Learning.ID
		}
		out = append(out, n)
	}
	return out
}

// wantGroups checks that hits are the groups in order, each group's
// members in any order among themselves.
func wantGroups(t *testing.T, what string, hits []baton.LearningHit, ids map[string]string, groups ...[]string) {
	t.Helper()
	got := hitNames(hits, ids)
	var want []string
	for _, g := range groups {
		want = append(want, g...)
	}
	all := fmt.Sprint(groups)
	ok := len(got) == len(want)
	for i := 0; ok && len(groups) > 0; {
		g := groups[0]
		ok = slices.Equal(sorted(got[i:i+len(g)]), sorted(g))
		i, groups = i+len(g), groups[1:]
	}
	if !ok {
		t.Errorf("%s = %v, want %v (groups in that order, members of a group in any order)", what, got, all)
	}
}

func alphaQuery(text string) baton.LearningQuery {
	return baton.LearningQuery{Text: text, Project: "alpha"}
}

func learnNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func testLearningsRareWord(t *testing.T, open func(t *testing.T) baton.Store) {
	e, ids := learnStore(t, open)
	hits := e.searchLearnings(alphaQuery("zeppelin"))
	wantGroups(t, "zeppelin", hits, ids, []string{"rare"})
	if len(hits) == 1 {
		h := hits[0]
		if h.BM25 != 1 || h.MatchedField != "pattern" || h.FieldPriority != 1 || !learnNear(h.Rank, 0.5+0.3+0.2*0.5) {
			t.Errorf("only hit: bm25 %v field %s (%v) rank %v, want 1, pattern (1), 0.9", h.BM25, h.MatchedField, h.FieldPriority, h.Rank)
		}
		l := h.Learning
		if l.ItemID == "" || l.Project != "alpha" || l.Pattern != "Zeppelin hangars need wide doors" || l.Type != "pattern" ||
			l.QualityScore != 50 || l.Verified || l.CreatedBy != "agent-alice" || l.AppliesTo == nil || len(l.AppliesTo) != 0 {
			t.Errorf("hit learning = %+v", l)
		}
	}
	// A word matching nothing does not stop another from matching.
	wantGroups(t, "zeppelins hangarz", e.searchLearnings(alphaQuery("zeppelins hangarz")), ids, []string{"rare"})
	// tsquery's operators are only separators; FTS5's are the query
	// syntax (search.go, issue 12 point 16).
	wantGroups(t, "text with operators", e.searchLearnings(alphaQuery(`"zeppelin" AND (hangars) | !doors & wide:`)), ids,
		[]string{"rare"})
	for _, text := range []string{"", "  ", "nomatchword"} {
		if got := e.searchLearnings(alphaQuery(text)); len(got) != 0 {
			t.Errorf("search %q = %v, want none", text, hitNames(got, ids))
		}
	}
}

// cacheGroups is the expected order of the cache learnings: three times
// in the pattern beats once; at equal relevance the field decides.
var cacheGroups = [][]string{{"cache3"}, {"cache1a", "cache1b"}, {"cacheCtx"}, {"cacheApplies"}}

func testLearningsCommonWord(t *testing.T, open func(t *testing.T) baton.Store) {
	e, ids := learnStore(t, open)
	hits := e.searchLearnings(alphaQuery("cache"))
	wantGroups(t, "cache", hits, ids, cacheGroups...)
	if len(hits) == 5 {
		for i, w := range []struct {
			field    string
			priority float64
		}{{"pattern", 1}, {"pattern", 1}, {"pattern", 1}, {"context", 0.6}, {"applies_to", 0.3}} {
			if h := hits[i]; h.MatchedField != w.field || h.FieldPriority != w.priority {
				t.Errorf("cache hit %d: field %s (%v), want %s (%v)", i, h.MatchedField, h.FieldPriority, w.field, w.priority)
			}
		}
		// Relevance is scaled within the hits: the best 1, the worst 0.
		if hits[0].BM25 != 1 || hits[4].BM25 != 0 {
			t.Errorf("cache bm25 %v .. %v, want 1 .. 0", hits[0].BM25, hits[4].BM25)
		}
		if hits[1].BM25 != hits[2].BM25 || hits[1].Rank != hits[2].Rank {
			t.Errorf("cache1a/cache1b score %v/%v and %v/%v, want equal", hits[1].BM25, hits[1].Rank, hits[2].BM25, hits[2].Rank)
		}
		if !learnNear(hits[0].Rank, 0.5+0.3+0.2*0.5) {
			t.Errorf("cache3 rank %v, want 0.9", hits[0].Rank)
		}
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Rank > hits[i-1].Rank {
			t.Errorf("hits out of rank order at %d: %v > %v", i, hits[i].Rank, hits[i-1].Rank)
		}
	}
	// Any word may match, and matching more of them ranks first.
	hits = e.searchLearnings(alphaQuery("postgres, vacuum?"))
	wantGroups(t, "postgres vacuum", hits, ids, []string{"both"}, []string{"pg", "vacuum"})
	if len(hits) == 3 && (hits[0].BM25 != 1 || hits[2].BM25 != 0) {
		t.Errorf("postgres vacuum: bm25 %v first, %v last, want 1 and 0", hits[0].BM25, hits[2].BM25)
	}
}

func testLearningsPrefix(t *testing.T, open func(t *testing.T) baton.Store) {
	e, ids := learnStore(t, open)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"migr", []string{"mig1", "mig2", "mig3"}}, // not "Immigrant": a prefix, not a substring
		{"MIGR", []string{"mig1", "mig2", "mig3"}},
		// Longer than the stem (migrat): only the written words match.
		{"migratio", []string{"mig1", "mig2"}},
		{"migrati", []string{"mig1", "mig2", "mig3"}},
		{"zepp", []string{"rare"}},
		{"runn", nil},
		{"goroutin", []string{"inPattern", "inContext", "inApplies"}},
	} {
		hits := e.searchLearnings(alphaQuery(tc.text))
		if tc.text == "goroutin" {
			wantGroups(t, tc.text, hits, ids, []string{"inPattern"}, []string{"inContext"}, []string{"inApplies"})
			continue
		}
		wantGroups(t, tc.text, hits, ids, tc.want)
	}
}

func testLearningsStemmed(t *testing.T, open func(t *testing.T) baton.Store) {
	e, ids := learnStore(t, open)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"MIGRATIONS", []string{"mig1", "mig2", "mig3"}},
		{"migrated", []string{"mig1", "mig2", "mig3"}},
		{"migrating", []string{"mig1", "mig2", "mig3"}},
		{"running", []string{"mig2", "runs"}}, // "run" and "runs"
		{"run", []string{"mig2", "runs"}},
		{"zeppelins", []string{"rare"}},
	} {
		wantGroups(t, tc.text, e.searchLearnings(alphaQuery(tc.text)), ids, tc.want)
	}
	// A stemmed form ranks like the word itself.
	wantGroups(t, "caching", e.searchLearnings(alphaQuery("caching")), ids, cacheGroups...)
	wantGroups(t, "goroutines", e.searchLearnings(alphaQuery("goroutines")), ids,
		[]string{"inPattern"}, []string{"inContext"}, []string{"inApplies"})
}

func testLearningsColumnPriority(t *testing.T, open func(t *testing.T) baton.Store) {
	e, ids := learnStore(t, open)
	// The same tokens in every learning, "goroutine" in another column
	// each: relevance ties, the field decides.
	hits := e.searchLearnings(alphaQuery("goroutine leaks"))
	wantGroups(t, "goroutine leaks", hits, ids, []string{"inPattern"}, []string{"inContext"}, []string{"inApplies"})
	if len(hits) != 3 {
		return
	}
	for i, w := range []struct {
		field    string
		priority float64
	}{{"pattern", 1}, {"context", 0.6}, {"applies_to", 0.3}} {
		h := hits[i]
		if h.MatchedField != w.field || h.FieldPriority != w.priority {
			t.Errorf("hit %d: field %s (%v), want %s (%v)", i, h.MatchedField, h.FieldPriority, w.field, w.priority)
		}
		if h.BM25 != 1 {
			t.Errorf("hit %d: bm25 %v, want 1 (equally relevant hits all score 1)", i, h.BM25)
		}
		if want := 0.5 + 0.3*w.priority + 0.2*0.5; !learnNear(h.Rank, want) {
			t.Errorf("hit %d: rank %v, want %v", i, h.Rank, want)
		}
	}
	if !slices.Equal(hits[2].Learning.AppliesTo, []string{"goroutine/leak/detection"}) {
		t.Errorf("applies_to read back as %q", hits[2].Learning.AppliesTo)
	}
	// Identical learnings tie on every score: the older one comes first,
	// and a limit keeps the oldest.
	hits = e.searchLearnings(alphaQuery("flaky"))
	if got := hitNames(hits, ids); !slices.Equal(got, []string{"twin1", "twin2", "twin3"}) {
		t.Errorf("identical learnings = %v, want oldest first [twin1 twin2 twin3]", got)
	}
	q := alphaQuery("flaky")
	q.Limit = 2
	if got := hitNames(e.searchLearnings(q), ids); !slices.Equal(got, []string{"twin1", "twin2"}) {
		t.Errorf("identical learnings, limit 2 = %v, want [twin1 twin2]", got)
	}
}

func testLearningsMinQuality(t *testing.T, open func(t *testing.T) baton.Store) {
	e, ids := learnStore(t, open)
	for _, tc := range []struct {
		min  int
		want []string
	}{
		{0, []string{"qLow", "qLowVerified", "qEdge", "qHigh"}},
		{30, []string{"qLow", "qLowVerified", "qEdge", "qHigh"}},
		{31, []string{"qLowVerified", "qEdge", "qHigh"}},
		{60, []string{"qLowVerified", "qEdge", "qHigh"}}, // at the threshold passes; verified always
		{61, []string{"qLowVerified", "qHigh"}},
		{100, []string{"qLowVerified"}},
	} {
		q := alphaQuery("quality")
		q.MinQualityScore = tc.min
		hits := e.searchLearnings(q)
		wantGroups(t, fmt.Sprintf("quality, min %d", tc.min), hits, ids, tc.want)
		// The shortest learning with the best score leads on any backend.
		if tc.min < 100 && len(hits) > 0 && hitNames(hits, ids)[0] != "qHigh" {
			t.Errorf("quality, min %d: first %v, want qHigh", tc.min, hitNames(hits, ids)[0])
		}
		for _, h := range hits {
			if h.Learning.ID == ids["qLowVerified"] && (!h.Learning.Verified || h.Learning.QualityScore != 10) {
				t.Errorf("verified learning reads back as %+v", h.Learning)
			}
		}
	}
}

func testLearningsProjectFilter(t *testing.T, open func(t *testing.T) baton.Store) {
	e, ids := learnStore(t, open)
	for _, tc := range []struct {
		name string
		q    baton.LearningQuery
		want []string
	}{
		{"project", baton.LearningQuery{Text: "invalidation", Project: "alpha"}, []string{"invAlpha"}},
		{"other project", baton.LearningQuery{Text: "invalidation", Project: "beta"}, []string{"invBeta"}},
		{"cross project excludes the current one", baton.LearningQuery{Text: "invalidation", Project: "alpha", CrossProject: true},
			[]string{"invBeta", "invGamma"}},
		{"no project", baton.LearningQuery{Text: "invalidation"}, []string{"invAlpha", "invBeta", "invGamma"}},
		{"unknown project", baton.LearningQuery{Text: "invalidation", Project: "nope"}, nil},
		{"filler only in beta and gamma", baton.LearningQuery{Text: "filler", Project: "alpha"}, nil},
		{"filler cross project", baton.LearningQuery{Text: "filler", Project: "alpha", CrossProject: true},
			[]string{"filler1", "filler2", "filler3", "filler4"}},
	} {
		hits := e.searchLearnings(tc.q)
		wantGroups(t, tc.name, hits, ids, tc.want)
		for _, h := range hits {
			if tc.q.Project != "" && (h.Learning.Project == tc.q.Project) == tc.q.CrossProject {
				t.Errorf("%s: hit %s of project %s", tc.name, h.Learning.ID, h.Learning.Project)
			}
		}
	}
}
