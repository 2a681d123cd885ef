package vault_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/embedding"
)

// corpus is sym's knowledge: files of its directory, added with
// vault_update. Each entry's query is words the document holds.
var corpus = []struct{ path, content, query string }{
	{"docs/retry.md", retryDoc, "retry with exponential backoff and jitter"},
	{"docs/cache.md", "# Caching\n\nThe product catalogue is cached in Redis for ten minutes; invalidate the key on every price change.\n",
		"catalogue cached in Redis"},
	{"docs/deploy.md", "# Deployment\n\nDeploy with the blue-green strategy: bring up the new fleet, switch the load balancer, keep the old fleet for an hour.\n",
		"blue-green deployment load balancer"},
	{"docs/logging.md", "# Logging\n\nLog every request as one JSON line with the trace id, the latency in milliseconds and the status code.\n",
		"log the trace id and latency"},
	{"notes/cats.md", "My cat sleeps on the sofa all afternoon and chases birds in the garden at dusk.\n",
		"cat sleeps on the sofa"},
	{"docs/schema.md", "# Database schema\n\nEvery table has a created_at timestamp column and a surrogate bigint primary key.\n",
		"database table primary key"},
	{"docs/tests.md", "# Testing\n\nUnit tests run with go test; integration tests need a PostgreSQL server on port 5432.\n",
		"integration tests PostgreSQL"},
	{"docs/runbook.md", runbookDoc, "escalate the incident to the duty manager"},
}

// runbookDoc is long enough to be cut into chunks by section: the second
// chunk, the Incidents section, has the breadcrumb "Operations runbook".
var runbookDoc = "# Operations runbook\n\n## Payments\n\n" +
	strings.Repeat("Payments settle overnight through the clearing house and reconcile against the ledger by morning. ", 9) +
	"\n\n## Incidents\n\n" +
	strings.Repeat("When an outage lasts more than thirty minutes, escalate the incident to the duty manager by phone. ", 9) + "\n"

// loaded is f with the corpus added through vault_update.
func loaded(t *testing.T) *fx {
	f := setup(t)
	for _, d := range corpus {
		f.write(f.root, d.path, d.content)
		f.k.OK("vault_update", map[string]any{"path": d.path})
	}
	return f
}

// TestSearchKnowledgeRanks: an exact query ranks the document holding it
// first, with the fields a client needs.
func TestSearchKnowledgeRanks(t *testing.T) {
	f := loaded(t)
	for _, d := range corpus {
		rs := results(t, f.k.OK("search_knowledge", map[string]any{"query": d.query}))
		if len(rs) == 0 || rs[0]["source"] != d.path {
			t.Errorf("search_knowledge(%q) = %v, want %s first", d.query, sources(rs), d.path)
			continue
		}
		top := rs[0]
		version := f.doc(symSpace, d.path).Version
		score, _ := top["score"].(float64)
		chunk := 0.0
		if d.path == "docs/runbook.md" {
			chunk = 1 // the Incidents section
		}
		if top["version_id"] != version || top["chunk_index"] != chunk || top["scope"] != baton.ScopeProject ||
			top["keyword_match"] != true || score < 0.3 || score > 1 || top["rank_score"] == nil || top["similarity"] == nil {
			t.Errorf("search_knowledge(%q) top hit = %v", d.query, top)
		}
		first := strings.Fields(d.query)[0]
		if !strings.Contains(strings.ToLower(top["snippet"].(string)), strings.ToLower(first)) {
			t.Errorf("snippet %q lacks %q", top["snippet"], first)
		}
		// Hybrid rank order: the rank score never rises down the list.
		for i := 1; i < len(rs); i++ {
			if rs[i]["rank_score"].(float64) > rs[i-1]["rank_score"].(float64) {
				t.Errorf("search_knowledge(%q): results out of rank order: %v", d.query, rs)
			}
		}
	}
	// The breadcrumb of a chunk under headings, and a chunk past the first.
	rs := results(t, f.k.OK("search_knowledge", map[string]any{"query": "escalate the incident to the duty manager"}))
	if len(rs) == 0 || rs[0]["source"] != "docs/runbook.md" || rs[0]["chunk_index"] != float64(1) ||
		rs[0]["context"] != "Operations runbook" {
		t.Fatalf("search in a sectioned document = %v", rs)
	}
	// The snippet is a snippet: at most 300 characters of a longer chunk.
	if n := len([]rune(rs[0]["snippet"].(string))); n > 300 || n == 0 {
		t.Fatalf("snippet of %d characters", n)
	}
}

