package storetest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The keyword side of knowledge search from a read-only snapshot: BM25
// (k1 1.2, b 0.75, FTS5's idf) over the chunks of current versions, every
// space, with terms cut, stripped of diacritics, freed of English stop
// words and stemmed in Go. A write transaction asks the database's own
// full-text search instead, whose scores differ; the two agree on which
// chunks match where their tokenizers agree.

// kwDoc writes content at key as one chunk and returns the chunk.
func (e *env) kwDoc(key baton.DocKey, content string) *baton.Chunk {
	e.t.Helper()
	d := e.write(key, content, "x")
	return e.chunkParagraphs(key, d)[0]
}

// kwSearch runs SearchChunks in a read-only snapshot.
func (e *env) kwSearch(q baton.ChunkQuery) []baton.ChunkHit {
	e.t.Helper()
	var hits []baton.ChunkHit
	e.view(func(tx baton.Tx) (err error) {
		hits, err = tx.SearchChunks(e.ctx, q)
		return err
	})
	return hits
}

// kwSearchWrite runs SearchChunks in a write transaction (the database's
// full-text search).
func (e *env) kwSearchWrite(q baton.ChunkQuery) []baton.ChunkHit {
	e.t.Helper()
	var hits []baton.ChunkHit
	e.update(func(tx baton.Tx) (err error) {
		hits, err = tx.SearchChunks(e.ctx, q)
		return err
	})
	return hits
}

// kwPaths are the hits' paths, in order.
func kwPaths(hs []baton.ChunkHit) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, h.Chunk.Key.Path)
	}
	return out
}

// kwIDs are the hits' chunk ids, sorted.
func kwIDs(hs []baton.ChunkHit) []int64 {
	out := []int64{}
	for _, h := range hs {
		out = append(out, h.Chunk.ID)
	}
	slices.Sort(out)
	return out
}

// bm25Doc is one chunk of the hand-computed corpus: its length in terms
// and the frequency of each query term in it.
type bm25Doc struct {
	length int
	tf     map[string]int
}

