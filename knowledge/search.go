package knowledge

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viterin/vek/vek32"

	"github.com/baton-dev/baton"
)

// Search modes (membot_search's mode).
const (
	ModeHybrid   = "hybrid"
	ModeSemantic = "semantic"
	ModeKeyword  = "keyword"
)

// DefaultSemanticWeight is the hybrid score's weight of the semantic side;
// the keyword side weighs 1 minus it. Chosen on the built-in evaluation
// set (`baton knowledge eval`) with the built-in embedder: hybrid recall@5
// is above bm25 alone's, and MRR within a query of it or above, for every
// weight from 0.2 to 0.4; 0.3 is the middle of that flat region. Over 0.5
// the word vectors, which know no identifier and no phrase, outvote bm25.
const DefaultSemanticWeight = 0.3

// Query is one hybrid search.
type Query struct {
	Spaces     []baton.DocSpace
	PathPrefix string
	// Query feeds the semantic side, Pattern the keyword side; when only
	// one is given it feeds both.
	Query, Pattern string
	Mode           string // ModeHybrid (default), ModeSemantic or ModeKeyword
	Limit          int    // hits returned; <= 0 means 10
	// SemanticWeight in [0, 1] is the hybrid score's weight of the
	// semantic side (see Hit.Score); 0 means DefaultSemanticWeight.
	SemanticWeight float64
	// MaxPerFile caps a path's hits in the first pass (0: no cap); the
	// rest back-fill in score order so Limit hits come back when they exist.
	MaxPerFile int
	// MinScore drops hits whose Score (0..1) is under it.
	MinScore float64
	// IncludeHistory widens the semantic side to kept older versions.
	IncludeHistory bool
}

// Hit is one search result.
type Hit struct {
	Key     baton.DocKey
	Version string
	Ordinal int
	ChunkID int64
	// Score is the fused score in 0..1, higher is better, rounded to 4
	// decimals: (1-w)·k + w·s for the semantic weight w (1 in semantic
	// mode, 0 in keyword mode), where k is the chunk's keyword relevance
	// divided by the best of the keyword list and s its cosine rescaled so
	// that the semantic list's best is 1 and its last 0; a chunk absent
	// from a list has 0 for it. 1 means best in every list searched. Both
	// parts are relative to the query's candidates: a score compares hits
	// of one search, not of two.
	Score float64
	// SemanticScore is the cosine similarity (4 decimals), nil when the
	// chunk was not in the semantic list; KeywordScore the raw relevance
	// (bm25 on SQLite, ts_rank on PostgreSQL, higher is better), nil when
	// not in the keyword list.
	SemanticScore, KeywordScore *float64
	Snippet                     string // at most 300 characters of the chunk's text
	Text                        string // the chunk's whole text
	ContentType                 string // the version's mime type
	Context                     string // heading breadcrumb
	SourcePath                  string // the file the version was read from, "" for inline writes
	Start, End                  int    // the chunk's byte offsets in the version
}

// Cosine is the cosine similarity of a and b (vectors of one length), 0
// when either is all zeros.
func Cosine(a, b []float32) float64 {
	na, nb := vek32.Norm(a), vek32.Norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	return float64(vek32.Dot(a, b) / (na * nb))
}

// Ranked is one entry of a ranked list given to Fuse, best first.
type Ranked struct {
	ChunkID int64
	Score   float64 // the list's own score, higher is better
}

// Fused is one fused result.
type Fused struct {
	ChunkID                   int64
	Score                     float64 // the hybrid score, 0..1 (Hit.Score unrounded)
	Semantic, Keyword         *float64
	SemanticRank, KeywordRank int // 1-based, 0 when absent
}

