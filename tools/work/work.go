// Package work holds Botholomew's terminal task tools. complete_task,
// fail_task and wait_task end a worker's run on the work item its session
// is bound to (baton mcp --issue-id): they move the item out of
// in_progress, say why in a comment, release the caller's claim, and are
// annotated terminal so the agent's loop stops after them.
//
// Botholomew's statuses map onto the shared ones (spec/membot-operations.md
// §10): complete goes to review (the state machine has no in_progress ->
// done, and a person or judge accepts the work), waiting and failed go to
// blocked, with the reason as the blocked reason ("failed: ..." for a
// failure, so a person triages it; cancelled would mean "abandoned on
// purpose").
package work

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of the terminal task tools.
const Toolset = "work"

type completeIn struct {
	Summary string `json:"summary" jsonschema:"Summary of work done: concrete results, for whoever picks the work up next."`
}

type reasonIn struct {
	Reason string `json:"reason" jsonschema:"Why: what went wrong, or what the task is waiting for."`
}

type endOut struct {
	Message string `json:"message" jsonschema:"Task completed: <summary>, Task failed: <reason> or Task waiting: <reason>."`
	IsError bool   `json:"is_error" jsonschema:"Always false on success (a failure is the error envelope)."`
	TaskID  string `json:"task_id" jsonschema:"The work item the session is bound to, by its current id."`
	Status  string `json:"status" jsonschema:"Its status now: review after complete_task, blocked after fail_task and wait_task."`
}

var (
	summaryRule = tool.Length(1, 8000).NonBlank()
	// reasonRule leaves room for the "failed: " a failure's blocked reason
	// starts with, within the 1000 characters blocked reasons have.
	reasonRule  = tool.Length(1, 990).NonBlank()
	annotations = tool.Annotations{Terminal: true}
	// profiles: the terminal tools end an agent's run on its item, which
	// workers have; interactive sessions (the dashboard) have no run to end.
	profiles = []string{"worker"}
)

// CompleteTask is complete_task.
var CompleteTask = tool.New(tool.Definition[completeIn, endOut]{
	Name:    "complete_task",
	Event:   "task.completed",
	Toolset: Toolset,
	Description: "Mark the current task (the item this session is bound to) as complete with a summary of what was accomplished: " +
		"it goes to review and your claim is released. Ends your run.",
	Profiles:    profiles,
	Annotations: annotations,
	Input:       tool.Rules{"summary": summaryRule},
	Output:      tool.Rules{"status": tool.Enum(string(baton.StatusReview))},
	Execute: func(ctx context.Context, c *tool.Call, in completeIn) (endOut, error) {
		return end(ctx, c, "complete_task", baton.StatusReview, "", "Task completed: "+in.Summary)
	},
})

// FailTask is fail_task.
var FailTask = tool.New(tool.Definition[reasonIn, endOut]{
	Name:    "fail_task",
	Event:   "task.failed",
	Toolset: Toolset,
	Description: "Mark the current task (the item this session is bound to) as failed with the reason: it is blocked with " +
		"\"failed: <reason>\" for a person to triage, and your claim is released. Ends your run.",
	Profiles:    profiles,
	Annotations: annotations,
	Input:       tool.Rules{"reason": reasonRule},
	Output:      tool.Rules{"status": tool.Enum(string(baton.StatusBlocked))},
	Execute: func(ctx context.Context, c *tool.Call, in reasonIn) (endOut, error) {
		return end(ctx, c, "fail_task", baton.StatusBlocked, "failed: "+in.Reason, "Task failed: "+in.Reason)
	},
})

// WaitTask is wait_task.
var WaitTask = tool.New(tool.Definition[reasonIn, endOut]{
	Name:    "wait_task",
	Event:   "task.waiting",
	Toolset: Toolset,
	Description: "Put the current task (the item this session is bound to) on hold with the reason it waits for: it is blocked " +
		"with that reason and your claim is released, until someone resumes it. Ends your run.",
	Profiles:    profiles,
	Annotations: annotations,
	Input:       tool.Rules{"reason": reasonRule},
	Output:      tool.Rules{"status": tool.Enum(string(baton.StatusBlocked))},
	Execute: func(ctx context.Context, c *tool.Call, in reasonIn) (endOut, error) {
		return end(ctx, c, "wait_task", baton.StatusBlocked, in.Reason, "Task waiting: "+in.Reason)
	},
})

