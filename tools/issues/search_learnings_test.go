package issues_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// The ranking corpus. Every learning is exactly 32 tokens long (14 in the
// pattern, 16 in the context, 2 in applies_to), so FTS5's bm25 differs
// between them only by how often the stem "migrat" occurs; that is what
// lets the test name the exact order. Each lives on its own issue.
const (
	ctxPlain = "Applies whenever the service starts against a freshly created database file and version table is empty"
	ctxOnce  = "Applies whenever the service starts migrating a freshly created database file and version table is empty"
	ctxTwice = "Applies whenever the service starts migrating a freshly created database file and migrations table is empty"
)

type learningDoc struct{ name, pattern, context, appliesTo string }

var corpus = []learningDoc{
	// A: "migration" three times in the pattern.
	{"A", "Migration scripts: every migration must survive a rerun after a failed migration halfway through", ctxPlain, "db/schema/"},
	// B: once, in the pattern.
	{"B", "Migration order matters because the loader sorts files by name before it runs them", ctxPlain, "db/schema/"},
	// C: once, in the pattern, like B; its quality is raised to 100 below.
	{"C", "Keep each migration small since the reviewer reads every statement of the diff carefully", ctxPlain, "db/schema/"},
	// D: once, in the context only.
	{"D", "Schema changes ship behind a feature flag so the rollout can pause without redeploying", ctxOnce, "db/schema/"},
	// D2: twice, both in the context.
	{"D2", "Log lines carry the request id so support can trace one call across services", ctxTwice, "db/schema/"},
	// E: once, in applies_to only.
	{"E", "Seed data lives in fixtures and loads only in development, never on shared servers", ctxPlain, "db/migrations/"},
	// F: not at all.
	{"F", "Cache keys include the tenant id because two tenants share one Redis instance today", ctxPlain, "db/schema/"},
}

// tokens counts words as FTS5's unicode61 tokenizer splits them.
func tokens(s string) int {
	return len(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }))
}

// seedCorpus records the corpus on issues COL-1..COL-7 and returns the
// learning id of each name.
func seedCorpus(k *testkit.Kit) map[string]string {
	k.T.Helper()
	ids := map[string]string{}
	for _, c := range corpus {
		if n := tokens(c.pattern) + tokens(c.context) + tokens(c.appliesTo); n != 32 {
			k.T.Fatalf("corpus %s has %d tokens; the ranking below assumes 32 each", c.name, n)
		}
		id := issue(k, map[string]any{"title": c.name})
		ids[c.name] = k.OK("add_learning", map[string]any{"issue_id": id, "pattern": c.pattern, "context": c.context,
			"applies_to": []string{c.appliesTo}})["learning_id"].(string)
	}
	return ids
}

// setQuality changes a learning behind the tools' back: no tool scores or
// verifies learnings.
func setQuality(k *testkit.Kit, id string, score int, verified bool) {
	k.T.Helper()
	flag := 0 // verified is an integer 0/1 column on every backend
	if verified {
		flag = 1
	}
	k.Exec(`UPDATE learnings SET quality_score = ?, verified = ? WHERE id = ?`, score, flag, id)
}

// names maps the results of a search back to corpus names.
func names(t testing.TB, out map[string]any, ids map[string]string) []string {
	t.Helper()
	byID := map[string]string{}
	for n, id := range ids {
		byID[id] = n
	}
	var res []string
	for _, id := range column(t, out, "results", "id") {
		res = append(res, byID[id])
	}
	return res
}

