package tasks

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type listIn struct {
	Project       string   `json:"project,omitempty" jsonschema:"Only tasks of this project."`
	Status        []string `json:"status,omitempty" jsonschema:"Only tasks in one of these statuses."`
	Priority      []string `json:"priority,omitempty" jsonschema:"Only tasks with one of these priorities."`
	Assignee      string   `json:"assignee,omitempty" jsonschema:"Only tasks of this assignee; unassigned selects tasks without one."`
	Label         string   `json:"label,omitempty" jsonschema:"Only tasks carrying this label."`
	CreatedAfter  string   `json:"created_after,omitempty" jsonschema:"Only tasks created after this ISO-8601 time."`
	CreatedBefore string   `json:"created_before,omitempty" jsonschema:"Only tasks created before this ISO-8601 time."`
	Search        string   `json:"search,omitempty" jsonschema:"Full-text search over title and description (FTS5 syntax): every word must match, as a prefix or stemmed; a OR b, a AND b, a NOT b, \"exact phrase\", prefix*, NEAR(a b, 10) and parentheses, operators in capitals. A malformed search is ERR_INVALID_INPUT with its position."`
	Limit         int      `json:"limit,omitempty" jsonschema:"Page size."`
	Offset        int      `json:"offset,omitempty" jsonschema:"Tasks to skip, for pagination."`
	SortBy        string   `json:"sort_by,omitempty" jsonschema:"Sort key; priority sorts by urgency (desc puts critical first)."`
	SortOrder     string   `json:"sort_order,omitempty" jsonschema:"Sort direction."`
}

type listTask struct {
	TaskID    string `json:"task_id" jsonschema:"Task id."`
	Title     string `json:"title" jsonschema:"Task title."`
	Project   string `json:"project" jsonschema:"Project slug."`
	Status    string `json:"status" jsonschema:"Current status."`
	Priority  string `json:"priority" jsonschema:"Priority name."`
	Progress  int    `json:"progress" jsonschema:"Percentage complete."`
	Assignee  string `json:"assignee" jsonschema:"Assignee, or unassigned."`
	CreatedAt string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	UpdatedAt string `json:"updated_at" jsonschema:"ISO-8601 UTC timestamp."`
}

type listOut struct {
	Tasks         []listTask `json:"tasks" jsonschema:"This page of matching tasks."`
	TotalCount    int        `json:"total_count" jsonschema:"All matching tasks, for pagination."`
	ReturnedCount int        `json:"returned_count" jsonschema:"Tasks in this response."`
	Offset        int        `json:"offset" jsonschema:"Offset of this page."`
	Limit         int        `json:"limit" jsonschema:"Page size used."`
}

// List is task_list.
var List = tool.New(tool.Definition[listIn, listOut]{
	Name:        "task_list",
	Toolset:     Toolset,
	Description: "List tasks with filters (project, status, priority, assignee, label, creation time, full-text search), sorting and pagination; total_count counts every match.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"project":        projectRule,
		"status":         tool.List(7, statusRule),
		"priority":       tool.List(4, priorityRule),
		"assignee":       assigneeRule,
		"label":          tool.Length(1, 64),
		"created_after":  tool.DateTime(),
		"created_before": tool.DateTime(),
		"search":         tool.MaxLen(500),
		"limit":          tool.Range(1, 500).WithDefault(50),
		"offset":         tool.Min(0).WithDefault(0),
		"sort_by":        tool.Enum("created", "updated", "priority", "progress").WithDefault("updated"),
		"sort_order":     tool.Enum("asc", "desc").WithDefault("desc"),
	},
	Output: tool.Rules{"tasks.status": statusRule, "tasks.priority": priorityRule},
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		f := baton.ItemFilter{
			Project: in.Project, Label: in.Label, Search: in.Search,
			Sort: baton.ItemSort(in.SortBy), Descending: in.SortOrder == "desc",
			Limit: in.Limit, Offset: in.Offset, Priorities: priorityValues(in.Priority),
		}
		if in.Project != "" {
			if _, err := c.Tx.Project(ctx, in.Project); err != nil {
				return listOut{}, err
			}
		}
		for _, s := range in.Status {
			f.Statuses = append(f.Statuses, baton.Status(s))
		}
		if in.Assignee != "" {
			a := assigneeValue(in.Assignee)
			f.Assignee = &a
		}
		// The schema has checked the format already.
		if in.CreatedAfter != "" {
			t, _ := time.Parse(time.RFC3339, in.CreatedAfter)
			f.CreatedAfter = &t
		}
		if in.CreatedBefore != "" {
			t, _ := time.Parse(time.RFC3339, in.CreatedBefore)
			f.CreatedBefore = &t
		}
		page, err := c.Tx.ListItems(ctx, f)
		if err != nil {
			return listOut{}, err
		}
		out := listOut{Tasks: make([]listTask, 0, len(page.Items)), TotalCount: page.Total, Offset: in.Offset, Limit: in.Limit}
		for _, it := range page.Items {
			out.Tasks = append(out.Tasks, listTask{
				TaskID: it.ID, Title: it.Title, Project: it.Project, Status: string(it.Status),
				Priority: priorityName(it.Priority), Progress: it.Progress, Assignee: assigneeName(it.Assignee),
				CreatedAt: baton.Timestamp(it.CreatedAt), UpdatedAt: baton.Timestamp(it.UpdatedAt),
			})
		}
		out.ReturnedCount = len(out.Tasks)
		return out, nil
	},
})
