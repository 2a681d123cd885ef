package beads

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type closeIn struct {
	ID     string `json:"id" jsonschema:"Bead id to close."`
	Reason string `json:"reason,omitempty" jsonschema:"Close reason, kept on the bead."`
}

type closeOut struct {
	ID       string   `json:"id" jsonschema:"The closed bead."`
	Status   string   `json:"status" jsonschema:"Always closed."`
	Reason   string   `json:"reason,omitempty" jsonschema:"The close reason, when one was given."`
	Closed   []string `json:"closed" jsonschema:"Every bead this call closed: the bead, then each epic closed because all its children are now closed, innermost first."`
	Warnings []string `json:"warnings,omitempty" jsonschema:"Things that are allowed but probably unintended."`
}

// epicReason is the close reason of an epic closed because its last open
// child was closed.
const epicReason = "all children closed"

// CloseBead is close_bead.
var CloseBead = tool.New(tool.Definition[closeIn, closeOut]{
	Name:    "close_bead",
	Event:   "bead.closed",
	Toolset: Toolset,
	Description: "Close a bead (mark it done) from any status that is not already closed. " +
		"An epic whose children are then all closed is closed too, and so on up.",
	Profiles: tool.Profiles,
	Input:    tool.Rules{"id": beadIDRule, "reason": reasonRule},
	Output:   tool.Rules{"status": tool.Enum(statusClosed)},
	Execute: func(ctx context.Context, c *tool.Call, in closeIn) (closeOut, error) {
		it, err := bead(ctx, c, in.ID)
		if err != nil {
			return closeOut{}, err
		}
		closed, warnings, err := closeBead(ctx, c, it, in.Reason)
		if err != nil {
			return closeOut{}, err
		}
		return closeOut{ID: it.ID, Status: statusClosed, Reason: in.Reason, Closed: closed, Warnings: warnings}, nil
	},
	Text: func(o closeOut) string { return closedText("Closed bead "+o.ID, o.Closed) },
})

// closedText is head followed by one line per epic the call closed along
// with the bead (closed[0] is the bead itself).
func closedText(head string, closed []string) string {
	var b strings.Builder
	b.WriteString(head)
	for _, id := range closed[min(1, len(closed)):] {
		fmt.Fprintf(&b, "\nClosed epic %s (%s)", id, epicReason)
	}
	return b.String()
}

// closeBead closes it (status done) from any non-terminal status, then
// closes each ancestor epic whose children are all finished, innermost
// first. It returns the ids it closed, it first. A terminal bead is
// ERR_INVALID_TRANSITION: closing is not idempotent, so a caller learns
// that someone else finished the work.
func closeBead(ctx context.Context, c *tool.Call, it *baton.Item, reason string) (closed, warnings []string, err error) {
	if it.Status.Terminal() {
		return nil, nil, baton.Transition(it.ID, it.Status, baton.StatusDone)
	}
	finish(c, it, reason)
	if err := c.Tx.UpdateItem(ctx, it); err != nil {
		return nil, nil, err
	}
	closed = []string{it.ID}
	if it.Kind == baton.KindEpic {
		// Closing an epic by hand is allowed (close_bead works from any
		// status); its children stay as they are, so say which are open.
		open, err := openChildren(ctx, c.Tx, it.ID)
		if err != nil {
			return nil, nil, err
		}
		if len(open) > 0 {
			warnings = append(warnings, fmt.Sprintf("epic %s closed with open children: %s", it.ID, strings.Join(open, ", ")))
		}
	}
	for parentID := it.ParentID; parentID != ""; {
		p, err := c.Tx.Item(ctx, parentID)
		if err != nil {
			return nil, nil, err
		}
		// Only epics close on their own: a task with sub-tasks is real work
		// that someone still has to finish and close.
		if p.Kind != baton.KindEpic || p.Status.Terminal() {
			break
		}
		open, err := openChildren(ctx, c.Tx, p.ID)
		if err != nil {
			return nil, nil, err
		}
		if len(open) > 0 {
			break
		}
		finish(c, p, epicReason)
		if err := c.Tx.UpdateItem(ctx, p); err != nil {
			// Another agent's claim on the epic should not undo the close
			// the caller asked for: the epic stays open for its holder.
			if baton.ErrorCode(err) == baton.ErrClaimed {
				warnings = append(warnings, fmt.Sprintf("epic %s has all children closed but stays open: %s", p.ID, baton.AsError(err).Message))
				break
			}
			return nil, nil, err
		}
		closed = append(closed, p.ID)
		parentID = p.ParentID
	}
	return closed, warnings, nil
}

// finish sets the fields of a closed item: done, fully complete, no longer
// blocked, with the reason it was closed.
func finish(c *tool.Call, it *baton.Item, reason string) {
	it.Status = baton.StatusDone
	it.Progress = 100
	it.BlockedReason = ""
	it.CloseReason = reason
	it.UpdatedBy, it.UpdatedAt = c.Principal.Agent, c.Now
}

// openChildren returns the ids of id's children that are not finished.
func openChildren(ctx context.Context, tx baton.Tx, id string) ([]string, error) {
	kids, err := tx.Children(ctx, id)
	if err != nil {
		return nil, err
	}
	var open []string
	for _, k := range kids {
		child, err := tx.Item(ctx, k)
		if err != nil {
			return nil, err
		}
		if !child.Status.Terminal() {
			open = append(open, child.ID)
		}
	}
	return open, nil
}
