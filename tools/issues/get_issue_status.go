package issues

import (
	"context"
	"github.com/baton-dev/baton"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type runView struct {
	ID         string  `json:"id" jsonschema:"Run id."`
	Status     string  `json:"status" jsonschema:"succeeded, failed or running."`
	Error      string  `json:"error,omitempty" jsonschema:"What went wrong, for a failed run."`
	CostUSD    float64 `json:"cost" jsonschema:"Cost in US dollars."`
	DurationMS int64   `json:"duration_ms" jsonschema:"Run duration in milliseconds."`
	Agent      string  `json:"agent" jsonschema:"Who ran."`
	EndedAt    string  `json:"ended_at,omitempty" jsonschema:"ISO-8601 UTC timestamp; absent while the run is going."`
}

type statusOut struct {
	ID             string    `json:"id" jsonschema:"Issue id."`
	Identifier     string    `json:"identifier" jsonschema:"Issue identifier (the same as id)."`
	Title          string    `json:"title" jsonschema:"Issue title."`
	Status         string    `json:"status" jsonschema:"Current status."`
	Labels         []string  `json:"labels" jsonschema:"Labels."`
	Priority       int       `json:"priority" jsonschema:"1 urgent, 2 high, 3 medium, 4 low."`
	Size           string    `json:"size" jsonschema:"T-shirt size from a size:X label, or empty."`
	RecentFindings []string  `json:"recentFindings" jsonschema:"Summaries of the last 5 findings, newest first."`
	RecentRuns     []runView `json:"recentRuns" jsonschema:"The last 3 runs, newest first, with status, error and cost."`
	UpdatedAt      string    `json:"updatedAt" jsonschema:"ISO-8601 UTC timestamp."`
}

// GetIssueStatus is get_issue_status.
var GetIssueStatus = tool.New(tool.Definition[getIn, statusOut]{
	Name:    "get_issue_status",
	Toolset: Toolset,
	Description: "Get the essential state of an issue: status, labels, last 5 finding summaries and last 3 run outcomes. " +
		"Much smaller than get_issue; use it for quick checks at the start of a run. Defaults to the current issue.",
	Profiles:    []string{"worker", "researcher", "judge", "architect", "planner"},
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"issue_id": issueIDRule},
	Output:      tool.Rules{"priority": tool.Range(1, 4)},
	Execute: func(ctx context.Context, c *tool.Call, in getIn) (statusOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return statusOut{}, err
		}
		out := statusOut{ID: it.ID, Identifier: it.ID, Title: it.Title, Status: string(it.Status),
			Labels: nonNil(it.Labels), Priority: priorityOut(it.Priority), Size: size(it.Labels),
			UpdatedAt: baton.Timestamp(it.UpdatedAt), RecentFindings: []string{}, RecentRuns: []runView{}}
		fs, err := c.Tx.Findings(ctx, it.ID, 5)
		if err != nil {
			return out, err
		}
		for _, f := range fs {
			out.RecentFindings = append(out.RecentFindings, f.Summary)
		}
		runs, err := c.Tx.Runs(ctx, it.ID, 3)
		if err != nil {
			return out, err
		}
		for _, r := range runs {
			v := runView{ID: r.ID, Status: r.Status, Error: r.Error, CostUSD: r.CostUSD, DurationMS: r.DurationMS, Agent: r.Agent}
			if !r.EndedAt.IsZero() {
				v.EndedAt = baton.Timestamp(r.EndedAt)
			}
			out.RecentRuns = append(out.RecentRuns, v)
		}
		return out, nil
	},
})
