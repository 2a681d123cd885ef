package tasks

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type getIn struct {
	TaskID              string `json:"task_id" jsonschema:"The task to retrieve."`
	IncludeThoughtTrail bool   `json:"include_thought_trail,omitempty" jsonschema:"Include the task's decision history (thought record ids, oldest first)."`
	IncludeDependents   bool   `json:"include_dependents,omitempty" jsonschema:"Include the ids of the task's child tasks."`
}

type getOut struct {
	TaskID        string   `json:"task_id" jsonschema:"Task id."`
	Title         string   `json:"title" jsonschema:"Task title."`
	Description   string   `json:"description" jsonschema:"Markdown body."`
	Project       string   `json:"project" jsonschema:"Project slug."`
	Status        string   `json:"status" jsonschema:"Current status."`
	Priority      string   `json:"priority" jsonschema:"Priority name."`
	Progress      int      `json:"progress" jsonschema:"Percentage complete."`
	Assignee      string   `json:"assignee" jsonschema:"Assignee, or unassigned."`
	Labels        []string `json:"labels" jsonschema:"Labels in the order they were given."`
	EstimateHours *float64 `json:"estimate_hours,omitempty" jsonschema:"Planning estimate in hours."`
	CreatedAt     string   `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	UpdatedAt     string   `json:"updated_at" jsonschema:"ISO-8601 UTC timestamp."`
	CreatedBy     string   `json:"created_by" jsonschema:"Who created the task."`
	UpdatedBy     string   `json:"updated_by" jsonschema:"Who changed it last."`
	ParentID      string   `json:"parent_id,omitempty" jsonschema:"Parent task id, for a sub-task."`
	BlockedReason string   `json:"blocked_reason,omitempty" jsonschema:"Why the task is blocked, while it is."`
	ThoughtTrail  []string `json:"thought_trail,omitzero" jsonschema:"Thought record ids, when include_thought_trail is true."`
	Dependents    []string `json:"dependents,omitzero" jsonschema:"Child task ids, when include_dependents is true."`
}

// Get is task_get.
var Get = tool.New(tool.Definition[getIn, getOut]{
	Name:        "task_get",
	Toolset:     Toolset,
	Description: "Retrieve one task by id with all its metadata; optionally its child tasks and decision history.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"task_id": taskIDRule},
	Output:      tool.Rules{"status": statusRule, "priority": priorityRule},
	Execute: func(ctx context.Context, c *tool.Call, in getIn) (getOut, error) {
		it, err := baton.ResolveItem(ctx, c.Tx, in.TaskID) // T-0042 finds T-42
		if err != nil {
			return getOut{}, err
		}
		out := taskView(it)
		if in.IncludeDependents {
			if out.Dependents, err = c.Tx.Children(ctx, it.ID); err != nil {
				return getOut{}, err
			}
		}
		if in.IncludeThoughtTrail {
			trail, err := c.Tx.Thoughts(ctx, baton.ThoughtFilter{TaskID: it.ID})
			if err != nil {
				return getOut{}, err
			}
			out.ThoughtTrail = make([]string, 0, len(trail))
			for _, r := range trail {
				out.ThoughtTrail = append(out.ThoughtTrail, r.ID)
			}
		}
		return out, nil
	},
})

func taskView(it *baton.Item) getOut {
	return getOut{
		TaskID: it.ID, Title: it.Title, Description: it.Description, Project: it.Project,
		Status: string(it.Status), Priority: priorityName(it.Priority), Progress: it.Progress,
		Assignee: assigneeName(it.Assignee), Labels: it.Labels, EstimateHours: it.EstimateHours,
		CreatedAt: baton.Timestamp(it.CreatedAt), UpdatedAt: baton.Timestamp(it.UpdatedAt), CreatedBy: it.CreatedBy,
		UpdatedBy: it.UpdatedBy, ParentID: it.ParentID, BlockedReason: it.BlockedReason,
	}
}
