package issues

import (
	"context"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type depIn struct {
	IssueID   string `json:"issue_id,omitempty" jsonschema:"The issue that waits; defaults to the issue this session is bound to."`
	DependsOn string `json:"depends_on" jsonschema:"The issue it waits for."`
}

type depOut struct {
	IssueID   string   `json:"issue_id" jsonschema:"The issue that waits."`
	DependsOn []string `json:"depends_on" jsonschema:"Everything it depends on now."`
}

// AddDependency is add_dependency, baton's own: dependencies form one DAG
// across every vocabulary, so a cycle is refused with the cycle named.
var AddDependency = tool.New(tool.Definition[depIn, depOut]{
	Name:    "add_dependency",
	Event:   "dependency.added",
	Toolset: Toolset,
	Description: "Record that an issue cannot start before another is done. Dependencies form a DAG across issues, tasks and beads: " +
		"a dependency that would close a cycle is refused with ERR_CIRCULAR_DEPENDENCY naming the cycle.",
	Profiles: []string{"worker", "planner", "architect", "intake"},
	Input:    tool.Rules{"issue_id": issueIDRule, "depends_on": issueIDRule},
	Execute: func(ctx context.Context, c *tool.Call, in depIn) (depOut, error) {
		return changeDeps(ctx, c, in, func(id string) error { return c.Tx.AddDependency(ctx, id, in.DependsOn) })
	},
})

// RemoveDependency is remove_dependency.
var RemoveDependency = tool.New(tool.Definition[depIn, depOut]{
	Name:        "remove_dependency",
	Event:       "dependency.removed",
	Toolset:     Toolset,
	Description: "Remove a dependency between two issues.",
	Profiles:    []string{"worker", "planner", "architect", "intake"},
	Input:       tool.Rules{"issue_id": issueIDRule, "depends_on": issueIDRule},
	Execute: func(ctx context.Context, c *tool.Call, in depIn) (depOut, error) {
		return changeDeps(ctx, c, in, func(id string) error {
			// An id the other issue had before a move names it too.
			if d, err := c.Tx.Item(ctx, in.DependsOn); err == nil {
				in.DependsOn = d.ID
			}
			return c.Tx.RemoveDependency(ctx, id, in.DependsOn)
		})
	},
})

func changeDeps(ctx context.Context, c *tool.Call, in depIn, change func(id string) error) (depOut, error) {
	it, err := session.Issue(ctx, c, in.IssueID)
	if err != nil {
		return depOut{}, err
	}
	if err := change(it.ID); err != nil {
		return depOut{}, err
	}
	deps, err := c.Tx.Dependencies(ctx, it.ID)
	if err != nil {
		return depOut{}, err
	}
	return depOut{IssueID: it.ID, DependsOn: deps}, nil
}
