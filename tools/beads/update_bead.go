package beads

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
)

type updateIn struct {
	ID          string   `json:"id" jsonschema:"Bead id (e.g. adj-042)."`
	Status      string   `json:"status,omitempty" jsonschema:"New status: open (todo), in_progress, or closed (done)."`
	Title       *string  `json:"title,omitempty" jsonschema:"Updated title."`
	Description *string  `json:"description,omitempty" jsonschema:"Updated description; replaces the whole text."`
	Assignee    *string  `json:"assignee,omitempty" jsonschema:"Assignee name; an empty string or unassigned clears it."`
	Priority    *float64 `json:"priority,omitempty" jsonschema:"Priority: 0=critical, 1=high, 2=medium, 3=low, 4=backlog."`
}

type updateOut struct {
	summary
	Description string   `json:"description" jsonschema:"Bead description after the update."`
	Closed      []string `json:"closed,omitzero" jsonschema:"When status was closed: every bead this call closed, the bead first, then epics closed because all their children are closed."`
	Warnings    []string `json:"warnings,omitempty" jsonschema:"Things that are allowed but probably unintended."`
}

// UpdateBead is update_bead.
var UpdateBead = tool.New(tool.Definition[updateIn, updateOut]{
	Name:    "update_bead",
	Event:   "bead.updated",
	Toolset: Toolset,
	Description: "Update fields on an existing bead; only the fields given change. Status: open returns a started or blocked bead to todo " +
		"(an open bead stays as it is); in_progress starts it; closed closes it as close_bead does. " +
		"Moves the state machine forbids (from review to open, out of closed) are ERR_INVALID_TRANSITION.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"id":          beadIDRule,
		"status":      tool.Enum(statusOpen, statusInProgress, statusClosed),
		"title":       titleRule,
		"description": descriptionRule,
		"assignee":    assigneeRule,
		"priority":    priorityRule,
	},
	Output: summaryRules("", tool.Rules{}),
	Execute: func(ctx context.Context, c *tool.Call, in updateIn) (updateOut, error) {
		if in.Status == "" && in.Title == nil && in.Description == nil && in.Assignee == nil && in.Priority == nil {
			return updateOut{}, baton.Errorf(baton.ErrInvalidInput, "nothing to update: only id was given").
				WithDetails("field", "id", "constraint", "at_least_one_change").
				WithHint("pass at least one of status, title, description, assignee, priority")
		}
		it, err := bead(ctx, c, in.ID)
		if err != nil {
			return updateOut{}, err
		}
		if in.Title != nil {
			it.Title = *in.Title
		}
		if in.Description != nil {
			it.Description = *in.Description
		}
		if in.Assignee != nil {
			it.Assignee = assigneeValue(*in.Assignee)
		}
		if in.Priority != nil {
			it.Priority = baton.Priority(number.Whole(*in.Priority))
		}
		out := updateOut{}
		if in.Status == statusClosed {
			// Closing writes the item itself, with the fields set above.
			if out.Closed, out.Warnings, err = closeBead(ctx, c, it, ""); err != nil {
				return updateOut{}, err
			}
		} else {
			steps, err := plan(it, in.Status)
			if err != nil {
				return updateOut{}, err
			}
			if len(steps) > 0 {
				it.Status = steps[len(steps)-1]
				it.BlockedReason = "" // no step leads to blocked, so the reason is stale
			}
			it.UpdatedBy, it.UpdatedAt = c.Principal.Agent, c.Now
			if err := c.Tx.UpdateItem(ctx, it); err != nil {
				return updateOut{}, err
			}
		}
		out.summary, out.Description = summarize(it), it.Description
		return out, nil
	},
	Text: func(o updateOut) string { return closedText("Updated bead "+o.ID, o.Closed) },
})

// plan returns the canonical statuses an update to the bead status to walks
// through, each checked against the state machine; nil when nothing moves.
// A bead already in the named bead status stays where it is (naming the
// current status is not a transition, as in task_update): "open" leaves
// backlog and todo alone, "in_progress" leaves in_progress and review alone.
// Otherwise open means todo, and in_progress from backlog passes through
// todo, as backlog cannot start directly.
func plan(it *baton.Item, to string) ([]baton.Status, error) {
	var steps []baton.Status
	switch {
	case to == "" || beadStatus(it.Status) == to:
		return nil, nil
	case to == statusOpen:
		steps = []baton.Status{baton.StatusTodo}
	case it.Status == baton.StatusBacklog:
		steps = []baton.Status{baton.StatusTodo, baton.StatusInProgress}
	default:
		steps = []baton.Status{baton.StatusInProgress}
	}
	from := it.Status
	for _, s := range steps {
		if err := baton.Transition(it.ID, from, s); err != nil {
			return nil, err
		}
		from = s
	}
	return steps, nil
}
