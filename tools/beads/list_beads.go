package beads

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type listIn struct {
	Status   string `json:"status,omitempty" jsonschema:"Filter: open (includes blocked), in_progress, closed, or all; without it every bead not closed, as bd list."`
	Assignee string `json:"assignee,omitempty" jsonschema:"Filter by assignee; unassigned selects beads without one."`
	Type     string `json:"type,omitempty" jsonschema:"Filter by type."`
}

type listOut struct {
	Beads []summary `json:"beads" jsonschema:"Matching beads of the session's project, most urgent first, then newest."`
	Count int       `json:"count" jsonschema:"Number of beads returned."`
	Total int       `json:"total" jsonschema:"Number of beads matching, before the limit."`
}

// listLimit is bd list's default: Adjutant's list_beads runs bd list
// without --limit, so it shows at most 50 beads.
const listLimit = 50

// ListBeads is list_beads.
var ListBeads = tool.New(tool.Definition[listIn, listOut]{
	Name:    "list_beads",
	Toolset: Toolset,
	Description: "List the beads of the session's project with optional filters, most urgent first, then newest, at most 50 " +
		"(narrow with the filters for more). Without status every bead that is not closed is listed (open, blocked and in progress), as bd list does.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"status":   tool.Enum(statusOpen, statusInProgress, statusClosed, statusAll),
		"assignee": assigneeFilterRule,
		"type":     typeRule,
	},
	Output: summaryRules("beads.", tool.Rules{}),
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		p, err := resolveProject(ctx, c)
		if err != nil {
			return listOut{}, err
		}
		// bd list's order: most urgent first, then newest (beads' store sorts
		// by priority, then created_at descending). Newest first from the
		// store, then a stable sort by priority.
		f := baton.ItemFilter{Project: p.Slug, Statuses: filterStatuses(in.Status), Sort: baton.SortCreated, Descending: true}
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
		out.Total = len(out.Beads)
		out.Beads = out.Beads[:min(len(out.Beads), listLimit)]
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
		if o.Total > o.Count {
			// bd list says so too (on stderr): a reader must not take the
			// page for everything.
			lines = append(lines, fmt.Sprintf("Showing %d of %d beads (narrow with status, assignee or type to see the rest)", o.Count, o.Total))
		}
		return strings.Join(lines, "\n")
	},
})
