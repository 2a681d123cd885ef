package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
	"github.com/baton-dev/baton/tools/session"
)

type createIn struct {
	Title       string   `json:"title" jsonschema:"Issue title."`
	Description string   `json:"description,omitempty" jsonschema:"Issue description."`
	Priority    float64  `json:"priority,omitempty" jsonschema:"Priority: 1=urgent, 2=high, 3=medium (default), 4=low."`
	Labels      []string `json:"labels,omitempty" jsonschema:"Labels."`
	DependsOn   []string `json:"depends_on,omitempty" jsonschema:"Issue IDs this depends on."`
	Project     string   `json:"project,omitempty" jsonschema:"Project slug; defaults to the session's project."`
}

type createOut struct {
	IssueID    string   `json:"issue_id" jsonschema:"The new issue's id."`
	Identifier string   `json:"identifier" jsonschema:"The same id, as Symphony names it."`
	Title      string   `json:"title" jsonschema:"Its title."`
	Status     string   `json:"status" jsonschema:"backlog for a new issue, todo for a subtask."`
	Priority   int      `json:"priority" jsonschema:"1 urgent, 2 high, 3 medium, 4 low."`
	Labels     []string `json:"labels" jsonschema:"Its labels."`
	DependsOn  []string `json:"depends_on" jsonschema:"Issues it depends on."`
	ParentID   string   `json:"parent_id,omitempty" jsonschema:"Parent issue, for a subtask."`
}

// CreateIssue is create_issue.
var CreateIssue = tool.New(tool.Definition[createIn, createOut]{
	Name:    "create_issue",
	Event:   "issue.created",
	Toolset: Toolset,
	Description: "Create a new issue on the project board (in backlog), optionally depending on other issues. " +
		"It gets one phase:* label: the one labels name, else phase:research when a researcher or scanner files it, else phase:ready.",
	Profiles:     tool.Profiles,
	SchedulerCap: tool.CapIssues,
	Input: tool.Rules{
		"title":       titleRule,
		"description": descRule,
		"priority":    priority,
		"labels":      labelsRule,
		"depends_on":  tool.List(50, issueIDRule),
		"project":     tool.Length(1, 63),
	},
	Output: tool.Rules{"priority": tool.Range(1, 4)},
	Execute: func(ctx context.Context, c *tool.Call, in createIn) (createOut, error) {
		p, err := session.Project(ctx, c, in.Project)
		if err != nil {
			return createOut{}, err
		}
		it := &baton.Item{Project: p.Slug, Title: in.Title, Description: in.Description, Kind: baton.KindTask,
			Status: baton.StatusBacklog, Priority: priorityIn(number.Whole(in.Priority)), Labels: initialPhase(ctx, c, nonNil(in.Labels)),
			CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
		return create(ctx, c, it, in.DependsOn)
	},
})

// create stores it with its dependencies; a dependency that closes a cycle
// or names an unknown issue fails the whole call.
func create(ctx context.Context, c *tool.Call, it *baton.Item, dependsOn []string) (createOut, error) {
	if err := c.Tx.CreateItem(ctx, it); err != nil {
		return createOut{}, err
	}
	for _, d := range dependsOn {
		if err := c.Tx.AddDependency(ctx, it.ID, d); err != nil {
			return createOut{}, err
		}
	}
	deps, err := c.Tx.Dependencies(ctx, it.ID)
	if err != nil {
		return createOut{}, err
	}
	return createOut{IssueID: it.ID, Identifier: it.ID, Title: it.Title, Status: string(it.Status),
		Priority: priorityOut(it.Priority), Labels: nonNil(it.Labels), DependsOn: deps, ParentID: it.ParentID}, nil
}
