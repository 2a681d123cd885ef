package vault

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/membot"
)

// Limits and defaults of the two searches (symphony-mcp-tools.md).
const (
	searchDefaultK   = 5
	searchMaxK       = 20
	retrieveDefaultK = 5
	retrieveMaxK     = 50
	defaultMinScore  = 0.3
	// candidates is how many hybrid hits search_knowledge ranks before
	// min_score and top_k cut them: enough that the best keyword hit,
	// which normalises the keyword side, is among them.
	candidates = 50
)

type searchIn struct {
	Query    string  `json:"query" jsonschema:"Natural language search query to find relevant knowledge chunks."`
	TopK     int     `json:"top_k,omitempty" jsonschema:"Maximum number of results to return."`
	MinScore float64 `json:"min_score,omitempty" jsonschema:"Minimum score a result must reach, 0..1: 0.6 × the cosine similarity of the query's and the chunk's embeddings + 0.4 × the chunk's keyword relevance relative to the query's best keyword match. 0 keeps every ranked chunk."`
}

type searchHit struct {
	Snippet    string   `json:"snippet" jsonschema:"At most 300 characters of the chunk, around the first query word it holds."`
	Source     string   `json:"source" jsonschema:"The document's logical path (the project-relative file path for files added with vault_update)."`
	Scope      string   `json:"scope" jsonschema:"Where the document lives: project (this project's knowledge) or global (every project's)."`
	ChunkIndex int      `json:"chunk_index" jsonschema:"0-based position of the chunk in its document."`
	Score      float64  `json:"score" jsonschema:"Relevance in 0..1, what min_score is compared with: 0.6 × the cosine similarity (negative counts as 0) + 0.4 × the chunk's keyword relevance relative to the best keyword match of the query (0 when no query word occurs in it)."`
	Similarity *float64 `json:"similarity,omitempty" jsonschema:"Cosine similarity of the query's and the chunk's embeddings, -1..1; absent when the chunk has no embedding by the current model."`
	Keyword    bool     `json:"keyword_match" jsonschema:"A word of the query occurs in the chunk."`
	RankScore  float64  `json:"rank_score" jsonschema:"The hybrid score results are ordered by: keyword and semantic scores fused, each relative to the best of its list; 1 = best in both."`
	Context    string   `json:"context,omitempty" jsonschema:"Heading breadcrumb of the chunk (A > B), when it has one."`
	VersionID  string   `json:"version_id" jsonschema:"The document version the chunk belongs to (its current version)."`
}

type searchOut struct {
	Query   string      `json:"query" jsonschema:"The query searched."`
	Results []searchHit `json:"results" jsonschema:"Matching chunks, best first by hybrid rank, at most top_k, none under min_score."`
	Total   int         `json:"total" jsonschema:"Number of results."`
}

// SearchKnowledge is search_knowledge: hybrid (semantic and keyword)
// search over the project's and the global knowledge.
var SearchKnowledge = tool.New(tool.Definition[searchIn, searchOut]{
	Name:    "search_knowledge",
	Toolset: Toolset,
	Description: "Search knowledge documents by semantic similarity: the project's and the global knowledge, ranked by " +
		"hybrid search (embedding similarity fused with keyword relevance). Returns ranked text snippets with source " +
		"attribution and scores; results scoring under min_score are dropped. Use vault_retrieve for whole chunks.",
	Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	Profiles:    tool.Profiles,
	Args:        []string{"query"},
	Input: tool.Rules{
		"query":     queryRule,
		"top_k":     tool.Range(1, searchMaxK).WithDefault(searchDefaultK),
		"min_score": tool.Range(0, 1).WithDefault(defaultMinScore),
	},
	Output: tool.Rules{"results.scope": tool.Enum(baton.ScopeProject, baton.ScopeGlobal)},
	Execute: func(ctx context.Context, c *tool.Call, in searchIn) (searchOut, error) {
		spaces, err := membot.Spaces(ctx, c)
		if err != nil {
			return searchOut{}, err
		}
		hits, err := knowledge.Search(ctx, c.Tx, c.Env.Embed(), knowledge.Query{Spaces: spaces, Query: in.Query,
			Mode: knowledge.ModeHybrid, Limit: candidates})
		if err != nil {
			return searchOut{}, hinted(err, "rephrase the query with a few plain words, e.g. retry pattern with exponential backoff")
		}
		out := searchOut{Query: in.Query, Results: []searchHit{}}
		hidden := shadowed(ctx, c, spaces)
		for i, s := range relevance(hits) {
			if len(out.Results) == in.TopK {
				break
			}
			if s < in.MinScore {
				continue
			}
			if hide, err := hidden(hits[i].Key); err != nil {
				return searchOut{}, err
			} else if hide {
				continue
			}
			h := hits[i]
			out.Results = append(out.Results, searchHit{Snippet: h.Snippet, Source: h.Key.Path, Scope: h.Key.Scope,
				ChunkIndex: h.Ordinal, Score: s, Similarity: h.SemanticScore, Keyword: h.KeywordScore != nil,
				RankScore: h.Score, Context: h.Context, VersionID: h.Version})
		}
		out.Total = len(out.Results)
		return out, nil
	},
	Text: func(o searchOut) string {
		if len(o.Results) == 0 {
			return "no knowledge matches " + fmt.Sprintf("%q", o.Query) + "\n"
		}
		var b strings.Builder
		for i, r := range o.Results {
			fmt.Fprintf(&b, "%d. %s #%d (%s, score %.4f)\n", i+1, r.Source, r.ChunkIndex, r.Scope, r.Score)
			if r.Context != "" {
				fmt.Fprintf(&b, "   %s\n", r.Context)
			}
			fmt.Fprintf(&b, "   %s\n", oneLine(r.Snippet))
		}
		return b.String()
	},
})

