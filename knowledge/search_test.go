package knowledge_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/sqlite"
)

// conceptEmbedder is a small real embedder for tests: words of one concept
// share a dimension, so a paraphrase with no word in common with its
// answer still lands near it; other words hash into the remaining
// dimensions.
type conceptEmbedder struct{}

var concepts = map[string]int{
	"car": 0, "automobile": 0, "vehicle": 0, "cars": 0,
	"cat": 1, "kitten": 1, "feline": 1,
	"database": 2, "sql": 2, "storage": 2, "postgres": 2,
}

const embedDims = 16

func (conceptEmbedder) Model() string { return "concept-test" }
func (conceptEmbedder) Dims() int     { return embedDims }
func (conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, embedDims)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if d, ok := concepts[w]; ok {
				v[d] += 3
				continue
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[3+int(h.Sum32()%(embedDims-3))] += 0.2
		}
		out[i] = v
	}
	return out, nil
}

var space = baton.DocSpace{Scope: baton.ScopeProject, Project: testkit.Project}

// openStore opens the store the suite runs on (BATON_TEST_STORE) with the
// test project.
func openStore(t *testing.T) baton.Store {
	t.Helper()
	ctx := context.Background()
	var s baton.Store
	if testkit.Backend() == "postgres" {
		s = testkit.OpenPostgres(t, nil)
	} else {
		ss, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "baton.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		s = ss
	}
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: testkit.Project, Prefix: testkit.Prefix})
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// ingest writes, chunks and embeds a document the way the tools will.
func ingest(t *testing.T, s baton.Store, path, content, source string) {
	t.Helper()
	ctx := context.Background()
	emb := conceptEmbedder{}
	err := s.Update(ctx, func(tx baton.Tx) error {
		d := &baton.Document{DocKey: baton.DocKey{DocSpace: space, Path: path}, Content: content, ContentType: "text/markdown",
			SourcePath: source, UpdatedBy: "test"}
		if err := tx.PutDocument(ctx, d); err != nil {
			return err
		}
		desc := knowledge.Describe(content, d.ContentType)
		var cs []*baton.Chunk
		var texts []string
		for _, c := range knowledge.Split(content, knowledge.DefaultChunkConfig) {
			c.SearchText = knowledge.IndexedText(d.Path, desc, c.Context, c.Text)
			cs = append(cs, &c)
			texts = append(texts, c.SearchText)
		}
		if err := tx.ReplaceChunks(ctx, d.DocKey, d.Version, cs); err != nil {
			return err
		}
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			return err
		}
		var cvs []baton.ChunkVector
		for i, c := range cs {
			cvs = append(cvs, baton.ChunkVector{ChunkID: c.ID, Model: emb.Model(), Vector: vs[i]})
		}
		return tx.PutVectors(ctx, cvs)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func search(t *testing.T, s baton.Store, emb baton.Embedder, q knowledge.Query) ([]knowledge.Hit, error) {
	t.Helper()
	var hits []knowledge.Hit
	err := s.View(context.Background(), func(tx baton.Tx) error {
		var err error
		hits, err = knowledge.Search(context.Background(), tx, emb, q)
		return err
	})
	return hits, err
}

func paths(hits []knowledge.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Key.Path)
	}
	return out
}

func seed(t *testing.T) baton.Store {
	s := openStore(t)
	ingest(t, s, "garage.md", "Notes on servicing an automobile: oil, tyres and brakes.", "docs/garage.md")
	ingest(t, s, "pets.md", "A kitten needs food, water and a warm place to sleep.", "")
	ingest(t, s, "storage.md", "Postgres keeps rows in heap pages; indexes speed up lookups.", "")
	ingest(t, s, "brakes.md", "Brakes wear out; check the brake pads every year.", "")
	return s
}