// handBM25 is the score SearchChunks reports for d (negated BM25, lower
// is better), computed from FTS5's definition: over the n chunks of the
// corpus of average length avgdl, with df the number of chunks holding
// each term.
func handBM25(d bm25Doc, terms []string, n int, avgdl float64, df map[string]int) float64 {
	const k1, b = 1.2, 0.75
	score := 0.0
	for _, t := range terms {
		tf := float64(d.tf[t])
		if tf == 0 {
			continue
		}
		idf := math.Log((float64(n) - float64(df[t]) + 0.5) / (float64(df[t]) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		score += idf * (tf * (k1 + 1) / (tf + k1*(1-b+b*float64(d.length)/avgdl)))
	}
	return -score
}

// testKnowledgeKeywordIndex: the snapshot's keyword ranking is BM25 as
// computed by hand; stop words, stemming and diacritics; filters; ties;
// the limit; every write is seen by the next snapshot; an older snapshot
// still sees its own state; and the chunks that match agree with the
// write transaction's full-text search.
func testKnowledgeKeywordIndex(t *testing.T, open func(t *testing.T) baton.Store) {
	t.Run("HandComputedBM25", func(t *testing.T) { kwHandComputed(t, knowledgeEnv(t, open)) })
	t.Run("StopWordsAndStemming", func(t *testing.T) { kwStemming(t, knowledgeEnv(t, open)) })
	t.Run("Filters", func(t *testing.T) { kwFilters(t, knowledgeEnv(t, open)) })
	t.Run("TiesAndLimit", func(t *testing.T) { kwTies(t, knowledgeEnv(t, open)) })
	t.Run("FollowsWrites", func(t *testing.T) { kwFollowsWrites(t, knowledgeEnv(t, open)) })
	t.Run("ReplacedChunks", func(t *testing.T) { kwReplacedChunks(t, knowledgeEnv(t, open)) })
	t.Run("OlderSnapshot", func(t *testing.T) { kwOlderSnapshot(t, knowledgeEnv(t, open)) })
	t.Run("AgreesWithFullText", func(t *testing.T) { kwAgrees(t, knowledgeEnv(t, open)) })
}

func kwHandComputed(t *testing.T, e *env) {
	// Words whose stems are distinct and plain; the counts below are the
	// chunks' own.
	corpus := []struct {
		key  baton.DocKey
		text string
		doc  bm25Doc
	}{
		{pkey("a.md"), "apple banana banana cherry", bm25Doc{4, map[string]int{"apple": 1, "cherry": 1}}},
		{pkey("b.md"), "Apple apple APPLE kiwi", bm25Doc{4, map[string]int{"apple": 3}}},
		{pkey("c.md"), "cherry kiwi mango papaya lemon lime", bm25Doc{6, map[string]int{"cherry": 1}}},
		{pkey("d.md"), "mango", bm25Doc{1, nil}},
		{pkey("e.md"), "lemon, lime!", bm25Doc{2, nil}},
		{pkey("f.md"), "papaya guava", bm25Doc{2, nil}},
		// Another space: not returned by a project search, but part of
		// the corpus the statistics are taken over.
		{baton.DocKey{DocSpace: globalSpace, Path: "g.md"}, "apple guava", bm25Doc{2, map[string]int{"apple": 1}}},
	}
	for _, c := range corpus {
		e.kwDoc(c.key, c.text)
	}
	// A superseded version's chunks are not part of the corpus, nor is a
	// current version without chunks.
	e.kwDoc(pkey("h.md"), "apple apple cherry")
	e.write(pkey("h.md"), "apple cherry, rewritten but not chunked", "x")

	const n, totalLen = 7, 4 + 4 + 6 + 1 + 2 + 2 + 2
	avgdl := float64(totalLen) / n
	terms := []string{"apple", "cherry"}
	df := map[string]int{"apple": 3, "cherry": 2}
	type want struct {
		path  string
		score float64
	}
	var wants []want
	for _, c := range corpus {
		if c.key.DocSpace == projSpace && (c.doc.tf["apple"] > 0 || c.doc.tf["cherry"] > 0) {
			wants = append(wants, want{c.key.Path, handBM25(c.doc, terms, n, avgdl, df)})
		}
	}
	slices.SortFunc(wants, func(a, b want) int { return cmpFloat(a.score, b.score) })
	hits := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "apple cherry"})
	if len(hits) != len(wants) {
		t.Fatalf("apple cherry = %v, want %v", kwPaths(hits), wants)
	}
	for i, w := range wants {
		if h := hits[i]; h.Chunk.Key.Path != w.path || math.Abs(h.Score-w.score) > 1e-9 {
			t.Errorf("hit %d = %s %.12f, want %s %.12f", i, h.Chunk.Key.Path, h.Score, w.path, w.score)
		}
	}
	if hits[0].Chunk.Text != "apple banana banana cherry" || hits[0].Chunk.Version == "" || hits[0].Chunk.ID == 0 {
		t.Errorf("top hit's chunk = %+v, want a.md's, whole", hits[0].Chunk)
	}
	// One term, both spaces: b.md (apple three times) first.
	hits = e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace, globalSpace}, Text: "APPLE"})
	if got, want := kwPaths(hits), []string{"b.md", "g.md", "a.md"}; !slices.Equal(got, want) {
		t.Errorf("apple over both spaces = %v, want %v", got, want)
	}
	g := bm25Doc{2, map[string]int{"apple": 1}}
	if w := handBM25(g, []string{"apple"}, n, avgdl, df); len(hits) == 3 && math.Abs(hits[1].Score-w) > 1e-9 {
		t.Errorf("g.md scores %.12f, want %.12f", hits[1].Score, w)
	}
	// A term in more than half the chunks weighs almost nothing (FTS5's
	// idf floor), but still matches.
	for _, p := range []string{"x1.md", "x2.md", "x3.md", "x4.md"} {
		e.kwDoc(pkey(p), "mango tango")
	}
	hits = e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "mango"})
	if len(hits) != 6 {
		t.Fatalf("mango = %v, want 6 chunks", kwPaths(hits))
	}
	for _, h := range hits {
		if h.Score >= 0 || h.Score < -1e-5 {
			t.Errorf("%s scores %g for a term in 6 of 11 chunks, want -1e-6 * its tf weight", h.Chunk.Key.Path, h.Score)
		}
	}
	if hits[0].Chunk.Key.Path != "d.md" {
		t.Errorf("mango's best = %s, want the shortest chunk d.md", hits[0].Chunk.Key.Path)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func kwStemming(t *testing.T, e *env) {
	e.kwDoc(pkey("s1.md"), "The retries were exhausted before the deadline.")
	e.kwDoc(pkey("s2.md"), "Café résumé über naïve ÉCOLE")
	e.kwDoc(pkey("s3.md"), "connection pooling, connections pooled")
	cases := []struct {
		query string
		want  []string
	}{
		{"retry", []string{"s1.md"}},
		{"RETRYING", []string{"s1.md"}},
		{"exhaust", []string{"s1.md"}},
		{"deadlines", []string{"s1.md"}},
		{"cafe", []string{"s2.md"}},
		{"resume", []string{"s2.md"}},
		{"uber naive", []string{"s2.md"}},
		{"école", []string{"s2.md"}},
		{"connect pool", []string{"s3.md"}},
		{"the", nil},         // a stop word alone matches nothing
		{"were the of", nil}, // nor do several
	}
	for _, tc := range cases {
		got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: tc.query}))
		if !slices.Equal(got, append([]string{}, tc.want...)) {
			t.Errorf("%q = %v, want %v", tc.query, got, tc.want)
		}
	}
	// A stop word adds nothing to the score.
	a := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "retry"})
	b := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "the retry, were the retries"})
	if len(a) != 1 || len(b) != 1 || a[0].Score != b[0].Score {
		t.Errorf("retry = %+v, with stop words and a repeated stem = %+v; want one hit, same score", a, b)
	}
	// No word at all is still bad input.
	err := e.s.View(e.ctx, func(tx baton.Tx) error {
		_, err := tx.SearchChunks(e.ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "?! --"})
		return err
	})
	wantCode(t, err, baton.ErrInvalidInput)
}

