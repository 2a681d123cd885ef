package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type commentIn struct {
	IssueID string `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
	Content string `json:"content" jsonschema:"Comment text."`
}

type commentOut struct {
	CommentID string `json:"comment_id" jsonschema:"The new comment's id."`
	IssueID   string `json:"issue_id" jsonschema:"The issue it belongs to."`
	CreatedAt string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

// AddComment is add_comment.
var AddComment = tool.New(tool.Definition[commentIn, commentOut]{
	Name:         "add_comment",
	Event:        "comment.added",
	Toolset:      Toolset,
	Description:  "Post a comment on the current issue.",
	Profiles:     tool.Profiles,
	SchedulerCap: tool.CapComments,
	Input:        tool.Rules{"issue_id": issueIDRule, "content": tool.Length(1, 20000).NonBlank()},
	Execute: func(ctx context.Context, c *tool.Call, in commentIn) (commentOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return commentOut{}, err
		}
		cm := &baton.Comment{ItemID: it.ID, Body: in.Content, CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
		if err := c.Tx.AddComment(ctx, cm); err != nil {
			return commentOut{}, err
		}
		return commentOut{CommentID: cm.ID, IssueID: it.ID, CreatedAt: baton.Timestamp(cm.CreatedAt)}, nil
	},
})
