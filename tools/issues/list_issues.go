package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
	"github.com/baton-dev/baton/tools/session"
)

type listIn struct {
	Status  string  `json:"status,omitempty" jsonschema:"Filter by status."`
	Labels  string  `json:"labels,omitempty" jsonschema:"Filter by label."`
	Limit   float64 `json:"limit,omitempty" jsonschema:"Max results (default 50, max 100)."`
	Project string  `json:"project,omitempty" jsonschema:"Project slug; defaults to the session's project."`
}

type issueRow struct {
	ID       string   `json:"id" jsonschema:"Issue id."`
	Title    string   `json:"title" jsonschema:"Issue title."`
	Status   string   `json:"status" jsonschema:"Current status."`
	Priority int      `json:"priority" jsonschema:"1 urgent, 2 high, 3 medium, 4 low."`
	Labels   []string `json:"labels" jsonschema:"Labels."`
	Assignee string   `json:"assignee,omitempty" jsonschema:"Assignee, if any."`
	ParentID string   `json:"parent_id,omitempty" jsonschema:"Parent issue, for a subtask."`
}

type listOut struct {
	Issues     []issueRow `json:"issues" jsonschema:"Matching issues, most urgent first."`
	Count      int        `json:"count" jsonschema:"Issues returned."`
	TotalCount int        `json:"total_count" jsonschema:"All matching issues."`
	Project    string     `json:"project" jsonschema:"The project listed."`
}

// ListIssues is list_issues.
var ListIssues = tool.New(tool.Definition[listIn, listOut]{
	Name:        "list_issues",
	Toolset:     Toolset,
	Description: "List issues in the current project, most urgent first; filter by status and label.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"status":  tool.Enum("backlog", "todo", "in_progress", "blocked", "review", "done", "cancelled"),
		"labels":  tool.Length(1, 64),
		"limit":   tool.Range(1, 100).WithDefault(50),
		"project": tool.Length(1, 63),
	},
	Output: tool.Rules{"issues.priority": tool.Range(1, 4)},
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		p, err := session.Project(ctx, c, in.Project)
		if err != nil {
			return listOut{}, err
		}
		f := baton.ItemFilter{Project: p.Slug, Label: in.Labels, Sort: baton.SortPriority, Descending: true, Limit: number.AtMost(in.Limit)}
		if in.Status != "" {
			f.Statuses = []baton.Status{baton.Status(in.Status)}
		}
		page, err := c.Tx.ListItems(ctx, f)
		if err != nil {
			return listOut{}, err
		}
		out := listOut{Issues: make([]issueRow, 0, len(page.Items)), TotalCount: page.Total, Project: p.Slug}
		for _, it := range page.Items {
			out.Issues = append(out.Issues, issueRow{ID: it.ID, Title: it.Title, Status: string(it.Status),
				Priority: priorityOut(it.Priority), Labels: nonNil(it.Labels), Assignee: it.Assignee, ParentID: it.ParentID})
		}
		out.Count = len(out.Issues)
		return out, nil
	},
})