func TestSearchHybridFindsParaphrasesAndKeywords(t *testing.T) {
	s := seed(t)
	// "car" appears in no document: only the semantic side finds garage.md;
	// "brakes" is a keyword of two documents.
	hits, err := search(t, s, conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "car brakes", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(hits); len(got) < 2 || got[0] != "garage.md" || !slices.Contains(got, "brakes.md") {
		t.Fatalf("hybrid hits = %v, want garage.md first (both lists), brakes.md among them", got)
	}
	top := hits[0]
	if top.SemanticScore == nil || top.KeywordScore == nil || top.SourcePath != "docs/garage.md" || top.Score <= 0 || top.Score > 1 {
		t.Errorf("top hit = %+v, want both scores, its source path and 0 < score <= 1", top)
	}
	if top.Snippet != "Notes on servicing an automobile: oil, tyres and brakes." || top.Start != 0 || top.End != len(top.Snippet) {
		t.Errorf("top snippet/offsets = %q %d..%d", top.Snippet, top.Start, top.End)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not ordered by score: %v then %v", hits[i-1].Score, hits[i].Score)
		}
	}
}

func TestSearchModes(t *testing.T) {
	s := seed(t)
	q := knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "feline"}
	cases := []struct {
		mode string
		want []string
	}{
		{knowledge.ModeSemantic, []string{"pets.md"}},
		{knowledge.ModeKeyword, nil}, // no document says "feline"
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			q := q
			q.Mode, q.Limit = tc.mode, 1
			hits, err := search(t, s, conceptEmbedder{}, q)
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(hits); !slices.Equal(got, tc.want) {
				t.Errorf("%s hits = %v, want %v", tc.mode, got, tc.want)
			}
			if len(hits) > 0 && hits[0].Score != 1 {
				t.Errorf("first of the only list scores %v, want 1", hits[0].Score)
			}
		})
	}
	// Keyword mode needs no embedder.
	hits, err := search(t, s, nil, knowledge.Query{Spaces: []baton.DocSpace{space}, Pattern: "pads", Mode: knowledge.ModeKeyword})
	if err != nil || !slices.Equal(paths(hits), []string{"brakes.md"}) || hits[0].SemanticScore != nil {
		t.Errorf("keyword without embedder = %+v, %v", hits, err)
	}
}

func TestSearchMinScoreAndLimit(t *testing.T) {
	s := seed(t)
	all, err := search(t, s, conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "car brakes", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Fatalf("limit 10 gave %d hits, want every chunk (4)", len(all))
	}
	cut := all[1].Score
	hits, _ := search(t, s, conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "car brakes", Limit: 10, MinScore: cut})
	for _, h := range hits {
		if h.Score < cut {
			t.Errorf("hit %s scores %v under min_score %v", h.Key.Path, h.Score, cut)
		}
	}
	if len(hits) < 2 || len(hits) >= len(all) {
		t.Errorf("min_score %v kept %d of %d hits", cut, len(hits), len(all))
	}
	if hits, _ := search(t, s, conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "car brakes", Limit: 1}); len(hits) != 1 {
		t.Errorf("limit 1 gave %d hits", len(hits))
	}
}