// TestSearchKnowledgeMinScore: the default 0.3 keeps the hits that hold
// the query's words and drops chunks that share nothing with it; min_score
// 0 keeps every ranked chunk; every result reaches the threshold asked.
func TestSearchKnowledgeMinScore(t *testing.T) {
	f := loaded(t)
	// A query of words no document holds and the model does not know:
	// no similarity, no keyword, nothing at the default threshold.
	none := results(t, f.k.OK("search_knowledge", map[string]any{"query": "qzxv wqpt"}))
	if len(none) != 0 {
		t.Fatalf("nonsense query at the default min_score = %v", none)
	}
	all := results(t, f.k.OK("search_knowledge", map[string]any{"query": "qzxv wqpt", "min_score": 0}))
	if len(all) != 5 {
		t.Fatalf("nonsense query at min_score 0 = %d results, want top_k 5", len(all))
	}
	for _, r := range all {
		if r["score"] != float64(0) {
			t.Fatalf("a chunk sharing nothing with the query scores %v", r["score"])
		}
	}
	// A real query: the default keeps the right document, min_score 0
	// keeps more, and each threshold holds.
	q := "catalogue cached in Redis"
	def := results(t, f.k.OK("search_knowledge", map[string]any{"query": q}))
	loose := results(t, f.k.OK("search_knowledge", map[string]any{"query": q, "min_score": 0, "top_k": 20}))
	if len(def) == 0 || def[0]["source"] != "docs/cache.md" || len(loose) <= len(def) {
		t.Fatalf("min_score 0.3: %v; min_score 0: %v", sources(def), sources(loose))
	}
	for _, min := range []float64{0.3, 0.5, 0.7} {
		rs := results(t, f.k.OK("search_knowledge", map[string]any{"query": q, "min_score": min, "top_k": 20}))
		want := 0
		for _, r := range loose {
			if r["score"].(float64) >= min {
				want++
			}
		}
		if len(rs) != want {
			t.Errorf("min_score %v: %d results, want the %d of %v scoring at least that", min, len(rs), want, loose)
		}
		for _, r := range rs {
			if r["score"].(float64) < min {
				t.Errorf("min_score %v kept %v", min, r)
			}
		}
	}
	// The whole scale is 0..1.
	f.k.Fail("search_knowledge", map[string]any{"query": q, "min_score": 1.5}, baton.ErrInvalidInput)
	f.k.Fail("search_knowledge", map[string]any{"query": q, "min_score": -0.1}, baton.ErrInvalidInput)
}

// TestSearchKnowledgeTopK: 5 by default, at most 20.
func TestSearchKnowledgeTopK(t *testing.T) {
	f := loaded(t)
	for i := range 20 {
		f.put(symSpace, fmt.Sprintf("bulk/note-%02d.md", i), fmt.Sprintf("Deployment note %d: the load balancer drains connections first.\n", i))
	}
	q := map[string]any{"query": "deployment load balancer", "min_score": 0}
	if rs := results(t, f.k.OK("search_knowledge", q)); len(rs) != 5 {
		t.Fatalf("default top_k: %d results", len(rs))
	}
	for _, k := range []int{1, 7, 20} {
		q["top_k"] = k
		if rs := results(t, f.k.OK("search_knowledge", q)); len(rs) != k {
			t.Fatalf("top_k %d: %d results", k, len(rs))
		}
	}
	for _, bad := range []any{21, 0, -1, 2.5} {
		q["top_k"] = bad
		f.k.Fail("search_knowledge", q, baton.ErrInvalidInput)
	}
	f.k.Fail("search_knowledge", map[string]any{"query": ""}, baton.ErrInvalidInput)
	f.k.Fail("search_knowledge", map[string]any{"query": "   "}, baton.ErrInvalidInput)
	f.k.Fail("search_knowledge", map[string]any{"query": strings.Repeat("x ", 2001)}, baton.ErrInvalidInput)
	f.k.Fail("search_knowledge", map[string]any{}, baton.ErrInvalidInput)
}