func kwFilters(t *testing.T, e *env) {
	e.project("other", "OTH")
	other := baton.DocSpace{Scope: baton.ScopeProject, Project: "other"}
	e.kwDoc(pkey("poems/x.md"), "moon")
	e.kwDoc(pkey("poems-archive/y.md"), "moon")
	e.kwDoc(pkey("notes/z.md"), "moon")
	e.kwDoc(baton.DocKey{DocSpace: globalSpace, Path: "poems/g.md"}, "moon")
	e.kwDoc(baton.DocKey{DocSpace: other, Path: "poems/o.md"}, "moon")
	e.kwDoc(pkey("poems/gone.md"), "moon")
	e.update(func(tx baton.Tx) error {
		_, err := tx.DeleteDocument(e.ctx, pkey("poems/gone.md"), "", "x")
		return err
	})
	sorted := func(hs []baton.ChunkHit) []string {
		p := kwPaths(hs)
		slices.Sort(p)
		return p
	}
	cases := []struct {
		spaces []baton.DocSpace
		prefix string
		want   []string
	}{
		{[]baton.DocSpace{projSpace}, "", []string{"notes/z.md", "poems-archive/y.md", "poems/x.md"}},
		{[]baton.DocSpace{projSpace}, "poems", []string{"poems-archive/y.md", "poems/x.md"}},
		{[]baton.DocSpace{projSpace}, "poems/", []string{"poems/x.md"}},
		{[]baton.DocSpace{projSpace, globalSpace}, "poems/", []string{"poems/g.md", "poems/x.md"}},
		{[]baton.DocSpace{globalSpace}, "", []string{"poems/g.md"}},
		{[]baton.DocSpace{other, globalSpace}, "poems/", []string{"poems/g.md", "poems/o.md"}},
		{[]baton.DocSpace{projSpace}, "zzz", []string{}},
	}
	for _, tc := range cases {
		got := sorted(e.kwSearch(baton.ChunkQuery{Spaces: tc.spaces, PathPrefix: tc.prefix, Text: "moon"}))
		if !slices.Equal(got, tc.want) {
			t.Errorf("spaces %v prefix %q = %v, want %v", tc.spaces, tc.prefix, got, tc.want)
		}
	}
	for _, spaces := range [][]baton.DocSpace{nil, {{Scope: baton.ScopeGlobal, Project: "kb"}}} {
		err := e.s.View(e.ctx, func(tx baton.Tx) error {
			_, err := tx.SearchChunks(e.ctx, baton.ChunkQuery{Spaces: spaces, Text: "moon"})
			return err
		})
		wantCode(t, err, baton.ErrInvalidInput)
	}
}