// end moves the bound item to status to (through in_progress when it has
// not started, for review), records message as a comment, and releases the
// caller's claim. A second end of the same run is refused: complete_task
// leaves the item in review, which nothing ends again; fail_task and
// wait_task end only work not yet ended (todo or in progress). A later run
// may complete a waiting (blocked) item.
func end(ctx context.Context, c *tool.Call, name string, to baton.Status, blockedReason, message string) (endOut, error) {
	bound := c.Principal.IssueID
	if bound == "" {
		return endOut{}, baton.Errorf(baton.ErrInvalidInput, "%s ends the work on the item this session is bound to, and this session is bound to none", name).
			WithType("no_bound_item").WithDetails("field", "issue_id", "constraint", "bound_item").
			WithHint("start baton mcp with --issue-id ID for the item to work on; to change another item's status use update_issue_status or task_update")
	}
	it, err := c.Tx.Item(ctx, bound)
	if err != nil {
		return endOut{}, err
	}
	if it.Status == baton.StatusBlocked && it.ResumeStatus != "" && to == baton.StatusReview {
		return endOut{}, baton.Errorf(baton.ErrInvalidTransition, "%s waits for its sub-tasks: it cannot be complete before they are", it.ID).
			WithDetails("task_id", it.ID, "from", string(it.Status), "to", string(to)).
			WithHint("finish or cancel the sub-tasks first (get_issue lists them), or end your run with wait_task")
	}
	if to == baton.StatusBlocked && it.Status != baton.StatusTodo && it.Status != baton.StatusInProgress {
		// Review means a run completed the item, blocked that one ended it
		// already: failing or waiting now would overwrite how it ended.
		return endOut{}, baton.Errorf(baton.ErrInvalidTransition, "%s is %s: the run on it has ended, so %s has nothing to end", it.ID, it.Status, name).
			WithDetails("task_id", it.ID, "from", string(it.Status), "to", string(to)).
			WithHint("a run ends once; to change the item's status now use update_issue_status or task_update")
	}
	steps := []baton.Status{to}
	if to == baton.StatusReview && (it.Status == baton.StatusTodo || it.Status == baton.StatusBlocked) {
		// Work done on an item nobody started (or that was waiting) has
		// started by the time it is complete.
		steps = []baton.Status{baton.StatusInProgress, to}
	}
	from := it.Status
	for _, s := range steps {
		if err := baton.Transition(it.ID, from, s); err != nil {
			e := baton.AsError(err)
			if from == to {
				e = e.WithHint("%s is already %s: this run has ended; a new run starts when the item is picked up again", it.ID, to)
			}
			return endOut{}, e
		}
		from = s
	}
	it.Status, it.BlockedReason, it.ResumeStatus = to, blockedReason, ""
	if to == baton.StatusReview && it.Progress < 100 {
		it.Progress = 100
	}
	it.UpdatedBy, it.UpdatedAt = c.Principal.Agent, c.Now
	// UpdateItem enforces claims: another agent's claim, or the caller's
	// own lapsed one, is ERR_CLAIMED and nothing changes.
	if err := c.Tx.UpdateItem(ctx, it); err != nil {
		return endOut{}, err
	}
	if err := c.Tx.AddComment(ctx, &baton.Comment{ItemID: it.ID, Body: message, CreatedBy: c.Principal.Agent, CreatedAt: c.Now}); err != nil {
		return endOut{}, err
	}
	cl, err := c.Tx.ClaimOf(ctx, it.ID)
	if err != nil {
		return endOut{}, err
	}
	if cl != nil && strings.EqualFold(cl.Holder, c.Principal.Agent) && cl.Active(c.Now) {
		if err := c.Tx.ReleaseClaim(ctx, it.ID, cl.Holder, c.Now); err != nil {
			return endOut{}, err
		}
	}
	return endOut{Message: message, TaskID: it.ID, Status: string(it.Status)}, nil
}