func TestSearchLearningsRanking(t *testing.T) {
	k := testkit.New(t)
	ids := seedCorpus(k)
	setQuality(k, ids["C"], 100, false)

	out := k.OK("search_learnings", map[string]any{"query": "migrating"})
	// rank = 0.5*bm25 + 0.3*field + 0.2*quality/100, with bm25 scaled to
	// 0..1 among the matches (best 1, worst 0). "migrating" stems to
	// "migrat" and, as a prefix, matches migration(s) and migrating.
	//
	// bm25 per document is IDF * f(tf) with f(tf) = tf*(k1+1)/(tf+k1) at
	// equal lengths (FTS5: k1 = 1.2, b = 0.75): f(1) = 1, f(2) = 1.375,
	// f(3) = 1.5714. Scaled: A (tf 3) 1, D2 (tf 2) 0.375/0.5714 = 0.65625,
	// B, C, D, E (tf 1) 0. F does not match.
	//
	//   A  0.5*1       + 0.3*1   (pattern)    + 0.2*0.5 = 0.9
	//   D2 0.5*0.65625 + 0.3*0.6 (context)    + 0.2*0.5 = 0.608
	//   C  0           + 0.3*1   (pattern)    + 0.2*1.0 = 0.5
	//   B  0           + 0.3*1   (pattern)    + 0.2*0.5 = 0.4
	//   D  0           + 0.3*0.6 (context)    + 0.2*0.5 = 0.28
	//   E  0           + 0.3*0.3 (applies_to) + 0.2*0.5 = 0.19
	//
	// So relevance lifts D2's context match over the single pattern
	// matches, quality puts C before its twin B, and at equal relevance the
	// field decides pattern > context > applies_to.
	//
	// On PostgreSQL relevance is ts_rank (every weight 1, no length
	// normalisation), which grows with tf as the sum of 1/j^2 for j = 1..tf:
	// 1, 1.25, 1.3611. Scaled, D2 is 0.25/0.3611 = 0.692308, and ranks
	// 0.5*0.692308 + 0.18 + 0.1 = 0.626154; the order and every other score
	// are the same as on SQLite.
	equal(t, "order", names(t, out, ids), []string{"A", "D2", "C", "B", "D", "E"})
	d2BM25, d2Rank := 0.65625, 0.608125
	if k.Backend == "postgres" {
		d2BM25, d2Rank = 0.692308, 0.626154
	}
	want := map[string]struct {
		bm25, field, rank float64
		matched           string
	}{
		"A":  {1, 1, 0.9, "pattern"},
		"D2": {d2BM25, 0.6, d2Rank, "context"},
		"C":  {0, 1, 0.5, "pattern"},
		"B":  {0, 1, 0.4, "pattern"},
		"D":  {0, 0.6, 0.28, "context"},
		"E":  {0, 0.3, 0.19, "applies_to"},
	}
	results := list(t, out, "results")
	for i, n := range names(t, out, ids) {
		r, w := results[i], want[n]
		near := func(v any, x float64) bool { f, ok := v.(float64); return ok && math.Abs(f-x) < 1e-3 }
		if !near(r["bm25"], w.bm25) || !near(r["field_priority"], w.field) || !near(r["rank"], w.rank) || r["matched_field"] != w.matched {
			t.Errorf("%s: bm25 %v field %v (%v) rank %v, want %v %v (%s) %v", n, r["bm25"], r["field_priority"],
				r["matched_field"], r["rank"], w.bm25, w.field, w.matched, w.rank)
		}
		// The rank is the stated mix of its parts.
		q := float64(num(t, r["quality_score"])) / 100
		if mix := 0.5*r["bm25"].(float64) + 0.3*r["field_priority"].(float64) + 0.2*q; !near(r["rank"], mix) {
			t.Errorf("%s: rank %v is not 0.5*bm25 + 0.3*field + 0.2*quality = %v", n, r["rank"], mix)
		}
		// Learning i of the corpus was recorded on COL-(i+1).
		i := slices.IndexFunc(corpus, func(c learningDoc) bool { return c.name == n })
		if r["project"] != "colibri" || r["issue_id"] != fmt.Sprintf("COL-%d", i+1) {
			t.Errorf("%s: project/issue = %v/%v", n, r["project"], r["issue_id"])
		}
	}
	if out["count"] != 6.0 || out["scope"] != "colibri" {
		t.Errorf("count/scope = %v/%v", out["count"], out["scope"])
	}

	// A limit cuts the list without changing any score.
	top := k.OK("search_learnings", map[string]any{"query": "migrating", "limit": 2})
	equal(t, "top 2", names(t, top, ids), []string{"A", "D2"})
	equal(t, "top 2 ranks", column(t, top, "results", "rank"), column(t, out, "results", "rank")[:2])
}

func TestSearchLearningsMatching(t *testing.T) {
	k := testkit.New(t)
	ids := seedCorpus(k)
	matching := []string{"A", "B", "C", "D", "D2", "E"}
	for _, tc := range []struct {
		query string
		want  []string // sorted
	}{
		{"migrating", matching},
		{"migrations", matching}, // stemming: plural
		{"MIGRATED", matching},   // stemming, any case
		{"migr", matching},       // prefix
		// Prefixes of the written word longer than its stem ("migrat"),
		// answered by the unstemmed index. D only says "migrating", of which
		// "migratio" is no prefix; B says "runs", of which "runn" is none.
		{"migratio", []string{"A", "B", "C", "D2", "E"}},
		{"migrati", matching},
		{"runn", nil},
		{"running", []string{"B"}},
		{"runs", []string{"B"}}, // not A's "rerun": a prefix, not a substring
		{"tenants", []string{"F"}},
		{"tenant", []string{"F"}},
		{"redi", []string{"F"}},
		{"flag rollout", []string{"D"}},
		{"redis rollout", []string{"D", "F"}}, // any word may match
		{"seed/fixtures", []string{"E"}},      // punctuation separates words
		{"migrations OR redis", append(slices.Clone(matching), "F")},
		{"nothingmatchesthis", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got := names(t, k.OK("search_learnings", map[string]any{"query": tc.query}), ids)
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			equal(t, "matches", got, want)
		})
	}
	invalid(k, "search_learnings", map[string]any{"query": ""}, "query")
	invalid(k, "search_learnings", map[string]any{"query": "   "}, "query")
	invalid(k, "search_learnings", map[string]any{}, "query")
	invalid(k, "search_learnings", map[string]any{"query": "!!! ---"}, "query") // no words (point 16)
}