func kwTies(t *testing.T, e *env) {
	var ids []int64
	for _, p := range []string{"t3.md", "t1.md", "t4.md", "t2.md"} {
		ids = append(ids, e.kwDoc(pkey(p), "tie breaker").ID)
	}
	e.kwDoc(pkey("best.md"), "tie")
	e.kwDoc(pkey("far.md"), "tie and a much longer text about something else entirely, which dilutes the tie")
	hits := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "tie"})
	if got := kwPaths(hits); len(got) != 6 || got[0] != "best.md" || got[5] != "far.md" {
		t.Fatalf("tie = %v, want best.md first, far.md last", got)
	}
	var tied []int64
	for _, h := range hits[1:5] {
		if h.Score != hits[1].Score {
			t.Errorf("%s scores %v, want the tie's %v", h.Chunk.Key.Path, h.Score, hits[1].Score)
		}
		tied = append(tied, h.Chunk.ID)
	}
	if !slices.IsSorted(tied) || !slices.Equal(slices.Sorted(slices.Values(ids)), tied) {
		t.Errorf("tied chunk ids = %v, want %v in increasing order", tied, ids)
	}
	// The limit keeps the best, ties broken by chunk id.
	hits = e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "tie", Limit: 3})
	if len(hits) != 3 || hits[0].Chunk.Key.Path != "best.md" || hits[1].Chunk.ID != tied[0] || hits[2].Chunk.ID != tied[1] {
		t.Errorf("limit 3 = %v", kwPaths(hits))
	}
	// A term in one chunk only outranks a term in most of them.
	hits = e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "tie entirely", Limit: 1})
	if len(hits) != 1 || hits[0].Chunk.Key.Path != "far.md" {
		t.Errorf("tie entirely, limit 1 = %v, want far.md", kwPaths(hits))
	}
}

