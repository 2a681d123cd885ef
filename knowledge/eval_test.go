package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/embedding"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/sqlite"
)

// TestEvalSetIntegrity: the built-in evaluation set is the one on disk,
// holds at least 300 real documents and 60 labelled queries, every label
// names a document of the set, and the paraphrase queries share few words
// with their answers' opening (title and first paragraph).
func TestEvalSetIntegrity(t *testing.T) {
	set, err := knowledge.DefaultEvalSet()
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := knowledge.LoadEvalSet(os.DirFS("testdata/eval"))
	if err != nil {
		t.Fatal(err)
	}
	if len(onDisk.Docs) != len(set.Docs) || len(onDisk.Queries) != len(set.Queries) {
		t.Fatalf("embedded set: %d docs, %d queries; on disk: %d, %d", len(set.Docs), len(set.Queries), len(onDisk.Docs), len(onDisk.Queries))
	}
	if len(set.Docs) < 300 || len(set.Queries) < 60 {
		t.Fatalf("%d documents and %d queries, want at least 300 and 60", len(set.Docs), len(set.Queries))
	}
	notice, err := os.ReadFile("testdata/eval/NOTICE")
	if err != nil || !strings.Contains(string(notice), "Redistribution and use in source and binary forms") {
		t.Fatalf("testdata/eval/NOTICE lacks the Go licence: %v", err)
	}
	docs := map[string]string{}
	total := 0
	for _, d := range set.Docs {
		total += len(d.Content)
		if len(d.Content) > 8<<10 || len(d.Content) < 300 {
			t.Errorf("%s is %d bytes, want 300..8192", d.Path, len(d.Content))
		}
		if !strings.HasPrefix(d.Content, "# ") {
			t.Errorf("%s does not start with its # title", d.Path)
		}
		docs[d.Path] = d.Content
	}
	if total > 4<<20 {
		t.Errorf("the corpus is %d bytes, keep it under 4 MiB", total)
	}
	ids := map[string]bool{}
	var para, kw []float64
	for _, q := range set.Queries {
		if ids[q.ID] {
			t.Errorf("query id %s is used twice", q.ID)
		}
		ids[q.ID] = true
		best := 0.0
		for i, r := range q.Relevant {
			content, ok := docs[r]
			if !ok {
				t.Errorf("query %s: %s is not in the set", q.ID, r)
				continue
			}
			if slices.Contains(q.Relevant[:i], r) {
				t.Errorf("query %s names %s twice", q.ID, r)
			}
			best = max(best, evalOverlap(q.Query, evalLead(content)))
		}
		switch q.Kind {
		case knowledge.EvalParaphrase:
			para = append(para, best)
			if best > 0.5 {
				t.Errorf("paraphrase %s shares %.0f%% of its words with its answer's opening: reword it or call it a keyword query", q.ID, best*100)
			}
		case knowledge.EvalKeyword:
			kw = append(kw, best)
		default:
			t.Errorf("query %s has kind %q", q.ID, q.Kind)
		}
	}
	if len(para) < len(set.Queries)*2/3 {
		t.Errorf("%d of %d queries are paraphrases, want at least two thirds", len(para), len(set.Queries))
	}
	low := 0
	for _, o := range para {
		if o <= 1.0/3+1e-9 {
			low++
		}
	}
	if low < len(para)*9/10 {
		t.Errorf("only %d of %d paraphrases share at most a third of their words with their answer's opening", low, len(para))
	}
	mp, mk := mean(para), mean(kw)
	if mp > 0.2 {
		t.Errorf("paraphrases share %.2f of their words with their answers' openings on average, want at most 0.2", mp)
	}
	if len(kw) > 0 && mk < mp+0.3 {
		t.Errorf("keyword queries share %.2f of their words, paraphrases %.2f: the kinds do not differ", mk, mp)
	}
	t.Logf("%d docs (%d bytes), %d queries: %d paraphrases (mean overlap %.3f), %d keyword (mean overlap %.3f)",
		len(set.Docs), total, len(set.Queries), len(para), mp, len(kw), mk)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// evalStop are the words the overlap measure ignores.
var evalStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again all also am an and any are as at be because been before being below
		between both but by can could did do does doing down during each few for from further had has have having he her here
		hers him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
		our ours out over own same she should so some such than that the their theirs them then there these they this those
		through to too under until up very was we were what when where which while who whom why will with would you your yours
		want need get like`) {
		evalStop[w] = true
	}
}

var evalWordRE = regexp.MustCompile(`[a-z0-9]+`)

// evalWords are the distinct lower-case words of s of 3 or more characters
// that are not stop words.
func evalWords(s string) []string {
	var out []string
	for _, w := range evalWordRE.FindAllString(strings.ToLower(s), -1) {
		if len(w) >= 3 && !evalStop[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// evalSameWord is a generous match, so the measure errs towards more
// overlap: equal words, equal but for a plural s, or a shared 5-letter
// prefix (verify/verifies, cancel/cancellation, encode/encoding).
func evalSameWord(a, b string) bool {
	trim := func(w string) string {
		if len(w) > 3 && strings.HasSuffix(w, "s") {
			return w[:len(w)-1]
		}
		return w
	}
	return a == b || trim(a) == trim(b) || len(a) >= 5 && len(b) >= 5 && a[:5] == b[:5]
}

// evalOverlap is the share of query's words found in text.
func evalOverlap(query, text string) float64 {
	qw, tw := evalWords(query), evalWords(text)
	if len(qw) == 0 {
		return 0
	}
	n := 0
	for _, w := range qw {
		if slices.ContainsFunc(tw, func(x string) bool { return evalSameWord(w, x) }) {
			n++
		}
	}
	return float64(n) / float64(len(qw))
}

// evalLead is a document's title and first paragraph of prose (a "Usage:"
// line and indented code skipped).
func evalLead(content string) string {
	title, body, _ := strings.Cut(content, "\n")
	for _, p := range regexp.MustCompile(`\n\s*\n`).Split(body, -1) {
		p = strings.Trim(p, "\n")
		if strings.TrimSpace(p) == "" || strings.TrimSpace(p) == "Usage:" || strings.HasPrefix(p, "\t") || strings.HasPrefix(p, "    ") {
			continue
		}
		return strings.TrimPrefix(title, "# ") + " " + p
	}
	return strings.TrimPrefix(title, "# ")
}

func TestLoadEvalSetRejectsBadSets(t *testing.T) {
	doc := &fstest.MapFile{Data: []byte("# a\n\nsome text\n")}
	for name, c := range map[string]struct {
		queries string
		want    string
	}{
		"no queries":      {``, "no queries.json"},
		"not JSON":        {`{`, "queries.json"},
		"empty":           {`[]`, "no query"},
		"unknown doc":     {`[{"id":"q","query":"x","relevant":["docs/b.md"],"kind":"keyword"}]`, "docs/b.md"},
		"duplicate id":    {`[{"id":"q","query":"x","relevant":["docs/a.md"],"kind":"keyword"},{"id":"q","query":"y","relevant":["docs/a.md"],"kind":"keyword"}]`, "twice"},
		"bad kind":        {`[{"id":"q","query":"x","relevant":["docs/a.md"],"kind":"fuzzy"}]`, "fuzzy"},
		"nothing labeled": {`[{"id":"q","query":"x","relevant":[],"kind":"keyword"}]`, "no relevant"},
		"blank query":     {`[{"id":"q","query":" ","relevant":["docs/a.md"],"kind":"keyword"}]`, "no text"},
	} {
		fsys := fstest.MapFS{"docs/a.md": doc}
		if c.queries != "" {
			fsys["queries.json"] = &fstest.MapFile{Data: []byte(c.queries)}
		}
		_, err := knowledge.LoadEvalSet(fsys)
		if e := baton.AsError(err); err == nil || e.Code != baton.ErrInvalidInput || !strings.Contains(e.Message, c.want) {
			t.Errorf("%s: err = %v, want ERR_INVALID_INPUT mentioning %q", name, err, c.want)
		}
	}
	if _, err := knowledge.LoadEvalSet(fstest.MapFS{"queries.json": &fstest.MapFile{Data: []byte(`[]`)}}); err == nil {
		t.Error("a set without documents loaded")
	}
}

// evalStore is a fresh SQLite store in the test's directory.
func evalStore(t *testing.T) baton.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "eval.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestEvaluateSmallSet checks the measurement itself on a corpus small
// enough to know every answer.
func TestEvaluateSmallSet(t *testing.T) {
	md := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"docs/cats.md":   md("# Cats\n\nThe domestic cat is a small carnivorous mammal; a kitten purrs and chases mice.\n"),
		"docs/cars.md":   md("# Cars\n\nAn automobile has an engine, four wheels and a steering wheel; drivers refuel it at a station.\n"),
		"docs/bread.md":  md("# Bread\n\nBakers knead flour, water and yeast into dough, let it rise and bake it in an oven.\n"),
		"docs/rivers.md": md("# Rivers\n\nA river carries fresh water from mountain springs to the sea through valleys and deltas.\n"),
		"queries.json": md(`[
			{"id":"kw-bread","query":"knead dough yeast","relevant":["docs/bread.md"],"kind":"keyword"},
			{"id":"kw-two","query":"engine wheels mice","relevant":["docs/cars.md","docs/cats.md"],"kind":"keyword"},
			{"id":"nothing","query":"zzzqqq","relevant":["docs/rivers.md"],"kind":"paraphrase"}
		]`),
	}
	set, err := knowledge.LoadEvalSet(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := evalStore(t)
	var stages []string
	r, err := knowledge.Evaluate(ctx, s, embedding.NewBuiltin(), set, knowledge.EvalOptions{Limit: 2,
		Progress: func(stage string, done, total int) {
			if done == total {
				stages = append(stages, stage)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Docs != 4 || r.Queries != 3 || r.Limit != 2 || r.MaxPerFile != 1 || r.SemanticWeight != knowledge.DefaultSemanticWeight ||
		r.Model != embedding.BuiltinModel || r.Chunks < 4 {
		t.Fatalf("report header = %+v", r)
	}
	if !slices.Contains(stages, "index") || !slices.Contains(stages, "search") {
		t.Errorf("progress stages = %v", stages)
	}
	if len(r.Modes) != 3 || r.Modes[0].Mode != knowledge.ModeKeyword || r.Modes[1].Mode != knowledge.ModeSemantic || r.Modes[2].Mode != knowledge.ModeHybrid {
		t.Fatalf("modes = %+v", r.Modes)
	}
	byID := map[string]knowledge.EvalQueryResult{}
	for _, q := range r.PerQuery {
		byID[q.ID] = q
		for mode, top := range q.Top {
			if len(top) > 2 {
				t.Errorf("%s %s returned %v, more than the limit", q.ID, mode, top)
			}
			for i := range top {
				if slices.Contains(top[:i], top[i]) {
					t.Errorf("%s %s returned %s twice: %v", q.ID, mode, top[i], top)
				}
			}
		}
	}
	// bm25 finds the one document holding the words first; the two-answer
	// query finds both in two slots; a query of no known word finds nothing.
	if q := byID["kw-bread"]; q.Rank[knowledge.ModeKeyword] != 1 || q.Recall[knowledge.ModeKeyword] != 1 {
		t.Errorf("kw-bread: %+v", q)
	}
	if q := byID["kw-two"]; q.Recall[knowledge.ModeKeyword] != 1 || q.Rank[knowledge.ModeKeyword] != 1 {
		t.Errorf("kw-two: %+v", q)
	}
	if q := byID["nothing"]; q.Rank[knowledge.ModeKeyword] != 0 || q.Recall[knowledge.ModeKeyword] != 0 || len(q.Top[knowledge.ModeKeyword]) != 0 {
		t.Errorf("nothing: %+v", q)
	}
	kwm := r.Mode(knowledge.ModeKeyword)
	if kwm.Queries != 3 || !near(kwm.Recall, 2.0/3) || !near(kwm.MRR, 2.0/3) || !near(kwm.HitRate, 2.0/3) {
		t.Errorf("keyword figures = %+v", kwm.EvalFigures)
	}
	if k := kwm.ByKind[knowledge.EvalKeyword]; k.Queries != 2 || k.Recall != 1 || k.MRR != 1 {
		t.Errorf("keyword figures of keyword queries = %+v", k)
	}
	if p := kwm.ByKind[knowledge.EvalParaphrase]; p.Queries != 1 || p.Recall != 0 || p.MRR != 0 {
		t.Errorf("keyword figures of paraphrases = %+v", p)
	}
	for _, m := range r.Modes {
		checkFigures(t, m.Mode, m.EvalFigures)
	}

	// The figures are over the set's documents only: a store holding
	// another global document, or missing one, is refused.
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return knowledge.Write(ctx, tx, nil, &baton.Document{DocKey: baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeGlobal}, Path: "notes/other.md"},
			Content: "# Other\n\nbread", ContentType: "text/markdown", UpdatedBy: "test"}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := knowledge.SearchEvalSet(ctx, s, embedding.NewBuiltin(), set, knowledge.EvalOptions{}); baton.AsError(err).Code != baton.ErrInvalidInput ||
		!strings.Contains(err.Error(), "notes/other.md") {
		t.Errorf("search over a store with another document: %v", err)
	}
	if _, err := knowledge.SearchEvalSet(ctx, evalStore(t), embedding.NewBuiltin(), set, knowledge.EvalOptions{}); baton.AsError(err).Code != baton.ErrInvalidInput {
		t.Errorf("search over an empty store: %v", err)
	}
	if _, err := knowledge.Evaluate(ctx, evalStore(t), nil, set, knowledge.EvalOptions{}); baton.AsError(err).Code != baton.ErrInvalidInput {
		t.Errorf("evaluate without an embedder: %v", err)
	}
}

func near(a, b float64) bool { return a-b < 1e-3 && b-a < 1e-3 }

// checkFigures fails unless f is a sane set of figures.
func checkFigures(t *testing.T, name string, f knowledge.EvalFigures) {
	t.Helper()
	for what, v := range map[string]float64{"recall": f.Recall, "mrr": f.MRR, "hit rate": f.HitRate} {
		if v < 0 || v > 1 {
			t.Errorf("%s: %s %v is outside 0..1", name, what, v)
		}
	}
	// A query's recall is 0 unless it had a hit; its reciprocal rank at most 1.
	if f.Recall > f.HitRate+1e-9 || f.MRR > f.HitRate+1e-9 {
		t.Errorf("%s: recall %v or MRR %v above the hit rate %v", name, f.Recall, f.MRR, f.HitRate)
	}
}

var corpusEval struct {
	once   sync.Once
	report *knowledge.EvalReport
	err    error
}

// corpusReport evaluates the built-in set once per test binary (about ten
// seconds: skipped with -short).
func corpusReport(t *testing.T) *knowledge.EvalReport {
	t.Helper()
	if testing.Short() {
		t.Skip("the search evaluation takes about ten seconds")
	}
	corpusEval.once.Do(func() {
		dir, err := os.MkdirTemp("", "baton-eval-")
		if err != nil {
			corpusEval.err = err
			return
		}
		defer os.RemoveAll(dir)
		ctx := context.Background()
		s, err := sqlite.Open(ctx, filepath.Join(dir, "eval.db"), sqlite.Options{})
		if err != nil {
			corpusEval.err = err
			return
		}
		defer s.Close()
		set, err := knowledge.DefaultEvalSet()
		if err != nil {
			corpusEval.err = err
			return
		}
		corpusEval.report, corpusEval.err = knowledge.Evaluate(ctx, s, embedding.NewBuiltin(), set, knowledge.EvalOptions{})
	})
	if corpusEval.err != nil {
		t.Fatal(corpusEval.err)
	}
	return corpusEval.report
}

// TestEvaluateCorpus: the evaluation of the built-in set runs and its
// figures are sane; keyword queries, written with their answers' words,
// are found by bm25 (a check of the labels as much as of the search).
func TestEvaluateCorpus(t *testing.T) {
	r := corpusReport(t)
	set, _ := knowledge.DefaultEvalSet()
	if r.Docs != len(set.Docs) || r.Queries != len(set.Queries) || len(r.PerQuery) != len(set.Queries) || r.Chunks < r.Docs || r.Limit != knowledge.EvalLimit {
		t.Fatalf("report header: %d docs, %d chunks, %d queries, %d results, limit %d", r.Docs, r.Chunks, r.Queries, len(r.PerQuery), r.Limit)
	}
	for _, m := range r.Modes {
		checkFigures(t, m.Mode, m.EvalFigures)
		n := 0
		for kind, f := range m.ByKind {
			checkFigures(t, m.Mode+"/"+kind, f)
			n += f.Queries
		}
		if n != r.Queries {
			t.Errorf("%s: the kinds count %d queries of %d", m.Mode, n, r.Queries)
		}
		t.Logf("%-8s recall@%d %.3f  MRR %.3f  hit %.3f  | paraphrase %.3f / %.3f | keyword %.3f / %.3f", m.Mode, r.Limit, m.Recall, m.MRR, m.HitRate,
			m.ByKind[knowledge.EvalParaphrase].Recall, m.ByKind[knowledge.EvalParaphrase].MRR,
			m.ByKind[knowledge.EvalKeyword].Recall, m.ByKind[knowledge.EvalKeyword].MRR)
	}
	if kw := r.Mode(knowledge.ModeKeyword).ByKind[knowledge.EvalKeyword]; kw.Recall < 0.8 {
		t.Errorf("bm25 finds %.2f of the keyword queries' answers, want at least 0.8: check their labels", kw.Recall)
	}
}

// TestHybridBeatsBM25 is the issue's requirement: "Hybrid must beat bm25
// alone on recall@5", measured on the built-in set with the default
// fusion.
func TestHybridBeatsBM25(t *testing.T) {
	r := corpusReport(t)
	h, k, s := r.Mode(knowledge.ModeHybrid), r.Mode(knowledge.ModeKeyword), r.Mode(knowledge.ModeSemantic)
	if h.Recall <= k.Recall {
		t.Errorf("hybrid recall@%d %.3f (MRR %.3f) does not beat bm25 alone %.3f (MRR %.3f); vectors alone %.3f (MRR %.3f), semantic weight %.2f",
			r.Limit, h.Recall, h.MRR, k.Recall, k.MRR, s.Recall, s.MRR, r.SemanticWeight)
	}
}
