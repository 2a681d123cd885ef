package membot_test

import (
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// searchCorpus writes a few documents on distinct topics.
func searchCorpus(k *testkit.Kit) {
	k.T.Helper()
	put(k, "ops/retries.md", "# Retries\n\nThe HTTP client retries failed requests with exponential backoff and jitter.")
	put(k, "ops/deploy.md", "# Deploys\n\nWe deploy the service on Fridays after the database migration runs.")
	put(k, "kitchen/recipes.md", "# Recipes\n\nBake the bread at a high oven temperature until the crust is golden.")
}

// TestSearchModes: a keyword pattern, a natural-language query, or both
// find the document about it first; hits carry membot's fields; keyword
// mode has no semantic score, semantic mode no keyword score; nothing is
// reranked.
func TestSearchModes(t *testing.T) {
	k := testkit.New(t)
	searchCorpus(k)
	for _, tc := range []struct {
		args            map[string]any
		mode            string
		semantic, keywd bool
	}{
		{map[string]any{"pattern": "backoff"}, "hybrid", true, true},
		{map[string]any{"query": "bread oven crust"}, "hybrid", true, true},
		{map[string]any{"query": "bread oven crust", "pattern": "crust"}, "hybrid", true, true},
		{map[string]any{"pattern": "backoff", "mode": "keyword"}, "keyword", false, true},
		{map[string]any{"query": "database migration deploy", "mode": "semantic"}, "semantic", true, false},
	} {
		d := data(k, "membot_search", tc.args)
		eq(t, "mode", d["mode"], tc.mode)
		eq(t, "reranked", d["reranked"], false)
		hits, _ := d["hits"].([]any)
		if len(hits) == 0 {
			t.Fatalf("search %v found nothing", tc.args)
		}
		top := hits[0].(map[string]any)
		want := map[string]string{"backoff": "ops/retries.md", "bread": "kitchen/recipes.md", "crust": "kitchen/recipes.md", "database": "ops/deploy.md"}
		text, _ := tc.args["query"].(string)
		if text == "" {
			text = tc.args["pattern"].(string)
		}
		if w := want[strings.Fields(text)[0]]; top["logical_path"] != w {
			t.Errorf("search %v: top hit %v, want %s", tc.args, top["logical_path"], w)
		}
		if _, ok := top["version_id"].(string); !ok || top["chunk_index"] != 0.0 {
			t.Errorf("hit fields: %v", top)
		}
		if s, _ := top["score"].(float64); s <= 0 || s > 1 {
			t.Errorf("score %v outside (0, 1]", top["score"])
		}
		if sn, _ := top["snippet"].(string); sn == "" || len([]rune(sn)) > 300 {
			t.Errorf("snippet %q", sn)
		}
		_, hasSem := top["semantic_score"]
		_, hasKey := top["keyword_score"]
		if tc.mode != "hybrid" && (hasSem != tc.semantic || hasKey != tc.keywd) {
			t.Errorf("%s mode: semantic_score %v, keyword_score %v", tc.mode, hasSem, hasKey)
		}
		if _, ok := top["rerank_score"]; ok {
			t.Errorf("rerank_score set: %v", top)
		}
	}
	// rerank is accepted and changes nothing.
	eq(t, "rerank", data(k, "membot_search", map[string]any{"pattern": "backoff", "rerank": true})["reranked"], false)
}

// TestSearchFilters: path_prefix is a raw, normalised prefix; limit caps
// the hits; deleted documents are not found; include_history finds the
// text of an older version.
func TestSearchFilters(t *testing.T) {
	k := testkit.New(t)
	searchCorpus(k)
	for i := range 6 {
		put(k, "ops/extra"+string(rune('a'+i))+".md", "Another note about the deploy of the service, number "+string(rune('a'+i)))
	}
	d := data(k, "membot_search", map[string]any{"pattern": "deploy service", "path_prefix": "/ops/extra"})
	for _, p := range strs(d["hits"], "logical_path") {
		if !strings.HasPrefix(p, "ops/extra") {
			t.Errorf("hit %s outside the prefix", p)
		}
	}
	eq(t, "limit", len(data(k, "membot_search", map[string]any{"pattern": "deploy service", "limit": 3})["hits"].([]any)), 3)

	remove(k, projectSpace, "kitchen/recipes.md")
	if hits := data(k, "membot_search", map[string]any{"pattern": "bread", "mode": "keyword"})["hits"].([]any); len(hits) != 0 {
		t.Errorf("a deleted document is found: %v", hits)
	}

	old := put(k, "ops/retries.md", "# Retries\n\nRequests are never retried any more.")
	_ = old
	cur := data(k, "membot_search", map[string]any{"query": "exponential backoff jitter", "mode": "semantic"})
	for _, h := range cur["hits"].([]any) {
		if strings.Contains(h.(map[string]any)["snippet"].(string), "jitter") {
			t.Errorf("an old version's text is found without include_history: %v", h)
		}
	}
	hist := data(k, "membot_search", map[string]any{"query": "exponential backoff jitter", "mode": "semantic", "include_history": true})
	found := false
	for _, h := range hist["hits"].([]any) {
		found = found || strings.Contains(h.(map[string]any)["snippet"].(string), "jitter")
	}
	if !found {
		t.Errorf("include_history does not find the old version: %v", hist["hits"])
	}
}

// TestSearchProjectOverGlobal: global documents are searched too, but a
// global path the project also holds is hidden, and does not take a hit
// slot from visible ones.
func TestSearchProjectOverGlobal(t *testing.T) {
	k := testkit.New(t)
	putGlobal(k, "guide.md", "The zebra handbook, global edition.")
	put(k, "guide.md", "The zebra handbook, project edition.")
	putGlobal(k, "zoo.md", "Zebra stripes and zebra feeding.")
	d := data(k, "membot_search", map[string]any{"pattern": "zebra", "mode": "keyword"})
	paths := strs(d["hits"], "logical_path")
	if len(paths) != 2 || !strings.Contains(strings.Join(strs(d["hits"], "snippet"), "|"), "project edition") ||
		strings.Contains(strings.Join(strs(d["hits"], "snippet"), "|"), "global edition") {
		t.Errorf("hits = %v", d["hits"])
	}
	// With limit 1 the hidden global hit may rank first: a visible hit
	// still comes back.
	for range 3 {
		putGlobal(k, "guide.md", "zebra zebra zebra zebra handbook")
	}
	d = data(k, "membot_search", map[string]any{"pattern": "zebra", "mode": "keyword", "limit": 1})
	if sn := strs(d["hits"], "snippet"); len(sn) != 1 || strings.Contains(sn[0], "zebra zebra zebra") {
		t.Errorf("limit 1 hits = %v", d["hits"])
	}
}

// TestSearchErrors: neither query nor pattern (or only blanks) is
// input_error with a hint; mode and limit are checked by the schema; a
// keyword search with no words in it is input_error.
func TestSearchErrors(t *testing.T) {
	k := testkit.New(t)
	searchCorpus(k)
	for _, args := range []map[string]any{{}, {"query": "  "}, {"query": "", "pattern": "\t"}} {
		e := failWith(k, "membot_search", args, baton.ErrInvalidInput, "input_error")
		if !strings.Contains(e.Hint, "query") {
			t.Errorf("hint %q", e.Hint)
		}
	}
	failWith(k, "membot_search", map[string]any{"pattern": "!!!", "mode": "keyword"}, baton.ErrInvalidInput, "input_error")
	for _, args := range []map[string]any{
		{"query": "x", "limit": 0}, {"query": "x", "limit": 101}, {"query": "x", "mode": "fuzzy"},
		{"query": strings.Repeat("x", 2001)},
	} {
		failWith(k, "membot_search", args, baton.ErrInvalidInput, "invalid_input")
	}
}