func kwFollowsWrites(t *testing.T, e *env) {
	q := baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "comet"}
	e.kwDoc(pkey("sky.md"), "planet")
	if hits := e.kwSearch(q); len(hits) != 0 {
		t.Fatalf("comet before any comet = %v", kwPaths(hits))
	}
	e.kwDoc(pkey("c.md"), "comet tail")
	if got := kwPaths(e.kwSearch(q)); !slices.Equal(got, []string{"c.md"}) {
		t.Errorf("after a write: %v, want c.md", got)
	}
	first := e.kwSearch(q)[0].Score
	e.kwDoc(pkey("c2.md"), "comet comet") // more chunks, another df: c.md's score moves
	hits := e.kwSearch(q)
	if got := kwPaths(hits); !slices.Equal(got, []string{"c2.md", "c.md"}) {
		t.Errorf("after a second write: %v", got)
	}
	if len(hits) == 2 && hits[1].Score == first {
		t.Errorf("c.md still scores %v with another chunk in the corpus", first)
	}
	// A rewrite hides the old version's chunks until the new ones come.
	e.write(pkey("c.md"), "asteroid belt", "x")
	if got := kwPaths(e.kwSearch(q)); !slices.Equal(got, []string{"c2.md"}) {
		t.Errorf("after rewriting c.md: %v, want c2.md", got)
	}
	d, _ := e.doc(pkey("c.md"), "")
	e.chunkParagraphs(pkey("c.md"), d)
	if got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "asteroid"})); !slices.Equal(got, []string{"c.md"}) {
		t.Errorf("asteroid after chunking the rewrite: %v", got)
	}
	// A deletion hides it, a move carries it.
	e.update(func(tx baton.Tx) error { _, err := tx.DeleteDocument(e.ctx, pkey("c2.md"), "", "x"); return err })
	if got := kwPaths(e.kwSearch(q)); len(got) != 0 {
		t.Errorf("after deleting c2.md: %v", got)
	}
	e.update(func(tx baton.Tx) error { _, err := tx.MoveDocument(e.ctx, pkey("c.md"), "moved/c.md", "x"); return err })
	if got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "asteroid"})); !slices.Equal(got, []string{"moved/c.md"}) {
		t.Errorf("after the move: %v", got)
	}
	// Pruning history changes nothing current.
	e.update(func(tx baton.Tx) error {
		_, err := tx.PruneDocuments(e.ctx, []baton.DocSpace{projSpace}, time.Now().Add(time.Hour), false)
		return err
	})
	if got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "asteroid planet"})); !slices.Equal(got, []string{"moved/c.md", "sky.md"}) &&
		!slices.Equal(got, []string{"sky.md", "moved/c.md"}) {
		t.Errorf("after pruning: %v", got)
	}
	// A large version rewritten: its old chunks are dropped from the index
	// (and compacted away), the others keep their place.
	bulk := func(word string) {
		var b strings.Builder
		for i := range 1100 {
			if i > 0 {
				b.WriteString("\n\n")
			}
			fmt.Fprintf(&b, "%s %d", word, i)
		}
		d := e.write(pkey("bulk.md"), b.String(), "x")
		e.chunkParagraphs(pkey("bulk.md"), d)
	}
	bulk("oldbulk")
	if hits := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "oldbulk", Limit: 1000}); len(hits) != 1000 {
		t.Errorf("oldbulk = %d hits, want 1000", len(hits))
	}
	bulk("newbulk")
	if hits := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "oldbulk"}); len(hits) != 0 {
		t.Errorf("oldbulk after the rewrite = %d hits", len(hits))
	}
	if hits := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "newbulk 1099"}); len(hits) != 50 || hits[0].Chunk.Text != "newbulk 1099" {
		t.Errorf("newbulk 1099 = %d hits, first %+v", len(hits), hits[0].Chunk)
	}
	if got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "asteroid planet"})); len(got) != 2 {
		t.Errorf("asteroid planet after the bulk rewrite: %v", got)
	}
	// Many versions in turn, each seen.
	for i := range 30 {
		w := fmt.Sprintf("word%d", i)
		e.kwDoc(pkey("turn.md"), "turn "+w)
		if got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: w})); !slices.Equal(got, []string{"turn.md"}) {
			t.Fatalf("version %d: %s = %v", i, w, got)
		}
		if i > 0 {
			if got := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: fmt.Sprintf("word%d", i-1)}); len(got) != 0 {
				t.Fatalf("version %d: the previous version's word still matches", i)
			}
		}
	}
	if hits := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "turn"}); len(hits) != 1 {
		t.Errorf("turn = %d hits, want the current version's one", len(hits))
	}
}

// kwReplacedChunks: a version's chunks replaced by as many others (which
// SQLite may number with the very same ids) are indexed anew.
func kwReplacedChunks(t *testing.T, e *env) {
	e.kwDoc(pkey("base.md"), "foundation")
	d := e.write(pkey("r.md"), "first alpha\n\nsecond beta", "x")
	old := e.chunkParagraphs(pkey("r.md"), d)
	if got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "alpha"})); !slices.Equal(got, []string{"r.md"}) {
		t.Fatalf("alpha = %v", got)
	}
	replace := func(a, b string) []*baton.Chunk {
		cs := []*baton.Chunk{{Ordinal: 0, Text: a, Start: 0, End: len(a)}, {Ordinal: 1, Text: b, Start: 0, End: len(b)}}
		e.update(func(tx baton.Tx) error { return tx.ReplaceChunks(e.ctx, pkey("r.md"), d.Version, cs) })
		return cs
	}
	cs := replace("first gamma", "second delta")
	t.Logf("chunk ids %d, %d became %d, %d", old[0].ID, old[1].ID, cs[0].ID, cs[1].ID)
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"alpha", nil}, {"beta", nil}, {"gamma", []int64{cs[0].ID}}, {"delta", []int64{cs[1].ID}}, {"first second", []int64{cs[0].ID, cs[1].ID}},
	} {
		got := kwIDs(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: tc.query}))
		if !slices.Equal(got, append([]int64{}, tc.want...)) {
			t.Errorf("after re-chunking, %s = chunks %v, want %v", tc.query, got, tc.want)
		}
	}
	// The same again with text of the same length.
	cs = replace("first GAMMB", "second delta")
	if got := kwIDs(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "gamma"})); len(got) != 0 {
		t.Errorf("gamma after its replacement by gammb = chunks %v", got)
	}
	if got := kwIDs(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "gammb"})); !slices.Equal(got, []int64{cs[0].ID}) {
		t.Errorf("gammb = chunks %v, want %d", got, cs[0].ID)
	}
	// Chunks removed altogether.
	e.update(func(tx baton.Tx) error { return tx.ReplaceChunks(e.ctx, pkey("r.md"), d.Version, nil) })
	if got := kwPaths(e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "first foundation"})); !slices.Equal(got, []string{"base.md"}) {
		t.Errorf("after removing r.md's chunks: %v", got)
	}
}