// TestVaultRetrieve: vector-only ranking by cosine, whole chunks, metadata.
func TestVaultRetrieve(t *testing.T) {
	f := loaded(t)
	out := f.k.OK("vault_retrieve", map[string]any{"query": "payment gateway retry with exponential backoff"})
	rs := results(t, out)
	if out["model"] != embedding.BuiltinModel || len(rs) == 0 || len(rs) > 5 || rs[0]["path"] != "docs/retry.md" {
		t.Fatalf("vault_retrieve = %v", out)
	}
	top := rs[0]
	d := f.doc(symSpace, "docs/retry.md")
	text := top["text"].(string)
	// The whole chunk, not a snippet: its last sentence too.
	if len(text) <= 300 || !strings.Contains(text, "Give up after the fifth attempt") || !strings.Contains(d.Content, strings.TrimSpace(text)) {
		t.Fatalf("text = %q", text)
	}
	meta := top["metadata"].(map[string]any)
	if meta["version_id"] != d.Version || meta["chunk_index"] != float64(0) || meta["mime"] != "text/markdown" ||
		meta["heading"] != "" || meta["scope"] != baton.ScopeProject || meta["source_path"] != "docs/retry.md" {
		t.Fatalf("metadata = %v", meta)
	}
	if start, end := meta["start"].(float64), meta["end"].(float64); d.Content[int(start):int(end)] != text {
		t.Fatalf("offsets %v..%v do not frame the text", start, end)
	}
	// Cosine scores, best first, all positive.
	for i, r := range rs {
		s := r["score"].(float64)
		if s <= 0 || s > 1 || (i > 0 && s > rs[i-1]["score"].(float64)) {
			t.Fatalf("scores out of order or range: %v", rs)
		}
	}
	// A later chunk under headings: its own text, index and breadcrumb.
	rs = results(t, f.k.OK("vault_retrieve", map[string]any{"query": "outage escalate incident duty manager phone"}))
	if len(rs) == 0 || rs[0]["path"] != "docs/runbook.md" {
		t.Fatalf("vault_retrieve of the runbook = %v", rs)
	}
	meta = rs[0]["metadata"].(map[string]any)
	if meta["chunk_index"] != float64(1) || meta["heading"] != "Operations runbook" ||
		!strings.HasPrefix(rs[0]["text"].(string), "## Incidents") || strings.Contains(rs[0]["text"].(string), "clearing house") {
		t.Fatalf("runbook chunk = %v", rs[0])
	}
	// Only vectors count: a word the model does not know finds nothing,
	// even where it occurs.
	f.write(f.root, "docs/codes.md", "The rollout flag is named qzxvwq in the configuration.\n")
	f.k.OK("vault_update", map[string]any{"path": "docs/codes.md"})
	if rs := results(t, f.k.OK("vault_retrieve", map[string]any{"query": "qzxvwq"})); len(rs) != 0 {
		t.Fatalf("vault_retrieve of an unknown word = %v", rs)
	}
	if rs := results(t, f.k.OK("search_knowledge", map[string]any{"query": "qzxvwq"})); len(rs) != 1 || rs[0]["source"] != "docs/codes.md" {
		t.Fatalf("search_knowledge of the same word (keyword side) = %v", rs)
	}
	// top_k: at most 50.
	all := results(t, f.k.OK("vault_retrieve", map[string]any{"query": "deployment tests logging cache", "top_k": 50}))
	if len(all) < len(corpus) || len(all) > 50 {
		t.Fatalf("top_k 50: %d results", len(all))
	}
	if rs := results(t, f.k.OK("vault_retrieve", map[string]any{"query": "deployment", "top_k": 2})); len(rs) != 2 {
		t.Fatalf("top_k 2: %d results", len(rs))
	}
	f.k.Fail("vault_retrieve", map[string]any{"query": "deployment", "top_k": 51}, baton.ErrInvalidInput)
	f.k.Fail("vault_retrieve", map[string]any{"query": "deployment", "top_k": 0}, baton.ErrInvalidInput)
	f.k.Fail("vault_retrieve", map[string]any{"query": strings.Repeat("y", 4001)}, baton.ErrInvalidInput)
}

// TestSearchScope: a project session finds its project's and the global
// knowledge, never another project's.
func TestSearchScope(t *testing.T) {
	f := setup(t)
	f.put(globalSpace, "handbook/oncall.md", "# On-call\n\nThe on-call engineer answers pager alerts within fifteen minutes.\n")
	f.put(otherSpace, "secret/roadmap.md", "# Roadmap\n\nThe pager alerts rewrite ships in the spring with fifteen new dashboards.\n")
	f.write(f.root, "docs/pager.md", "# Pager\n\nPager alerts go to the on-call rotation through the paging service.\n")
	f.k.OK("vault_update", map[string]any{"path": "docs/pager.md"})
	// A global document at a path the project holds is hidden by it.
	f.put(globalSpace, "docs/pager.md", "# Pager\n\nPager alerts of every project reach the central desk within fifteen minutes.\n")

	for _, name := range []string{"search_knowledge", "vault_retrieve"} {
		rs := results(t, f.k.OK(name, map[string]any{"query": "pager alerts fifteen minutes", "top_k": 20}))
		got := strings.Join(sources(rs), ",")
		if !strings.Contains(got, "handbook/oncall.md") || strings.Count(got, "docs/pager.md") != 1 || strings.Contains(got, "secret/roadmap.md") {
			t.Errorf("%s from a sym session = %s", name, got)
		}
		for _, r := range rs {
			scope := r["scope"]
			if m, ok := r["metadata"].(map[string]any); ok {
				scope = m["scope"]
			}
			want := baton.ScopeProject
			if sources([]map[string]any{r})[0] == "handbook/oncall.md" {
				want = baton.ScopeGlobal
			}
			if scope != want {
				t.Errorf("%s: %v has scope %v, want %s", name, sources([]map[string]any{r}), scope, want)
			}
		}
	}
	// A session of the other project sees its own and the global, not sym's.
	col := *f.k
	col.Principal.Project = "colibri"
	got := strings.Join(sources(results(t, col.OK("search_knowledge", map[string]any{"query": "pager alerts fifteen", "top_k": 20}))), ",")
	if !strings.Contains(got, "secret/roadmap.md") || !strings.Contains(got, "handbook/oncall.md") {
		t.Errorf("search_knowledge from a colibri session = %s", got)
	}
	// ... where docs/pager.md is the global one: colibri holds no such path.
	for _, r := range results(t, col.OK("search_knowledge", map[string]any{"query": "pager alerts fifteen", "top_k": 20})) {
		if r["source"] == "docs/pager.md" && r["scope"] != baton.ScopeGlobal {
			t.Errorf("colibri found sym's docs/pager.md: %v", r)
		}
	}
}