// relevanceWeight is the cosine's share of relevance.
const relevanceWeight = 0.6

// relevance scores each hybrid hit in 0..1 for min_score: 0.6 × max(cosine,
// 0) + 0.4 × keyword relevance / the best keyword relevance among the hits.
// The fused score cannot serve: it is relative to one search (its best hit
// is 1 however poor), while min_score's default 0.3 asks for an absolute
// floor, which the raw cosine gives.
func relevance(hits []knowledge.Hit) []float64 {
	w := relevanceWeight
	best := 0.0
	for _, h := range hits {
		if h.KeywordScore != nil && *h.KeywordScore > best {
			best = *h.KeywordScore
		}
	}
	out := make([]float64, len(hits))
	for i, h := range hits {
		s := 0.0
		if h.SemanticScore != nil && *h.SemanticScore > 0 {
			s = w * *h.SemanticScore
		}
		if h.KeywordScore != nil {
			k := 1.0 // scores that cannot be compared: a match is a match
			if best > 0 {
				k = max(*h.KeywordScore, 0) / best
			}
			s += (1 - w) * k
		}
		out[i] = math.Round(min(s, 1)*1e4) / 1e4
	}
	return out
}

type retrieveIn struct {
	Query string `json:"query" jsonschema:"Natural language search query for semantic similarity matching."`
	TopK  int    `json:"top_k,omitempty" jsonschema:"Number of results to return."`
}

type retrieveMeta struct {
	VersionID  string `json:"version_id" jsonschema:"The document version the chunk belongs to (its current version)."`
	ChunkIndex int    `json:"chunk_index" jsonschema:"0-based position of the chunk in its document."`
	Heading    string `json:"heading" jsonschema:"Heading breadcrumb of the chunk (A > B); empty when it has none."`
	MIME       string `json:"mime" jsonschema:"The document's content type, e.g. text/markdown."`
	Scope      string `json:"scope" jsonschema:"Where the document lives: project (this project's knowledge) or global (every project's)."`
	SourcePath string `json:"source_path,omitempty" jsonschema:"The project file the version was read from; absent for content written inline."`
	Start      int    `json:"start" jsonschema:"Byte offset of the chunk in the document."`
	End        int    `json:"end" jsonschema:"Byte offset just past the chunk in the document."`
}

type retrieveHit struct {
	Text     string       `json:"text" jsonschema:"The whole chunk."`
	Path     string       `json:"path" jsonschema:"The document's logical path."`
	Score    float64      `json:"score" jsonschema:"Cosine similarity of the query's and the chunk's embeddings (0..1 here: chunks with no positive similarity are left out)."`
	Metadata retrieveMeta `json:"metadata" jsonschema:"Where the chunk comes from."`
}

type retrieveOut struct {
	Query   string        `json:"query" jsonschema:"The query searched."`
	Model   string        `json:"model" jsonschema:"The embedding model the similarities are measured with."`
	Results []retrieveHit `json:"results" jsonschema:"Chunks by descending cosine similarity, at most top_k."`
	Total   int           `json:"total" jsonschema:"Number of results."`
}

