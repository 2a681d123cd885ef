package issues

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
	"github.com/baton-dev/baton/tools/session"
)

type subtaskIn struct {
	IssueID     string   `json:"issue_id,omitempty" jsonschema:"Parent issue; defaults to the issue this session is bound to."`
	Title       string   `json:"title" jsonschema:"Sub-task title."`
	Description string   `json:"description,omitempty" jsonschema:"Description."`
	Priority    float64  `json:"priority,omitempty" jsonschema:"1-4 (default: 3)."`
	Labels      []string `json:"labels,omitempty" jsonschema:"Labels."`
}

// CreateSubtask is create_subtask.
var CreateSubtask = tool.New(tool.Definition[subtaskIn, createOut]{
	Name:    "create_subtask",
	Event:   "issue.created",
	Toolset: Toolset,
	Description: "Create a sub-task of the current issue. The parent is blocked until every sub-task is done, " +
		"then returns to the status it had.",
	Profiles:     tool.Profiles,
	SchedulerCap: tool.CapIssues,
	Input: tool.Rules{
		"issue_id":    issueIDRule,
		"title":       titleRule,
		"description": descRule,
		"priority":    priority,
		"labels":      labelsRule,
	},
	Output: tool.Rules{"priority": tool.Range(1, 4)},
	Execute: func(ctx context.Context, c *tool.Call, in subtaskIn) (createOut, error) {
		parent, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return createOut{}, err
		}
		if parent.Status.Terminal() {
			return createOut{}, baton.Errorf(baton.ErrInvalidTransition, "%s is %s: a finished issue takes no new sub-tasks", parent.ID, parent.Status).
				WithDetails("task_id", parent.ID, "from", string(parent.Status), "to", string(baton.StatusBlocked)).
				WithHint("create a new issue instead (create_issue)")
		}
		child := &baton.Item{Project: parent.Project, ParentID: parent.ID, Title: in.Title, Description: in.Description,
			Kind: baton.KindTask, Status: baton.StatusTodo, Priority: priorityIn(number.Whole(in.Priority)), Labels: subtaskPhase(nonNil(in.Labels)),
			CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
		out, err := create(ctx, c, child, nil)
		if err != nil {
			return createOut{}, err
		}
		if parent.Status == baton.StatusBlocked && parent.ResumeStatus == "" {
			// Blocked by a person for a reason of their own: that block
			// stands; the open sub-task holds the parent back from ready
			// work anyway.
			return out, nil
		}
		// Blocking by sub-tasks is the system's move, so the state
		// machine's table does not apply; ResumeStatus remembers where the
		// parent returns when the last sub-task is done.
		if parent.ResumeStatus == "" {
			parent.ResumeStatus = parent.Status
		}
		parent.Status = baton.StatusBlocked
		kids, err := c.Tx.Children(ctx, parent.ID)
		if err != nil {
			return createOut{}, err
		}
		parent.BlockedReason = fmt.Sprintf("waiting on sub-tasks: %v", kids)
		parent.UpdatedBy, parent.UpdatedAt = c.Principal.Agent, c.Now
		if err := c.Tx.UpdateItem(ctx, parent); err != nil {
			return createOut{}, err
		}
		return out, nil
	},
})
