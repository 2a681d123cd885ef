package beads

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
)

type createIn struct {
	Title       string  `json:"title" jsonschema:"Bead title."`
	Description string  `json:"description" jsonschema:"Bead description; may be empty."`
	Type        string  `json:"type" jsonschema:"Bead type."`
	Priority    float64 `json:"priority" jsonschema:"Priority: 0=critical, 1=high, 2=medium, 3=low, 4=backlog."`
	ID          string  `json:"id,omitempty" jsonschema:"Custom bead id (auto-generated as PREFIX-N if omitted)."`
}

type createOut struct {
	summary
	Description string `json:"description" jsonschema:"Bead description."`
	Project     string `json:"project" jsonschema:"Project slug the bead belongs to."`
	CreatedBy   string `json:"created_by" jsonschema:"The calling agent, as the server knows it."`
}

// CreateBead is create_bead.
var CreateBead = tool.New(tool.Definition[createIn, createOut]{
	Name:    "create_bead",
	Event:   "bead.created",
	Toolset: Toolset,
	Description: "Create a new bead (work item) in the session's project. It starts open and ready to work " +
		"(the same row is a todo task in the tasks tools).",
	Profiles:     tool.Profiles,
	SchedulerCap: tool.CapIssues,
	Input: tool.Rules{
		"title":       titleRule,
		"description": descriptionRule,
		"type":        typeRule,
		"priority":    priorityRule,
		"id":          customIDRule,
	},
	Output: summaryRules("", tool.Rules{}),
	Execute: func(ctx context.Context, c *tool.Call, in createIn) (createOut, error) {
		p, err := resolveProject(ctx, c)
		if err != nil {
			return createOut{}, err
		}
		// Todo, not backlog: in Adjutant a new bead is open and ready to
		// work, which canonically is todo (backlog items are not offered as
		// next actions).
		it := &baton.Item{
			ID:          in.ID,
			Project:     p.Slug,
			Title:       in.Title,
			Description: in.Description,
			Kind:        baton.Kind(in.Type),
			Status:      baton.StatusTodo,
			Priority:    baton.Priority(number.Whole(in.Priority)),
			Labels:      []string{},
			CreatedBy:   c.Principal.Agent,
			CreatedAt:   c.Now,
		}
		// A custom id already taken is the store's ERR_CONFLICT.
		if err := c.Tx.CreateItem(ctx, it); err != nil {
			return createOut{}, err
		}
		return createOut{summary: summarize(it), Description: it.Description, Project: it.Project, CreatedBy: it.CreatedBy}, nil
	},
	Text: func(o createOut) string { return "Created bead " + o.ID + ": " + o.Title },
})