// kwOlderSnapshot: a snapshot taken before a write keeps searching its
// own state after a newer snapshot moved the index on, whether the write
// added a matching chunk or took one away.
func kwOlderSnapshot(t *testing.T, e *env) {
	e.kwDoc(pkey("n0.md"), "nebula zero")
	e.kwDoc(pkey("n1.md"), "nebula one")
	q := baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "nebula"}
	// during runs a snapshot that searches, lets write and a newer
	// snapshot's search happen, and searches again.
	during := func(write func(), newer int) {
		t.Helper()
		var before, after []baton.ChunkHit
		var once sync.Once
		started, resume := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- e.s.View(e.ctx, func(tx baton.Tx) (err error) {
				if before, err = tx.SearchChunks(e.ctx, q); err != nil {
					return err
				}
				once.Do(func() { close(started) })
				<-resume
				after, err = tx.SearchChunks(e.ctx, q)
				return err
			})
		}()
		select {
		case <-started:
		case err := <-done:
			t.Fatalf("the older snapshot ended early: %v", err)
		}
		write()
		if got := kwPaths(e.kwSearch(q)); len(got) != newer {
			t.Errorf("a new snapshot sees %v, want %d nebulae", got, newer)
		}
		close(resume)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got, want := kwIDs(after), kwIDs(before); !slices.Equal(got, want) {
			t.Errorf("the older snapshot's second search = %v, want its first's %v", got, want)
		}
	}
	during(func() { e.kwDoc(pkey("n2.md"), "nebula two") }, 3)
	during(func() {
		e.update(func(tx baton.Tx) error { _, err := tx.DeleteDocument(e.ctx, pkey("n0.md"), "", "x"); return err })
	}, 2)
}

// kwAgrees: where the Go tokenizer and the database's agree (no stop
// words, the same stems), a snapshot and a write transaction match the
// same chunks.
func kwAgrees(t *testing.T, e *env) {
	for p, text := range searchDocs {
		e.kwDoc(pkey(p), text)
	}
	e.kwDoc(baton.DocKey{DocSpace: globalSpace, Path: "global.md"}, "cosine vector fusion")
	for _, text := range []string{"vector", "vectors ranking", "cosine fusion", "frequency bm25", "stew salt pepper", "tsvector", "zebra"} {
		for _, spaces := range [][]baton.DocSpace{{projSpace}, {projSpace, globalSpace}} {
			q := baton.ChunkQuery{Spaces: spaces, Text: text}
			viewed, updated := kwIDs(e.kwSearch(q)), kwIDs(e.kwSearchWrite(q))
			if !slices.Equal(viewed, updated) {
				t.Errorf("%q in %d spaces: the snapshot matches chunks %v, the write transaction %v", text, len(spaces), viewed, updated)
			}
		}
	}
	hits := e.kwSearch(baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: strings.Repeat("vector ", 40)})
	if len(hits) != 2 {
		t.Errorf("a long query of one word = %v", kwPaths(hits))
	}
}