// min_quality_score drops learnings below it, but a verified learning
// always passes.
func TestSearchLearningsMinQuality(t *testing.T) {
	k := testkit.New(t)
	ids := seedCorpus(k)
	setQuality(k, ids["B"], 10, true)  // verified, low score
	setQuality(k, ids["E"], 30, false) // unverified, low score
	setQuality(k, ids["C"], 100, false)
	setQuality(k, ids["D"], 40, false) // exactly at the threshold below
	for _, tc := range []struct {
		min  int
		want []string // sorted
	}{
		{0, []string{"A", "B", "C", "D", "D2", "E"}},
		{30, []string{"A", "B", "C", "D", "D2", "E"}},
		{31, []string{"A", "B", "C", "D", "D2"}},
		{40, []string{"A", "B", "C", "D", "D2"}},
		{41, []string{"A", "B", "C", "D2"}},
		{51, []string{"B", "C"}},
		{100, []string{"B", "C"}},
	} {
		t.Run(fmt.Sprint(tc.min), func(t *testing.T) {
			out := k.OK("search_learnings", map[string]any{"query": "migrating", "min_quality_score": tc.min})
			got := names(t, out, ids)
			slices.Sort(got)
			equal(t, "results", got, tc.want)
			for _, r := range list(t, out, "results") {
				if r["id"] == ids["B"] && (r["verified"] != true || num(t, r["quality_score"]) != 10) {
					t.Errorf("verified learning reads as %v", r)
				}
			}
		})
	}
	invalid(k, "search_learnings", map[string]any{"query": "x", "min_quality_score": 101}, "min_quality_score")
	invalid(k, "search_learnings", map[string]any{"query": "x", "min_quality_score": -1}, "min_quality_score")
}

func TestSearchLearningsCrossProject(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	k.AddProject("third", "THR")
	k.Principal.Project = "colibri"
	learn := func(project, pattern string) string {
		id := issue(k, map[string]any{"project": project})
		return k.OK("add_learning", map[string]any{"issue_id": id, "pattern": pattern})["learning_id"].(string)
	}
	col := learn("colibri", "Retry the webhook delivery with exponential backoff capped at five minutes")
	oth := learn("other", "Retry flaky network calls in the importer, but never retry a 4xx response")
	thr := learn("third", "Retries hide bugs: log every retried request with its attempt number")
	learn("other", "Unrelated learning about pagination cursors that never mentions the query")

	out := k.OK("search_learnings", map[string]any{"query": "retry"})
	equal(t, "current project", column(t, out, "results", "id"), []string{col})
	if out["scope"] != "colibri" {
		t.Errorf("scope = %v", out["scope"])
	}
	out = k.OK("search_learnings", map[string]any{"query": "retry", "cross_project": true})
	got := column(t, out, "results", "id")
	slices.Sort(got)
	equal(t, "other projects", got, []string{oth, thr})
	if out["scope"] != "all projects but colibri" {
		t.Errorf("scope = %v", out["scope"])
	}
	for _, r := range list(t, out, "results") {
		if r["project"] == "colibri" {
			t.Errorf("cross_project returned a colibri learning %v", r)
		}
	}
	// From another project's session the current project is that one.
	o := *k
	o.Principal.Project = "other"
	out = o.OK("search_learnings", map[string]any{"query": "retry"})
	equal(t, "other's own", column(t, out, "results", "id"), []string{oth})
	fail(&o, "search_learnings", map[string]any{"query": "retry", "project": "third"}, baton.ErrInvalidInput)
}

func TestSearchLearningsLimit(t *testing.T) {
	k := testkit.New(t)
	id := issue(k, nil)
	for i := range 105 {
		k.OK("add_learning", map[string]any{"issue_id": id,
			"pattern": fmt.Sprintf("Backoff rule number %d: wait before retrying so the upstream service can recover", i)})
	}
	for _, tc := range []struct {
		args map[string]any
		want int
	}{
		{map[string]any{}, 50},
		{map[string]any{"limit": 1}, 1},
		{map[string]any{"limit": 100}, 100},
	} {
		tc.args["query"] = "backoff"
		out := k.OK("search_learnings", tc.args)
		if n := len(list(t, out, "results")); n != tc.want || num(t, out["count"]) != tc.want {
			t.Errorf("search_learnings(%v) = %d results (count %v), want %d", tc.args, n, out["count"], tc.want)
		}
	}
	for _, l := range []int{0, 101, -1} {
		invalid(k, "search_learnings", map[string]any{"query": "backoff", "limit": l}, "limit")
	}
}
