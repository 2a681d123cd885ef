package knowledge

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// The search-evaluation set: real technical documents (the Go tree's
// package documentation, made by testdata/eval/gen/main.go) and hand-written
// queries labelled with the documents that answer them. It is embedded so
// `baton knowledge eval` measures search quality with no checkout at hand.
//
//go:generate go run testdata/eval/gen/main.go -out testdata/eval
//go:embed testdata/eval/docs/*.md testdata/eval/queries.json testdata/eval/NOTICE
var evalFiles embed.FS

// Kinds of evaluation queries.
const (
	// EvalParaphrase is a question asked the way a developer would ask
	// it, sharing few words with the document that answers it.
	EvalParaphrase = "paraphrase"
	// EvalKeyword uses the answer's own vocabulary.
	EvalKeyword = "keyword"
)

// Defaults of an evaluation.
const (
	// EvalLimit is how many distinct documents count as found (recall@5).
	EvalLimit = 5
	// evalBatch is how many documents one write transaction ingests.
	evalBatch = 64
)

// EvalModes are the search modes an evaluation measures, in report order:
// bm25 alone, vectors alone, and their fusion.
var EvalModes = []string{ModeKeyword, ModeSemantic, ModeHybrid}

// EvalSet is a labelled search-evaluation set.
type EvalSet struct {
	Docs    []EvalDoc
	Queries []EvalQuery
}

// EvalDoc is one document of the corpus; Path is relative to the set's
// directory (docs/net-http.md) and is the document's logical path.
type EvalDoc struct {
	Path    string
	Content string
}

// EvalQuery is one query and the documents that answer it.
type EvalQuery struct {
	ID       string   `json:"id"`
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"` // document paths, e.g. docs/hash-crc32.md
	Kind     string   `json:"kind"`     // EvalParaphrase or EvalKeyword
}

// DefaultEvalSet is the evaluation set built into baton.
func DefaultEvalSet() (*EvalSet, error) {
	sub, err := fs.Sub(evalFiles, "testdata/eval")
	if err != nil {
		return nil, err
	}
	return LoadEvalSet(sub)
}

// LoadEvalSet reads an evaluation set: every docs/*.md of fsys, and
// queries.json, a JSON array of EvalQuery. A query naming no document, or
// a document the set lacks, a repeated id or an unknown kind is
// ERR_INVALID_INPUT.
func LoadEvalSet(fsys fs.FS) (*EvalSet, error) {
	bad := func(format string, args ...any) error {
		return baton.Errorf(baton.ErrInvalidInput, format, args...).
			WithHint("an evaluation set is a directory with docs/*.md and queries.json: [{\"id\", \"query\", \"relevant\": [\"docs/….md\"], \"kind\": \"paraphrase\"|\"keyword\"}]")
	}
	names, err := fs.Glob(fsys, "docs/*.md")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, bad("the evaluation set has no docs/*.md")
	}
	slices.Sort(names)
	set := &EvalSet{}
	have := map[string]bool{}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		set.Docs = append(set.Docs, EvalDoc{Path: n, Content: string(b)})
		have[n] = true
	}
	b, err := fs.ReadFile(fsys, "queries.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, bad("the evaluation set has no queries.json")
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &set.Queries); err != nil {
		return nil, bad("queries.json: %v", err)
	}
	if len(set.Queries) == 0 {
		return nil, bad("queries.json holds no query")
	}
	ids := map[string]bool{}
	for i, q := range set.Queries {
		switch {
		case q.ID == "":
			return nil, bad("query %d of queries.json has no id", i+1)
		case ids[q.ID]:
			return nil, bad("query id %q is used twice", q.ID)
		case strings.TrimSpace(q.Query) == "":
			return nil, bad("query %s has no text", q.ID)
		case q.Kind != EvalParaphrase && q.Kind != EvalKeyword:
			return nil, bad("query %s has kind %q, not %s or %s", q.ID, q.Kind, EvalParaphrase, EvalKeyword)
		case len(q.Relevant) == 0:
			return nil, bad("query %s names no relevant document", q.ID)
		}
		ids[q.ID] = true
		for _, r := range q.Relevant {
			if !have[r] {
				return nil, bad("query %s names %s, which is not a document of the set", q.ID, r)
			}
		}
	}
	return set, nil
}

// EvalOptions tune an evaluation; the zero value is the default one.
type EvalOptions struct {
	// Limit is how many distinct documents a query returns (<= 0:
	// EvalLimit): recall and MRR are measured at this depth.
	Limit int
	// MaxPerFile is Query.MaxPerFile (<= 0: 1), so the first Limit hits
	// are Limit distinct documents whenever the candidates hold them.
	MaxPerFile int
	// SemanticWeight is the hybrid fusion's weight (0: DefaultSemanticWeight).
	SemanticWeight float64
	// Progress, if set, hears the stage ("index", "search") and how far it
	// is.
	Progress func(stage string, done, total int)
}

