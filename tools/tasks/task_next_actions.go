package tasks

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type nextIn struct {
	Project        string `json:"project,omitempty" jsonschema:"Project slug; defaults to the session's project."`
	Limit          int    `json:"limit,omitempty" jsonschema:"Most actions to return."`
	IncludeBlocked bool   `json:"include_blocked,omitempty" jsonschema:"Also list blocked tasks with the reason each is held back."`
}

type nextAction struct {
	TaskID            string   `json:"task_id" jsonschema:"Task id."`
	Title             string   `json:"title" jsonschema:"Task title."`
	Priority          string   `json:"priority" jsonschema:"Priority name."`
	Assignee          string   `json:"assignee" jsonschema:"Assignee, or unassigned."`
	EstimateHours     *float64 `json:"estimate_hours,omitempty" jsonschema:"Planning estimate in hours."`
	ParentID          string   `json:"parent_id,omitempty" jsonschema:"Parent task id, when this is a sub-task."`
	DependenciesUnmet int      `json:"dependencies_unmet" jsonschema:"Unfinished dependencies; always 0 here, as tasks waiting on others are not actionable."`
}

type blockedTask struct {
	TaskID        string `json:"task_id" jsonschema:"Task id."`
	Title         string `json:"title" jsonschema:"Task title."`
	BlockedReason string `json:"blocked_reason" jsonschema:"What holds the task back."`
}

type nextOut struct {
	NextActions []nextAction  `json:"next_actions" jsonschema:"Todo tasks nothing holds back, most urgent first, then oldest."`
	Count       int           `json:"count" jsonschema:"Number of next actions returned."`
	Project     string        `json:"project" jsonschema:"The project looked at."`
	Blocked     []blockedTask `json:"blocked,omitzero" jsonschema:"When include_blocked: blocked tasks and todo tasks waiting on dependencies or subtasks, with reasons."`
}

// NextActions is task_next_actions.
var NextActions = tool.New(tool.Definition[nextIn, nextOut]{
	Name:        "task_next_actions",
	Toolset:     Toolset,
	Description: "Return the todo tasks that can be started now (no unfinished dependencies or subtasks), most urgent first; optionally the blocked ones with their reasons.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"project": projectRule,
		"limit":   tool.Range(1, 100).WithDefault(20),
	},
	Output: tool.Rules{"next_actions.priority": priorityRule},
	Execute: func(ctx context.Context, c *tool.Call, in nextIn) (nextOut, error) {
		p, err := session.Project(ctx, c, in.Project)
		if err != nil {
			return nextOut{}, err
		}
		queue, err := c.Tx.Queue(ctx, p.Slug)
		if err != nil {
			return nextOut{}, err
		}
		out := nextOut{NextActions: []nextAction{}, Project: p.Slug}
		if in.IncludeBlocked {
			out.Blocked = []blockedTask{}
		}
		for _, r := range queue {
			it := r.Item
			if r.Ready() {
				if len(out.NextActions) < in.Limit {
					out.NextActions = append(out.NextActions, nextAction{
						TaskID: it.ID, Title: it.Title, Priority: priorityName(it.Priority),
						Assignee: assigneeName(it.Assignee), EstimateHours: it.EstimateHours, ParentID: it.ParentID,
					})
				}
				continue
			}
			if in.IncludeBlocked {
				out.Blocked = append(out.Blocked, blockedTask{TaskID: it.ID, Title: it.Title, BlockedReason: holdReason(r)})
			}
		}
		out.Count = len(out.NextActions)
		return out, nil
	},
})

func holdReason(r baton.Readiness) string {
	var parts []string
	if r.Item.Status == baton.StatusBlocked {
		reason := r.Item.BlockedReason
		if reason == "" {
			reason = "blocked (no reason recorded)"
		}
		parts = append(parts, reason)
	}
	if p := r.Item.Phase(); p.PreReady() {
		parts = append(parts, fmt.Sprintf("in phase %s: not released to workers until its phase pipeline reaches ready", p))
	}
	if len(r.WaitingOn) > 0 {
		parts = append(parts, fmt.Sprintf("waiting on %d unfinished dependencies: %s", len(r.WaitingOn), strings.Join(r.WaitingOn, ", ")))
	}
	if len(r.OpenSubtasks) > 0 {
		parts = append(parts, fmt.Sprintf("waiting on %d unfinished subtasks: %s", len(r.OpenSubtasks), strings.Join(r.OpenSubtasks, ", ")))
	}
	return strings.Join(parts, "; ")
}