// Fuse merges a semantic list of cosines and a keyword list of relevances
// (each best first) by their scores, best first: a chunk scores
// (1-semanticWeight)·k + semanticWeight·s, where k is its keyword
// relevance divided by the list's best (1 for every match when the best is
// not positive: relevances that cannot be compared) and s its cosine
// rescaled to 0..1 between the semantic list's last and best (1 when they
// are equal and positive, 0 when they are equal and not: a query vector
// that matches nothing ranks nothing); absent from a list, the part is 0.
// Scores, not ranks, are fused: a chunk far ahead in one list stays ahead
// of one barely ahead in the other, which rank fusion forgets. Ties go to
// the better semantic rank, then the better keyword rank, then the
// smaller chunk id.
func Fuse(semantic, keyword []Ranked, semanticWeight float64) []Fused {
	byID := map[int64]*Fused{}
	var order []*Fused
	get := func(id int64) *Fused {
		f := byID[id]
		if f == nil {
			f = &Fused{ChunkID: id}
			byID[id] = f
			order = append(order, f)
		}
		return f
	}
	if len(semantic) > 0 {
		hi, lo := semantic[0].Score, semantic[0].Score
		for _, r := range semantic {
			hi, lo = max(hi, r.Score), min(lo, r.Score)
		}
		for i, r := range semantic {
			f := get(r.ChunkID)
			if f.SemanticRank != 0 {
				continue
			}
			s := r.Score
			f.Semantic, f.SemanticRank = &s, i+1
			switch {
			case hi > lo:
				f.Score += semanticWeight * (s - lo) / (hi - lo)
			case hi > 0:
				f.Score += semanticWeight
			}
		}
	}
	best := 0.0
	for _, r := range keyword {
		best = max(best, r.Score)
	}
	for i, r := range keyword {
		f := get(r.ChunkID)
		if f.KeywordRank != 0 {
			continue
		}
		s := r.Score
		f.Keyword, f.KeywordRank = &s, i+1
		k := 1.0
		if best > 0 {
			k = max(s, 0) / best
		}
		f.Score += (1 - semanticWeight) * k
	}
	rank := func(r int) int {
		if r == 0 {
			return math.MaxInt
		}
		return r
	}
	slices.SortFunc(order, func(a, b *Fused) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(rank(a.SemanticRank), rank(b.SemanticRank)),
			cmp.Compare(rank(a.KeywordRank), rank(b.KeywordRank)), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	out := make([]Fused, len(order))
	for i, f := range order {
		out[i] = *f
	}
	return out
}

// Search runs q over tx: the keyword list from tx.SearchChunks, the
// semantic list by exact cosine between emb's vector of the query and every
// stored vector of emb's model, each up to Limit×5 deep, fused by Fuse
// (keyword mode weighs the semantic side 0, semantic mode 1) and cut as
// membot_search does (§5.4). emb may be nil in keyword mode.
func Search(ctx context.Context, tx baton.KnowledgeTx, emb baton.Embedder, q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Query) == "" && strings.TrimSpace(q.Pattern) == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "neither query nor pattern was given").
			WithHint("give a natural-language query, a keyword pattern, or both")
	}
	if q.Query == "" {
		q.Query = q.Pattern
	}
	if q.Pattern == "" {
		q.Pattern = q.Query
	}
	switch q.Mode {
	case "":
		q.Mode = ModeHybrid
	case ModeHybrid, ModeSemantic, ModeKeyword:
	default:
		return nil, baton.Errorf(baton.ErrInvalidInput, "mode %q is not one of hybrid, semantic, keyword", q.Mode).
			WithDetails("field", "mode").WithHint("use mode hybrid, semantic or keyword")
	}
	if q.SemanticWeight < 0 || q.SemanticWeight > 1 {
		return nil, baton.Errorf(baton.ErrInvalidInput, "semantic weight %v is outside 0..1", q.SemanticWeight).
			WithHint("use a weight between 0 and 1")
	}
	if q.SemanticWeight == 0 {
		q.SemanticWeight = DefaultSemanticWeight
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	depth := min(q.Limit*5, baton.MaxChunkSearchLimit)
	if q.Mode != ModeKeyword && emb == nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "no embedder is configured for %s search", q.Mode).
			WithHint("use mode keyword, or configure an embedder")
	}

	texts := map[int64]chunkInfo{}
	var keyword, semantic []Ranked
	if q.Mode != ModeSemantic {
		hits, err := tx.SearchChunks(ctx, baton.ChunkQuery{Spaces: q.Spaces, PathPrefix: q.PathPrefix, Text: q.Pattern, Limit: depth})
		if err != nil && (q.Mode == ModeKeyword || !isInvalid(err)) {
			return nil, err
		}
		for _, h := range hits {
			keyword = append(keyword, Ranked{ChunkID: h.Chunk.ID, Score: -h.Score})
			texts[h.Chunk.ID] = chunkInfo{key: h.Chunk.Key, version: h.Chunk.Version, ordinal: h.Chunk.Ordinal}
		}
	}
	if q.Mode != ModeKeyword {
		vs, err := emb.Embed(ctx, []string{q.Query})
		if err != nil {
			return nil, err
		}
		if len(vs) != 1 {
			return nil, baton.Errorf(baton.ErrInternal, "the embedder returned %d vectors for 1 text", len(vs))
		}
		qv := vs[0]
		// Vectors of another width under the same model id are skipped by
		// the store: unusable until re-embedded.
		hits, err := tx.SearchVectors(ctx, baton.VectorFilter{Spaces: q.Spaces, PathPrefix: q.PathPrefix, Model: emb.Model(),
			IncludeHistory: q.IncludeHistory}, qv, depth)
		if err != nil {
			return nil, err
		}
		for _, v := range hits {
			semantic = append(semantic, Ranked{ChunkID: v.ChunkID, Score: v.Score})
			if _, ok := texts[v.ChunkID]; !ok {
				texts[v.ChunkID] = chunkInfo{key: v.Key, version: v.Version, ordinal: v.Ordinal}
			}
		}
	}
	weight := q.SemanticWeight
	switch q.Mode {
	case ModeKeyword:
		weight = 0
	case ModeSemantic:
		weight = 1
	}
	fused := Fuse(semantic, keyword, weight)
	fused = fused[:min(len(fused), min(50, max(q.Limit*3, 20)))]
	var kept []Fused
	for _, f := range fused {
		if round4(f.Score) >= q.MinScore {
			kept = append(kept, f)
		}
	}
	kept = diversify(kept, texts, q.MaxPerFile, q.Limit)

	terms := snippetTerms(q.Pattern)
	// The kept hits' texts and source paths, in one read: a vector hit
	// knows only its chunk's id.
	ids := make([]int64, len(kept))
	for i, f := range kept {
		ids[i] = f.ChunkID
	}
	cs, err := tx.ChunksByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*baton.Chunk, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
	}
	out := []Hit{}
	for _, f := range kept {
		ci := texts[f.ChunkID]
		c := byID[f.ChunkID]
		if c == nil {
			continue // gone since the lists were made (a write transaction's search)
		}
		h := Hit{Key: ci.key, Version: ci.version, Ordinal: ci.ordinal, ChunkID: f.ChunkID, Score: round4(f.Score),
			Snippet: Snippet(c.Text, terms), Text: c.Text, ContentType: c.ContentType, Context: c.Context,
			SourcePath: c.SourcePath, Start: c.Start, End: c.End}
		if f.Semantic != nil {
			s := round4(*f.Semantic)
			h.SemanticScore = &s
		}
		if f.Keyword != nil {
			s := *f.Keyword
			h.KeywordScore = &s
		}
		out = append(out, h)
	}
	return out, nil
}

