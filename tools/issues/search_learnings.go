package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
	"github.com/baton-dev/baton/tools/session"
)

type searchIn struct {
	Query           string  `json:"query" jsonschema:"Search query (supports prefix matching and stemming): any word may match, more matches rank higher; FTS5 syntax narrows it: a AND b, a NOT b, a OR b, \"exact phrase\" (written words), prefix*, NEAR(a b, 10) and parentheses, operators in capitals. A malformed query is ERR_INVALID_INPUT with its position."`
	Limit           float64 `json:"limit,omitempty" jsonschema:"Max results (default 50, max 100)."`
	CrossProject    bool    `json:"cross_project,omitempty" jsonschema:"Search other projects instead of current (default false)."`
	MinQualityScore float64 `json:"min_quality_score,omitempty" jsonschema:"Filter out learnings below this quality threshold (0-100). Verified learnings always pass."`
}

type hitView struct {
	learningView
	IssueID       string  `json:"issue_id" jsonschema:"The issue it was learned on."`
	Project       string  `json:"project" jsonschema:"Its project."`
	Rank          float64 `json:"rank" jsonschema:"50% bm25 + 30% field priority + 20% quality score, 0-1."`
	MatchedField  string  `json:"matched_field" jsonschema:"pattern, context or applies_to: the most important field the query matched."`
	BM25          float64 `json:"bm25" jsonschema:"Relevance scaled to 0-1 within these results."`
	FieldPriority float64 `json:"field_priority" jsonschema:"1 pattern, 0.6 context, 0.3 applies_to."`
}

type searchOut struct {
	Results []hitView `json:"results" jsonschema:"Matching learnings, best first."`
	Count   int       `json:"count" jsonschema:"Results returned."`
	Scope   string    `json:"scope" jsonschema:"The project searched, or other projects when cross_project."`
}

// SearchLearnings is search_learnings.
var SearchLearnings = tool.New(tool.Definition[searchIn, searchOut]{
	Name:    "search_learnings",
	Toolset: Toolset,
	Description: "Search learnings across all issues in the project using full-text search with BM25 ranking, prefix matching and stemming. " +
		"Results are ranked by 50% BM25 + 30% field priority + 20% quality score.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"query":             tool.Length(1, 500).NonBlank(),
		"limit":             tool.Range(1, 100).WithDefault(50),
		"min_quality_score": tool.Range(0, 100),
	},
	Execute: func(ctx context.Context, c *tool.Call, in searchIn) (searchOut, error) {
		p, err := session.Project(ctx, c, "")
		if err != nil {
			return searchOut{}, err
		}
		hits, err := c.Tx.SearchLearnings(ctx, baton.LearningQuery{Text: in.Query, Project: p.Slug,
			CrossProject: in.CrossProject, MinQualityScore: number.AtLeast(in.MinQualityScore), Limit: number.AtMost(in.Limit)})
		if err != nil {
			return searchOut{}, err
		}
		out := searchOut{Results: make([]hitView, 0, len(hits)), Scope: p.Slug}
		if in.CrossProject {
			out.Scope = "all projects but " + p.Slug
		}
		for _, h := range hits {
			out.Results = append(out.Results, hitView{learningView: viewLearning(h.Learning), IssueID: h.Learning.ItemID,
				Project: h.Learning.Project, Rank: h.Rank, MatchedField: h.MatchedField, BM25: h.BM25, FieldPriority: h.FieldPriority})
		}
		out.Count = len(out.Results)
		return out, nil
	},
})
