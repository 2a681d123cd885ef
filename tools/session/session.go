// Package session resolves what a call is about when its arguments leave
// it out: the project and the work item the session is bound to.
package session

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Project picks the project a call means: the one named, else the
// session's, else the project of the issue the session is bound to, else
// the only one there is.
func Project(ctx context.Context, c *tool.Call, named string) (*baton.Project, error) {
	slug := named
	if slug == "" {
		slug = c.Principal.Project
	}
	if slug == "" && c.Principal.IssueID != "" {
		it, err := c.Tx.Item(ctx, c.Principal.IssueID)
		if err != nil {
			return nil, err
		}
		slug = it.Project
	}
	if slug != "" {
		return c.Tx.Project(ctx, slug)
	}
	all, err := c.Tx.Projects(ctx)
	if err != nil {
		return nil, err
	}
	if len(all) == 1 {
		return all[0], nil
	}
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.Slug
	}
	return nil, baton.Errorf(baton.ErrInvalidInput, "project is required: this session has no default project and there are %d projects", len(all)).
		WithDetails("field", "project", "constraint", "required", "projects", names).
		WithHint("pass project, or start baton with --project SLUG")
}

// Issue returns the work item a call is about: the one named, else the one
// the session is bound to (baton mcp --issue-id).
func Issue(ctx context.Context, c *tool.Call, named string) (*baton.Item, error) {
	id := named
	if id == "" {
		id = c.Principal.IssueID
	}
	if id == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "no current issue: this session is not bound to one and issue_id is not given").
			WithDetails("field", "issue_id", "constraint", "required").
			WithHint("pass issue_id, or start baton mcp with --issue-id ID")
	}
	return c.Tx.Item(ctx, id)
}