func TestSearchMaxPerFileBackfills(t *testing.T) {
	s := openStore(t)
	var b strings.Builder
	for i := range 6 {
		b.WriteString("## Part " + string(rune('A'+i)) + "\n\n" + strings.Repeat("database tuning notes ", 60) + "\n\n")
	}
	ingest(t, s, "big.md", b.String(), "")
	ingest(t, s, "small.md", "one database note", "")
	q := knowledge.Query{Spaces: []baton.DocSpace{space}, Pattern: "database", Mode: knowledge.ModeKeyword, Limit: 4, MaxPerFile: 2}
	hits, err := search(t, s, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, h := range hits {
		n[h.Key.Path]++
	}
	if len(hits) != 4 || n["small.md"] != 1 || n["big.md"] != 3 {
		t.Errorf("per-file 2, limit 4: %v, want small.md in and big.md back-filled to 3", n)
	}
	q.MaxPerFile, q.Limit = 2, 3
	hits, _ = search(t, s, nil, q)
	if n := paths(hits); !slices.Contains(n, "small.md") {
		t.Errorf("limit 3 with per-file 2 = %v, want small.md let in by the cap", n)
	}
}

func TestSearchRejectsBadInput(t *testing.T) {
	s := seed(t)
	cases := []struct {
		name string
		emb  baton.Embedder
		q    knowledge.Query
	}{
		{"no query", conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "  "}},
		{"bad mode", conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "x", Mode: "fuzzy"}},
		{"weight over 1", conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "x", SemanticWeight: 1.5}},
		{"no embedder", nil, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "x"}},
		{"no space", conceptEmbedder{}, knowledge.Query{Query: "car"}},
		{"keyword without words", nil, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "?!", Mode: knowledge.ModeKeyword}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := search(t, s, tc.emb, tc.q)
			var e *baton.Error
			if !errors.As(err, &e) || e.Code != baton.ErrInvalidInput || e.Hint == "" {
				t.Errorf("err = %v, want ERR_INVALID_INPUT with a hint", err)
			}
		})
	}
	// In hybrid mode a pattern without words leaves the semantic side.
	hits, err := search(t, s, conceptEmbedder{}, knowledge.Query{Spaces: []baton.DocSpace{space}, Query: "kitten", Pattern: "?!"})
	if err != nil || len(hits) == 0 || hits[0].Key.Path != "pets.md" {
		t.Errorf("hybrid with a wordless pattern = %v, %v", paths(hits), err)
	}
}

func TestFuse(t *testing.T) {
	// Cosines 0.9 .. 0.5 rescale to 1 .. 0; keyword relevances are divided
	// by the best, 8.
	sem := []knowledge.Ranked{{ChunkID: 1, Score: 0.9}, {ChunkID: 2, Score: 0.8}, {ChunkID: 4, Score: 0.5}}
	kw := []knowledge.Ranked{{ChunkID: 3, Score: 8}, {ChunkID: 1, Score: 6}, {ChunkID: 4, Score: 2}}
	got := knowledge.Fuse(sem, kw, 0.3)
	want := []struct {
		id    int64
		score float64
	}{
		{1, 0.7*6.0/8 + 0.3},         // second by keyword, first by cosine
		{3, 0.7},                     // first by keyword only
		{2, 0.3 * (0.8 - 0.5) / 0.4}, // semantic only
		{4, 0.7 * 2.0 / 8},           // last in both lists: the cosine part is 0
	}
	if len(got) != len(want) {
		t.Fatalf("Fuse gave %d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].ChunkID != w.id || math.Abs(got[i].Score-w.score) > 1e-12 {
			t.Errorf("result %d = chunk %d scoring %v, want chunk %d scoring %v", i, got[i].ChunkID, got[i].Score, w.id, w.score)
		}
	}
	if f := got[0]; *f.Semantic != 0.9 || *f.Keyword != 6 || f.SemanticRank != 1 || f.KeywordRank != 2 {
		t.Errorf("chunk 1 = %+v, want its own scores and ranks kept", f)
	}
	if f := got[2]; f.Keyword != nil || f.KeywordRank != 0 || f.SemanticRank != 2 {
		t.Errorf("chunk 2 = %+v, want it in the semantic list only", f)
	}
	// First in both lists scores 1; one list alone is that list's share.
	if top := knowledge.Fuse([]knowledge.Ranked{{ChunkID: 5, Score: 0.7}, {ChunkID: 6, Score: 0.1}},
		[]knowledge.Ranked{{ChunkID: 5, Score: 3}}, 0.3)[0]; math.Abs(top.Score-1) > 1e-12 {
		t.Errorf("first in both lists scores %v, want 1", top.Score)
	}
	for _, w := range []float64{0, 1} {
		only := knowledge.Fuse(sem, nil, w)
		if w == 1 && (only[0].Score != 1 || only[2].Score != 0) || w == 0 && only[0].Score != 0 {
			t.Errorf("semantic list alone at weight %v scores %v .. %v", w, only[0].Score, only[2].Score)
		}
	}
	// Equal cosines: all 1 when they are positive, all 0 when not (a query
	// vector that matches nothing ranks nothing).
	if f := knowledge.Fuse([]knowledge.Ranked{{ChunkID: 1, Score: 0.4}, {ChunkID: 2, Score: 0.4}}, nil, 1); f[0].Score != 1 || f[1].Score != 1 {
		t.Errorf("equal positive cosines score %v, %v, want 1", f[0].Score, f[1].Score)
	}
	if f := knowledge.Fuse([]knowledge.Ranked{{ChunkID: 1, Score: 0}, {ChunkID: 2, Score: 0}}, nil, 1); f[0].Score != 0 || f[1].Score != 0 {
		t.Errorf("zero cosines score %v, %v, want 0", f[0].Score, f[1].Score)
	}
	// Relevances without a positive best cannot be compared: every match
	// is a match.
	if f := knowledge.Fuse(nil, []knowledge.Ranked{{ChunkID: 1, Score: 0}, {ChunkID: 2, Score: 0}}, 0.3); f[0].Score != 0.7 || f[1].Score != 0.7 {
		t.Errorf("zero relevances score %v, %v, want 0.7", f[0].Score, f[1].Score)
	}
	// Equal fused scores: the better semantic rank wins, then the id.
	tie := knowledge.Fuse([]knowledge.Ranked{{ChunkID: 9, Score: 1}}, []knowledge.Ranked{{ChunkID: 4, Score: 1}}, 0.5)
	if tie[0].ChunkID != 9 || tie[0].Score != tie[1].Score {
		t.Errorf("tie = %+v, want the semantic hit 9 first at an equal score", tie)
	}
	if len(knowledge.Fuse(nil, nil, 0.3)) != 0 {
		t.Error("fusing nothing gave hits")
	}
}

