package beads

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type listIn struct {
	Status   string `json:"status,omitempty" jsonschema:"Filter: open (includes blocked), in_progress, closed, or all."`
	Assignee string `json:"assignee,omitempty" jsonschema:"Filter by assignee; unassigned selects beads without one."`
	Type     string `json:"type,omitempty" jsonschema:"Filter by type."`
}

type listOut struct {
	Beads []summary `json:"beads" jsonschema:"Matching beads of the session's project, most urgent first, then oldest."`
	Count int       `json:"count" jsonschema:"Number of beads returned."`
}

// ListBeads is list_beads.
var ListBeads = tool.New(tool.Definition[listIn, listOut]{
	Name:    "list_beads",
	Toolset: Toolset,
	Description: "List the beads of the session's project with optional filters, most urgent first, then oldest. " +
		"Status defaults to open, which includes blocked beads.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"status":   tool.Enum(statusOpen, statusInProgress, statusClosed, statusAll).WithDefault(statusOpen),
		"assignee": assigneeFilterRule,
		"type":     typeRule,
	},
	Output: summaryRules("beads.", tool.Rules{}),
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		p, err := resolveProject(ctx, c)
		if err != nil {
			return listOut{}, err
		}
		// Oldest first from the store, then a stable sort by priority: the
		// store's priority sort breaks ties in the sort's direction, which
		// puts the newest first when the most urgent come first.
		f := baton.ItemFilter{Project: p.Slug, Statuses: filterStatuses(in.Status), Sort: baton.SortCreated}
		if in.Assignee != "" {
			a := assigneeValue(in.Assignee)
			f.Assignee = &a
		}
		page, err := c.Tx.ListItems(ctx, f)
		if err != nil {
			return listOut{}, err
		}
		out := listOut{Beads: []summary{}}
		for _, it := range page.Items {
			// ItemFilter has no kind; a project's item list is small enough
			// to filter here.
			if in.Type != "" && string(it.Kind) != in.Type {
				continue
			}
			out.Beads = append(out.Beads, summarize(it))
		}
		slices.SortStableFunc(out.Beads, func(a, b summary) int { return cmp.Compare(a.Priority, b.Priority) })
		out.Count = len(out.Beads)
		return out, nil
	},
	Text: func(o listOut) string {
		if len(o.Beads) == 0 {
			return "No beads found."
		}
		lines := make([]string, len(o.Beads))
		for i, b := range o.Beads {
			lines[i] = line(b)
		}
		return strings.Join(lines, "\n")
	},
})
