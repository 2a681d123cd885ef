package tasks

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type createIn struct {
	Title         string   `json:"title" jsonschema:"Task title."`
	Description   string   `json:"description,omitempty" jsonschema:"Markdown body."`
	Project       string   `json:"project" jsonschema:"Project slug, e.g. colibri."`
	ParentID      string   `json:"parent_id,omitempty" jsonschema:"Parent task id, for a sub-task."`
	Priority      string   `json:"priority,omitempty" jsonschema:"Task priority."`
	Labels        []string `json:"labels,omitempty" jsonschema:"Freeform tags."`
	Assignee      string   `json:"assignee,omitempty" jsonschema:"Agent or user id; unassigned when omitted."`
	EstimateHours *float64 `json:"estimate_hours,omitempty" jsonschema:"Planning estimate in hours."`
}

type createOut struct {
	TaskID    string `json:"task_id" jsonschema:"The new task's id: project prefix and sequence, e.g. COL-42."`
	Status    string `json:"status" jsonschema:"Always backlog: every task starts there."`
	CreatedAt string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	CreatedBy string `json:"created_by" jsonschema:"The calling agent, as the server knows it."`
	Sequence  int64  `json:"sequence" jsonschema:"Monotonic counter scoped to the project."`
}

// Create is task_create.
var Create = tool.New(tool.Definition[createIn, createOut]{
	Name:         "task_create",
	Event:        "task.created",
	Toolset:      Toolset,
	Description:  "Create a new task in the backlog of a project. Returns its id (PREFIX-N) and per-project sequence.",
	Profiles:     tool.Profiles,
	SchedulerCap: tool.CapIssues,
	Input: tool.Rules{
		"title":          titleRule,
		"description":    descriptionRule,
		"project":        projectRule,
		"parent_id":      taskIDRule,
		"priority":       priorityRule.WithDefault("normal"),
		"labels":         labelsRule,
		"assignee":       assigneeRule.WithDefault(unassigned),
		"estimate_hours": tool.Range(0, 1000),
	},
	Output: tool.Rules{"status": tool.Enum(string(baton.StatusBacklog))},
	Execute: func(ctx context.Context, c *tool.Call, in createIn) (createOut, error) {
		it := &baton.Item{
			Project:       in.Project,
			Title:         in.Title,
			Description:   in.Description,
			Kind:          baton.KindTask,
			Status:        baton.StatusBacklog,
			Priority:      priorityValue(in.Priority),
			Labels:        in.Labels,
			Assignee:      assigneeValue(in.Assignee),
			ParentID:      in.ParentID,
			EstimateHours: in.EstimateHours,
			CreatedBy:     c.Principal.Agent,
			CreatedAt:     c.Now,
		}
		if it.Labels == nil {
			it.Labels = []string{}
		}
		if it.ParentID != "" {
			// A zero-padded parent id (T-0042) names T-42; an unknown one
			// is left for the store to refuse as it always has.
			if p, err := baton.ResolveItem(ctx, c.Tx, it.ParentID); err == nil {
				it.ParentID = p.ID
			}
		}
		if err := c.Tx.CreateItem(ctx, it); err != nil {
			return createOut{}, err
		}
		return createOut{TaskID: it.ID, Status: string(it.Status), CreatedAt: baton.Timestamp(it.CreatedAt),
			CreatedBy: it.CreatedBy, Sequence: it.Sequence}, nil
	},
})