// EvalFigures are one mode's figures over some queries.
type EvalFigures struct {
	Queries int `json:"queries"`
	// Recall is the mean, over queries, of the share of a query's
	// relevant documents among the first Limit distinct documents.
	Recall float64 `json:"recall"`
	// MRR is the mean reciprocal rank of the first relevant document
	// among the distinct documents returned (0 when none is).
	MRR float64 `json:"mrr"`
	// HitRate is the share of queries with a relevant document returned.
	HitRate float64 `json:"hit_rate"`
}

// EvalModeReport is one search mode's figures, overall and per query kind.
type EvalModeReport struct {
	Mode string `json:"mode"`
	EvalFigures
	ByKind map[string]EvalFigures `json:"by_kind"`
}

// EvalQueryResult is how one query fared in each mode.
type EvalQueryResult struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Rank is, per mode, the 1-based rank of the first relevant document
	// among the distinct documents returned, 0 when none was.
	Rank map[string]int `json:"rank"`
	// Recall is, per mode, the share of the relevant documents returned.
	Recall map[string]float64 `json:"recall"`
	// Top is, per mode, the distinct documents returned, best first.
	Top map[string][]string `json:"top"`
}

// EvalReport is what an evaluation measured.
type EvalReport struct {
	Model          string            `json:"model"` // the embedder's model ("" when there is none)
	Docs           int               `json:"docs"`
	Chunks         int               `json:"chunks"`
	Queries        int               `json:"queries"`
	Limit          int               `json:"limit"`
	MaxPerFile     int               `json:"max_per_file"`
	SemanticWeight float64           `json:"semantic_weight"`
	Modes          []EvalModeReport  `json:"modes"` // in EvalModes order
	PerQuery       []EvalQueryResult `json:"per_query"`
	IndexMillis    int64             `json:"index_ms"`
	SearchMillis   int64             `json:"search_ms"`
}

// Mode returns the report of one mode, nil when it was not measured.
func (r *EvalReport) Mode(mode string) *EvalModeReport {
	for i := range r.Modes {
		if r.Modes[i].Mode == mode {
			return &r.Modes[i]
		}
	}
	return nil
}

// evalSpace is where an evaluation writes its corpus.
var evalSpace = baton.DocSpace{Scope: baton.ScopeGlobal}

// Evaluate ingests set's documents into store (global scope, each at its
// path) with emb, then runs every query in each of EvalModes with Search
// and measures recall@Limit and MRR over distinct documents. store must
// hold no other global document: use a fresh database.
func Evaluate(ctx context.Context, store baton.Store, emb baton.Embedder, set *EvalSet, opts EvalOptions) (*EvalReport, error) {
	if emb == nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "an evaluation needs an embedder: semantic and hybrid search use it").
			WithHint("pass the configured embedder, or embedding.NewBuiltin()")
	}
	start := time.Now()
	chunks, err := IngestEvalSet(ctx, store, emb, set, opts.Progress)
	if err != nil {
		return nil, err
	}
	indexed := time.Since(start)
	r, err := SearchEvalSet(ctx, store, emb, set, opts)
	if err != nil {
		return nil, err
	}
	r.Chunks, r.IndexMillis = chunks, indexed.Milliseconds()
	return r, nil
}

// IngestEvalSet writes set's documents into store's global space, indexed
// with emb: each batch is chunked and embedded outside any transaction,
// then written in one. It returns how many chunks were stored.
func IngestEvalSet(ctx context.Context, store baton.Store, emb baton.Embedder, set *EvalSet, progress func(stage string, done, total int)) (int, error) {
	chunks := 0
	report := func(done int) {
		if progress != nil {
			progress("index", done, len(set.Docs))
		}
	}
	report(0)
	for start := 0; start < len(set.Docs); start += evalBatch {
		part := set.Docs[start:min(start+evalBatch, len(set.Docs))]
		ixs := make([]*Indexed, len(part))
		for i, d := range part {
			ix, err := Index(ctx, emb, d.Path, d.Content, "text/markdown")
			if err != nil {
				return chunks, fmt.Errorf("indexing %s: %w", d.Path, err)
			}
			ixs[i] = ix
		}
		if err := store.Update(ctx, func(tx baton.Tx) error {
			for i, d := range part {
				doc := &baton.Document{DocKey: baton.DocKey{DocSpace: evalSpace, Path: d.Path}, Content: d.Content,
					ContentType: "text/markdown", UpdatedBy: "eval"}
				if err := Write(ctx, tx, emb, doc, ixs[i]); err != nil {
					return fmt.Errorf("writing %s: %w", d.Path, err)
				}
			}
			return nil
		}); err != nil {
			return chunks, err
		}
		for _, ix := range ixs {
			chunks += len(ix.Chunks)
		}
		report(start + len(part))
	}
	return chunks, nil
}

