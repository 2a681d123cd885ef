package issues

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type updateStatusIn struct {
	IssueID string `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
	Status  string `json:"status" jsonschema:"New status: review (done), todo (give up) or blocked (need human input)."`
	Reason  string `json:"reason,omitempty" jsonschema:"Reason for the change; recorded as a comment (and as the blocked reason)."`
}

type updateStatusOut struct {
	IssueID        string `json:"issue_id" jsonschema:"The issue."`
	Status         string `json:"status" jsonschema:"Status after the change."`
	PreviousStatus string `json:"previous_status" jsonschema:"Status before the change."`
	Reason         string `json:"reason,omitempty" jsonschema:"The reason recorded."`
	CommentID      string `json:"comment_id,omitempty" jsonschema:"The comment holding the reason."`
}

// UpdateIssueStatus is update_issue_status.
var UpdateIssueStatus = tool.New(tool.Definition[updateStatusIn, updateStatusOut]{
	Name:    "update_issue_status",
	Event:   "issue.status_changed",
	Toolset: Toolset,
	Description: "Change the status of the current issue. Valid transitions from in_progress: review (done), todo (give up), " +
		"blocked (need human input). The reason is recorded.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"issue_id": issueIDRule,
		"status":   tool.Enum("review", "todo", "blocked"),
		"reason":   tool.Length(1, 2000).NonBlank(),
	},
	Execute: func(ctx context.Context, c *tool.Call, in updateStatusIn) (updateStatusOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return updateStatusOut{}, err
		}
		to := baton.Status(in.Status)
		if err := baton.Transition(it.ID, it.Status, to); err != nil {
			return updateStatusOut{}, err
		}
		out := updateStatusOut{IssueID: it.ID, Status: in.Status, PreviousStatus: string(it.Status), Reason: in.Reason}
		it.Status, it.UpdatedBy, it.UpdatedAt = to, c.Principal.Agent, c.Now
		it.BlockedReason = ""
		if to == baton.StatusBlocked {
			it.BlockedReason = in.Reason
			if it.BlockedReason == "" {
				it.BlockedReason = "needs human input"
			}
		}
		if err := c.Tx.UpdateItem(ctx, it); err != nil {
			return updateStatusOut{}, err
		}
		if in.Reason != "" {
			cm := &baton.Comment{ItemID: it.ID, Body: fmt.Sprintf("Status %s → %s: %s", out.PreviousStatus, in.Status, in.Reason),
				CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
			if err := c.Tx.AddComment(ctx, cm); err != nil {
				return updateStatusOut{}, err
			}
			out.CommentID = cm.ID
		}
		return out, nil
	},
})
