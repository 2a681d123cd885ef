package membot

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

type searchIn struct {
	Query          string `json:"query,omitempty" jsonschema:"Natural-language query, for the semantic side."`
	Pattern        string `json:"pattern,omitempty" jsonschema:"Keywords or identifiers, for the keyword (BM25) side. Give query, pattern or both; one alone feeds both sides."`
	Mode           string `json:"mode,omitempty" jsonschema:"hybrid fuses both sides' scores; semantic or keyword uses one."`
	PathPrefix     string `json:"path_prefix,omitempty" jsonschema:"Only paths starting with this raw string prefix."`
	Limit          int    `json:"limit,omitempty" jsonschema:"Most hits to return."`
	IncludeHistory bool   `json:"include_history,omitempty" jsonschema:"Also search older versions (semantic side only)."`
	Rerank         bool   `json:"rerank,omitempty" jsonschema:"Ask for cross-encoder reranking; baton has none, so results are never reranked (reranked is false)."`
}

type searchHit struct {
	LogicalPath   string   `json:"logical_path" jsonschema:"The document's path."`
	VersionID     string   `json:"version_id" jsonschema:"The version the chunk belongs to (current unless include_history)."`
	ChunkIndex    int      `json:"chunk_index" jsonschema:"0-based chunk of that version."`
	Snippet       string   `json:"snippet" jsonschema:"Up to 300 characters of the chunk, around the first search term; … marks a cut."`
	Score         float64  `json:"score" jsonschema:"Fused score in 0..1, relative to this search: 1 means best in every list searched."`
	SemanticScore *float64 `json:"semantic_score,omitempty" jsonschema:"Cosine similarity to the query; absent when the chunk was not in the semantic list."`
	KeywordScore  *float64 `json:"keyword_score,omitempty" jsonschema:"Keyword relevance (higher is better); absent when the chunk was not in the keyword list."`
	RerankScore   *float64 `json:"rerank_score,omitempty" jsonschema:"Reranker score; always absent, baton does not rerank."`
}

type searchOut struct {
	Hits     []searchHit `json:"hits" jsonschema:"Best first."`
	Mode     string      `json:"mode" jsonschema:"The mode searched."`
	Reranked bool        `json:"reranked" jsonschema:"Always false: baton has no reranker."`
}

// Search limits.
const (
	maxSearchLimit = 100
	maxQueryLen    = 2000
	// searchPerFile is membot's default search.max_per_file.
	searchPerFile = 3
)

// Search is membot_search: hybrid (keyword and semantic) search over the
// chunks of the documents the session sees.
var Search = tool.New(tool.Definition[searchIn, Op[searchOut]]{
	Name:    "membot_search",
	Toolset: Toolset,
	Description: "`grep -r` + semantic search: hybrid search over the stored documents. Pass query (natural " +
		"language, semantic) and/or pattern (keywords, BM25); hits found by both rise to the top " +
		"(their scores fused). Searches current versions; include_history also searches older ones. " +
		"The primary way to find content: prefer it to reading documents one by one.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"query":       tool.MaxLen(maxQueryLen),
		"pattern":     tool.MaxLen(maxQueryLen),
		"mode":        tool.Enum(knowledge.ModeHybrid, knowledge.ModeSemantic, knowledge.ModeKeyword).WithDefault(knowledge.ModeHybrid),
		"path_prefix": tool.MaxLen(baton.MaxDocumentPath),
		"limit":       tool.Range(1, maxSearchLimit).WithDefault(10),
	},
	Output: tool.Rules{"data.mode": tool.Enum(knowledge.ModeHybrid, knowledge.ModeSemantic, knowledge.ModeKeyword)},
	Args:   []string{"query"},
	Execute: func(ctx context.Context, c *tool.Call, in searchIn) (Op[searchOut], error) {
		query, pattern := strings.TrimSpace(in.Query), strings.TrimSpace(in.Pattern)
		if query == "" && pattern == "" {
			return fail[searchOut](baton.Errorf(baton.ErrInvalidInput, "search needs a query or a pattern").
				WithHint(`pass a natural-language query (e.g. "how retries back off") or a keyword pattern (e.g. RetryPolicy)`))
		}
		spaces, err := Spaces(ctx, c)
		if err != nil {
			return fail[searchOut](err)
		}
		q := knowledge.Query{Spaces: spaces, PathPrefix: normPrefix(in.PathPrefix), Query: query, Pattern: pattern,
			Mode: in.Mode, MaxPerFile: searchPerFile, IncludeHistory: in.IncludeHistory}
		hits, err := visibleHits(ctx, c, q, in.Limit)
		if err != nil {
			return fail[searchOut](err)
		}
		out := searchOut{Hits: make([]searchHit, 0, len(hits)), Mode: in.Mode}
		for _, h := range hits {
			out.Hits = append(out.Hits, searchHit{LogicalPath: h.Key.Path, VersionID: h.Version, ChunkIndex: h.Ordinal,
				Snippet: h.Snippet, Score: h.Score, SemanticScore: h.SemanticScore, KeywordScore: h.KeywordScore})
		}
		return ok(out)
	},
})

// visibleHits runs q for limit hits the session may see: a hit in the
// global space at a path its project's space also holds is hidden, as
// reads hide it. When hiding leaves fewer than limit, the search runs
// again deeper, so hidden hits do not crowd out visible ones.
func visibleHits(ctx context.Context, c *tool.Call, q knowledge.Query, limit int) ([]knowledge.Hit, error) {
	hidden := map[string]bool{}
	shadowed := func(k baton.DocKey) (bool, error) {
		if k.Scope != baton.ScopeGlobal || len(q.Spaces) < 2 {
			return false, nil
		}
		h, seen := hidden[k.Path]
		if seen {
			return h, nil
		}
		_, err := c.Tx.Document(ctx, baton.DocKey{DocSpace: q.Spaces[0], Path: k.Path}, "")
		if err != nil && !isNotFound(err) {
			return false, err
		}
		hidden[k.Path] = err == nil
		return err == nil, nil
	}
	for depth := limit; ; depth = min(depth*2, baton.MaxChunkSearchLimit) {
		q.Limit = depth
		hits, err := knowledge.Search(ctx, c.Tx, c.Env.Embed(), q)
		if err != nil {
			return nil, err
		}
		kept := make([]knowledge.Hit, 0, len(hits))
		for _, h := range hits {
			hide, err := shadowed(h.Key)
			if err != nil {
				return nil, err
			}
			if !hide {
				kept = append(kept, h)
			}
		}
		if len(kept) >= limit || len(hits) < depth || depth >= baton.MaxChunkSearchLimit {
			return kept[:min(len(kept), limit)], nil
		}
	}
}