// VaultRetrieve is vault_retrieve: vector-only search returning whole
// chunks.
var VaultRetrieve = tool.New(tool.Definition[retrieveIn, retrieveOut]{
	Name:    "vault_retrieve",
	Toolset: Toolset,
	Description: "Semantic search over the Knowledge Vault (the project's and the global knowledge) using cosine similarity " +
		"on embeddings. Returns ranked results with the whole chunk text, path, score and metadata (version, chunk index, " +
		"heading, mime type).",
	Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	Profiles:    tool.Profiles,
	Args:        []string{"query"},
	Input: tool.Rules{
		"query": queryRule,
		"top_k": tool.Range(1, retrieveMaxK).WithDefault(retrieveDefaultK),
	},
	Output: tool.Rules{"results.metadata.scope": tool.Enum(baton.ScopeProject, baton.ScopeGlobal)},
	Execute: func(ctx context.Context, c *tool.Call, in retrieveIn) (retrieveOut, error) {
		spaces, err := membot.Spaces(ctx, c)
		if err != nil {
			return retrieveOut{}, err
		}
		emb := c.Env.Embed()
		// Deeper than top_k: global hits a project path hides are dropped.
		hits, err := knowledge.Search(ctx, c.Tx, emb, knowledge.Query{Spaces: spaces, Query: in.Query,
			Mode: knowledge.ModeSemantic, Limit: min(2*in.TopK, retrieveMaxK)})
		if err != nil {
			return retrieveOut{}, hinted(err, "rephrase the query with a few plain words, e.g. retry pattern with exponential backoff")
		}
		out := retrieveOut{Query: in.Query, Model: emb.Model(), Results: []retrieveHit{}}
		hidden := shadowed(ctx, c, spaces)
		for _, h := range hits {
			if len(out.Results) == in.TopK {
				break
			}
			if h.SemanticScore == nil || *h.SemanticScore <= 0 {
				continue
			}
			if hide, err := hidden(h.Key); err != nil {
				return retrieveOut{}, err
			} else if hide {
				continue
			}
			out.Results = append(out.Results, retrieveHit{Text: h.Text, Path: h.Key.Path, Score: *h.SemanticScore,
				Metadata: retrieveMeta{VersionID: h.Version, ChunkIndex: h.Ordinal, Heading: h.Context, MIME: h.ContentType,
					Scope: h.Key.Scope, SourcePath: h.SourcePath, Start: h.Start, End: h.End}})
		}
		out.Total = len(out.Results)
		return out, nil
	},
	Text: func(o retrieveOut) string {
		if len(o.Results) == 0 {
			return "no knowledge is similar to " + fmt.Sprintf("%q", o.Query) + "\n"
		}
		var b strings.Builder
		for i, r := range o.Results {
			fmt.Fprintf(&b, "%d. %s #%d (%s, score %.4f)", i+1, r.Path, r.Metadata.ChunkIndex, r.Metadata.Scope, r.Score)
			if r.Metadata.Heading != "" {
				fmt.Fprintf(&b, " — %s", r.Metadata.Heading)
			}
			b.WriteString("\n")
			b.WriteString(strings.TrimRight(r.Text, "\n"))
			b.WriteString("\n\n")
		}
		return b.String()
	},
})

// shadowed says whether a hit's document is hidden from the session: a
// global document whose path the session's project also holds (as membot
// reads them, the project's path hides the global one).
func shadowed(ctx context.Context, c *tool.Call, spaces []baton.DocSpace) func(baton.DocKey) (bool, error) {
	seen := map[string]bool{}
	return func(k baton.DocKey) (bool, error) {
		if k.Scope != baton.ScopeGlobal || len(spaces) < 2 || spaces[0].Scope != baton.ScopeProject {
			return false, nil
		}
		if hide, ok := seen[k.Path]; ok {
			return hide, nil
		}
		_, err := c.Tx.Document(ctx, baton.DocKey{DocSpace: spaces[0], Path: k.Path}, "")
		switch {
		case err == nil:
			seen[k.Path] = true
		case isNotFound(err):
			seen[k.Path] = false
		default:
			return false, err
		}
		return seen[k.Path], nil
	}
}

// oneLine collapses s's whitespace runs into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