// chunkInfo is what Search knows of a candidate chunk.
type chunkInfo struct {
	key     baton.DocKey
	version string
	ordinal int
}

func isInvalid(err error) bool {
	var e *baton.Error
	return errors.As(err, &e) && e.Code == baton.ErrInvalidInput
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// diversify keeps at most perFile hits of one path in a first pass (0: no
// cap), then back-fills from the overflow in score order, up to limit.
func diversify(fs []Fused, texts map[int64]chunkInfo, perFile, limit int) []Fused {
	if perFile <= 0 {
		return fs[:min(len(fs), limit)]
	}
	var out, overflow []Fused
	count := map[baton.DocKey]int{}
	for _, f := range fs {
		k := texts[f.ChunkID].key
		if count[k] < perFile {
			count[k]++
			out = append(out, f)
		} else {
			overflow = append(overflow, f)
		}
	}
	out = out[:min(len(out), limit)]
	for _, f := range overflow {
		if len(out) >= limit {
			break
		}
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b Fused) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// stopWords never position a snippet.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "are": true, "but": true, "not": true, "you": true, "all": true,
	"any": true, "can": true, "had": true, "her": true, "was": true, "one": true, "our": true, "out": true,
	"has": true, "his": true, "how": true, "its": true, "may": true, "who": true, "with": true, "this": true,
	"that": true, "from": true, "they": true, "what": true, "when": true, "where": true, "which": true,
	"will": true, "into": true, "have": true, "been": true, "there": true, "their": true, "about": true,
}

// snippetTerms are the words that position a snippet (§5.4): lower-case
// runs of letters, digits and _ of 3 or more characters, no stop words,
// deduplicated, at most 10.
func snippetTerms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_'
	}) {
		if utf8.RuneCountInString(w) >= 3 && !stopWords[w] && !slices.Contains(out, w) && len(out) < 10 {
			out = append(out, w)
		}
	}
	return out
}

// snippetLen is the longest snippet, in characters.
const snippetLen = 300

// Snippet is at most 300 characters of text: when a term occurs, from up to
// 100 characters before its earliest occurrence, snapped forward to a word
// start; "…" marks a cut at either end.
func Snippet(text string, terms []string) string {
	r := []rune(text)
	lower := []rune(strings.ToLower(text))
	if len(lower) != len(r) { // a case change altered the length: search the text itself
		lower = r
	}
	start, first := 0, -1
	for _, t := range terms {
		if i := runeIndex(lower, []rune(t)); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first > 100 {
		start = first - 100
		for start < first && !(isWordRune(r[start]) && !isWordRune(r[start-1])) {
			start++
		}
	}
	avail, lead, tail := snippetLen, "", ""
	if start > 0 {
		avail, lead = avail-1, "…"
	}
	end := min(len(r), start+avail)
	if end < len(r) {
		end, tail = end-1, "…"
	}
	return lead + string(r[start:end]) + tail
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' }

func runeIndex(s, sub []rune) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
