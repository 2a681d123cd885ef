package tasks

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type updateIn struct {
	TaskID        string    `json:"task_id" jsonschema:"The task to update."`
	Status        string    `json:"status,omitempty" jsonschema:"New status; the move must be allowed by the state machine."`
	Progress      *int      `json:"progress,omitempty" jsonschema:"Percentage complete."`
	Description   *string   `json:"description,omitempty" jsonschema:"Replaces the full description."`
	Priority      string    `json:"priority,omitempty" jsonschema:"New priority."`
	Assignee      string    `json:"assignee,omitempty" jsonschema:"New assignee; unassigned clears it."`
	Labels        *[]string `json:"labels,omitempty" jsonschema:"Replaces all labels; a phase:* label is kept when left out (only the orchestrator advances phases)."`
	BlockedReason string    `json:"blocked_reason,omitempty" jsonschema:"Why the task is blocked; required when status is blocked."`
}

type updateOut struct {
	TaskID         string   `json:"task_id" jsonschema:"The updated task."`
	Status         string   `json:"status" jsonschema:"Status after the update."`
	Progress       int      `json:"progress" jsonschema:"Percentage complete after the update."`
	UpdatedAt      string   `json:"updated_at" jsonschema:"ISO-8601 UTC timestamp."`
	UpdatedBy      string   `json:"updated_by" jsonschema:"The calling agent, as the server knows it."`
	PreviousStatus string   `json:"previous_status,omitempty" jsonschema:"Status before the transition, when the status changed."`
	Warnings       []string `json:"warnings,omitempty" jsonschema:"Things that are allowed but probably unintended."`
}

// Update is task_update.
var Update = tool.New(tool.Definition[updateIn, updateOut]{
	Name:    "task_update",
	Event:   "task.updated",
	Toolset: Toolset,
	Description: "Update a task's fields (status, progress, description, priority, assignee, labels). Status changes follow the state machine: " +
		"backlog→todo|cancelled; todo→in_progress|blocked|cancelled; in_progress→review|blocked|todo|cancelled; " +
		"blocked→todo|in_progress|cancelled; review→done|backlog|blocked|cancelled; done and cancelled are terminal.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"task_id":        taskIDRule,
		"status":         statusRule,
		"progress":       tool.Range(0, 100),
		"description":    descriptionRule,
		"priority":       priorityRule,
		"assignee":       assigneeRule,
		"labels":         labelsRule,
		"blocked_reason": tool.Length(1, 1000).NonBlank(),
	},
	Output: tool.Rules{"status": statusRule, "previous_status": statusRule, "progress": tool.Range(0, 100)},
	Execute: func(ctx context.Context, c *tool.Call, in updateIn) (updateOut, error) {
		if in.Status == "" && in.Progress == nil && in.Description == nil && in.Priority == "" &&
			in.Assignee == "" && in.Labels == nil && in.BlockedReason == "" {
			return updateOut{}, baton.Errorf(baton.ErrInvalidInput, "nothing to update: only task_id was given").
				WithDetails("field", "task_id", "constraint", "at_least_one_change").
				WithHint("pass at least one of status, progress, description, priority, assignee, labels, blocked_reason")
		}
		it, err := baton.ResolveItem(ctx, c.Tx, in.TaskID) // T-0042 finds T-42
		if err != nil {
			return updateOut{}, err
		}
		out := updateOut{TaskID: it.ID}
		to := baton.Status(in.Status)
		if in.Status != "" && to != it.Status {
			if err := baton.Transition(it.ID, it.Status, to); err != nil {
				return updateOut{}, err
			}
			if to == baton.StatusBlocked && in.BlockedReason == "" {
				return updateOut{}, baton.Errorf(baton.ErrInvalidInput, "blocked_reason is required when status is blocked").
					WithDetails("field", "blocked_reason", "constraint", "required").
					WithHint("say what blocks the task in blocked_reason and call again")
			}
			out.PreviousStatus = string(it.Status)
			it.Status = to
			if to != baton.StatusBlocked {
				it.BlockedReason = ""
			}
			if to == baton.StatusDone && in.Progress == nil {
				it.Progress = 100
			}
		}
		if in.BlockedReason != "" {
			if it.Status == baton.StatusBlocked {
				it.BlockedReason = in.BlockedReason
			} else {
				out.Warnings = append(out.Warnings, "blocked_reason ignored: it is kept only while the task is blocked")
			}
		}
		if in.Progress != nil {
			it.Progress = *in.Progress
		}
		if in.Description != nil {
			it.Description = *in.Description
		}
		if in.Priority != "" {
			it.Priority = priorityValue(in.Priority)
		}
		if in.Assignee != "" {
			it.Assignee = assigneeValue(in.Assignee)
		}
		if in.Labels != nil {
			// The phase label is the orchestrator's to advance: replacing
			// the labels keeps it, and naming another phase is refused.
			labels, err := baton.KeepPhase(it.ID, it.Labels, *in.Labels)
			if err != nil {
				return updateOut{}, err
			}
			it.Labels = labels
		}
		if it.Progress == 100 && it.Status != baton.StatusDone {
			out.Warnings = append(out.Warnings, fmt.Sprintf("Progress set to 100%% but status != 'done' (status is %s)", it.Status))
		}
		if it.Status == baton.StatusDone && it.Progress < 100 {
			out.Warnings = append(out.Warnings, fmt.Sprintf("status is done but progress is %d%%", it.Progress))
		}
		it.UpdatedBy, it.UpdatedAt = c.Principal.Agent, c.Now
		if err := c.Tx.UpdateItem(ctx, it); err != nil {
			return updateOut{}, err
		}
		out.Status, out.Progress = string(it.Status), it.Progress
		out.UpdatedAt, out.UpdatedBy = baton.Timestamp(it.UpdatedAt), it.UpdatedBy
		return out, nil
	},
})