// SearchEvalSet runs set's queries over a store IngestEvalSet filled and
// measures each mode. A store whose global space holds documents the set
// lacks is ERR_INVALID_INPUT: they would compete with the corpus.
func SearchEvalSet(ctx context.Context, store baton.Store, emb baton.Embedder, set *EvalSet, opts EvalOptions) (*EvalReport, error) {
	limit, perFile, weight := opts.Limit, opts.MaxPerFile, opts.SemanticWeight
	if limit <= 0 {
		limit = EvalLimit
	}
	if perFile <= 0 {
		perFile = 1
	}
	if weight == 0 {
		weight = DefaultSemanticWeight
	}
	r := &EvalReport{Docs: len(set.Docs), Queries: len(set.Queries), Limit: limit, MaxPerFile: perFile, SemanticWeight: weight}
	if emb != nil {
		r.Model = emb.Model()
	}
	inSet := map[string]bool{}
	for _, d := range set.Docs {
		inSet[d.Path] = true
	}
	start := time.Now()
	err := store.View(ctx, func(tx baton.Tx) error {
		docs, err := tx.ListDocuments(ctx, baton.DocumentFilter{Spaces: []baton.DocSpace{evalSpace}})
		if err != nil {
			return err
		}
		for _, d := range docs {
			if !inSet[d.Path] {
				return baton.Errorf(baton.ErrInvalidInput, "the store holds %s, which is no document of the evaluation set", d.Path).
					WithHint("evaluate on a fresh database: every global document competes in the search")
			}
		}
		if len(docs) != len(set.Docs) {
			return baton.Errorf(baton.ErrInvalidInput, "the store holds %d of the set's %d documents", len(docs), len(set.Docs)).
				WithHint("ingest the set first (IngestEvalSet), or use Evaluate")
		}
		for i, q := range set.Queries {
			res := EvalQueryResult{ID: q.ID, Kind: q.Kind, Rank: map[string]int{}, Recall: map[string]float64{}, Top: map[string][]string{}}
			for _, mode := range EvalModes {
				hits, err := Search(ctx, tx, emb, Query{Spaces: []baton.DocSpace{evalSpace}, Query: q.Query, Mode: mode,
					Limit: limit, MaxPerFile: perFile, SemanticWeight: weight})
				if err != nil {
					return fmt.Errorf("query %s, %s search: %w", q.ID, mode, err)
				}
				top := distinctPaths(hits, limit)
				res.Top[mode] = top
				res.Rank[mode], res.Recall[mode] = judge(top, q.Relevant)
			}
			r.PerQuery = append(r.PerQuery, res)
			if opts.Progress != nil {
				opts.Progress("search", i+1, len(set.Queries))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.SearchMillis = time.Since(start).Milliseconds()
	for _, mode := range EvalModes {
		m := EvalModeReport{Mode: mode, ByKind: map[string]EvalFigures{}}
		m.EvalFigures = figures(r.PerQuery, mode, "")
		for _, kind := range []string{EvalParaphrase, EvalKeyword} {
			if f := figures(r.PerQuery, mode, kind); f.Queries > 0 {
				m.ByKind[kind] = f
			}
		}
		r.Modes = append(r.Modes, m)
	}
	return r, nil
}

// distinctPaths is the paths of hits in order, each once, at most limit.
func distinctPaths(hits []Hit, limit int) []string {
	out := []string{}
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if !slices.Contains(out, h.Key.Path) {
			out = append(out, h.Key.Path)
		}
	}
	return out
}

// judge is the 1-based rank of the first relevant path of top (0: none)
// and the share of relevant found in top.
func judge(top, relevant []string) (rank int, recall float64) {
	found := 0
	for i, p := range top {
		if slices.Contains(relevant, p) {
			found++
			if rank == 0 {
				rank = i + 1
			}
		}
	}
	return rank, float64(found) / float64(len(relevant))
}

// figures averages one mode over the queries of a kind ("" for all).
func figures(rs []EvalQueryResult, mode, kind string) EvalFigures {
	var f EvalFigures
	for _, q := range rs {
		if kind != "" && q.Kind != kind {
			continue
		}
		f.Queries++
		f.Recall += q.Recall[mode]
		if rank := q.Rank[mode]; rank > 0 {
			f.MRR += 1 / float64(rank)
			f.HitRate++
		}
	}
	if f.Queries > 0 {
		n := float64(f.Queries)
		f.Recall, f.MRR, f.HitRate = round4(f.Recall/n), round4(f.MRR/n), round4(f.HitRate/n)
	}
	return f
}
