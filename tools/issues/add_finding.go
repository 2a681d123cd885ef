package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type findingIn struct {
	IssueID  string   `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
	Category string   `json:"category" jsonschema:"test_result, code_pattern, architecture, bug or gap."`
	Summary  string   `json:"summary" jsonschema:"Short scannable summary."`
	Details  string   `json:"details,omitempty" jsonschema:"Full details."`
	Files    []string `json:"files,omitempty" jsonschema:"Related file paths."`
}

type findingOut struct {
	FindingID string `json:"finding_id" jsonschema:"The new finding's id; findings are append-only and immutable."`
	IssueID   string `json:"issue_id" jsonschema:"The issue it belongs to."`
	Category  string `json:"category" jsonschema:"Its category."`
	Summary   string `json:"summary" jsonschema:"Its summary."`
	CreatedAt string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

// AddFinding is add_finding.
var AddFinding = tool.New(tool.Definition[findingIn, findingOut]{
	Name:        "add_finding",
	Event:       "finding.added",
	Toolset:     Toolset,
	Description: "Record a structured finding (test result, code pattern, architecture note, bug or gap) on the current issue. Findings are append-only.",
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"issue_id": issueIDRule,
		"category": tool.Enum(baton.FindingCategories...),
		"summary":  tool.Length(1, 500).NonBlank(),
		"details":  tool.MaxLen(20000),
		"files":    tool.List(100, tool.Length(1, 1024)),
	},
	Execute: func(ctx context.Context, c *tool.Call, in findingIn) (findingOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return findingOut{}, err
		}
		f := &baton.Finding{ItemID: it.ID, Category: in.Category, Summary: in.Summary, Details: in.Details,
			Files: nonNil(in.Files), CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
		if err := c.Tx.AddFinding(ctx, f); err != nil {
			return findingOut{}, err
		}
		return findingOut{FindingID: f.ID, IssueID: it.ID, Category: f.Category, Summary: f.Summary, CreatedAt: baton.Timestamp(f.CreatedAt)}, nil
	},
})