func TestCosine(t *testing.T) {
	cases := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"same direction", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 5}, 0},
		{"opposite", []float32{1, -1}, []float32{-1, 1}, -1},
		{"zero vector", []float32{0, 0}, []float32{1, 1}, 0},
	}
	for _, tc := range cases {
		if got := knowledge.Cosine(tc.a, tc.b); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("%s: Cosine = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler words here ", 30) + "the needle sits here " + strings.Repeat("tail text ", 40)
	cases := []struct {
		name, text string
		terms      []string
		check      func(string) bool
	}{
		{"short text whole", "short text", []string{"text"}, func(s string) bool { return s == "short text" }},
		{"no term: prefix", long, nil, func(s string) bool {
			return strings.HasPrefix(s, "filler") && strings.HasSuffix(s, "…")
		}},
		{"term far in: window before it, word start", long, []string{"needle"}, func(s string) bool {
			i := strings.Index(s, "needle")
			return strings.HasPrefix(s, "…") && !strings.HasPrefix(s, "… ") && i > 0 && i <= 110 && strings.HasSuffix(s, "…")
		}},
		{"term near start", "needle " + long, []string{"needle"}, func(s string) bool { return strings.HasPrefix(s, "needle") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := knowledge.Snippet(tc.text, tc.terms)
			if utf8.RuneCountInString(s) > 300 || !tc.check(s) {
				t.Errorf("Snippet = %q (%d chars)", s, utf8.RuneCountInString(s))
			}
		})
	}
}

// BenchmarkExactCosine100k scores one query against 100,000 stored
// 100-dimension vectors, the semantic side's work at issue 15's scale.
func BenchmarkExactCosine100k(b *testing.B) {
	const n, dims = 100_000, 100
	vs := make([][]float32, n)
	for i := range vs {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32((i*31+j*17)%97) - 48
		}
		vs[i] = v
	}
	q := vs[12345]
	for b.Loop() {
		best := -2.0
		for _, v := range vs {
			best = max(best, knowledge.Cosine(q, v))
		}
		if best < 0.99 {
			b.Fatal("the query's own vector did not score 1")
		}
	}
}
