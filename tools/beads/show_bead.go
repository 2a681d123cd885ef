package beads

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-dev/baton/tool"
)

// Relations of a bead to another, as show_bead names them.
const (
	relDepends = "depends" // the bead cannot start before the other is done
	relParent  = "parent"  // the other is the bead's parent
	relChild   = "child"   // the other is a child of the bead
)

type showIn struct {
	ID string `json:"id" jsonschema:"Bead id."`
}

type dependency struct {
	ID   string `json:"id" jsonschema:"The related bead."`
	Type string `json:"type" jsonschema:"depends: this bead waits for it; parent: it is this bead's parent; child: it is a child of this bead."`
}

type showOut struct {
	summary
	Description  string       `json:"description" jsonschema:"Bead description."`
	Project      string       `json:"project" jsonschema:"Project slug."`
	Parent       string       `json:"parent,omitempty" jsonschema:"Parent bead id, when the bead has one."`
	Dependencies []dependency `json:"dependencies" jsonschema:"Related beads: what this bead depends on, then its parent, then its children, as in the text output."`
	CloseReason  string       `json:"close_reason,omitempty" jsonschema:"Why the bead was closed, when a reason was given."`
}

// ShowBead is show_bead.
var ShowBead = tool.New(tool.Definition[showIn, showOut]{
	Name:        "show_bead",
	Toolset:     Toolset,
	Description: "Get full details for a single bead, including what it depends on, its parent and its children.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"id": beadIDRule},
	Output: summaryRules("", tool.Rules{
		"dependencies.type": tool.Enum(relDepends, relParent, relChild),
	}),
	Execute: func(ctx context.Context, c *tool.Call, in showIn) (showOut, error) {
		it, err := bead(ctx, c, in.ID)
		if err != nil {
			return showOut{}, err
		}
		deps, err := c.Tx.Dependencies(ctx, it.ID)
		if err != nil {
			return showOut{}, err
		}
		kids, err := c.Tx.Children(ctx, it.ID)
		if err != nil {
			return showOut{}, err
		}
		out := showOut{summary: summarize(it), Description: it.Description, Project: it.Project,
			Parent: it.ParentID, CloseReason: it.CloseReason, Dependencies: []dependency{}}
		for _, d := range deps {
			out.Dependencies = append(out.Dependencies, dependency{ID: d, Type: relDepends})
		}
		if it.ParentID != "" {
			out.Dependencies = append(out.Dependencies, dependency{ID: it.ParentID, Type: relParent})
		}
		for _, k := range kids {
			out.Dependencies = append(out.Dependencies, dependency{ID: k, Type: relChild})
		}
		return out, nil
	},
	Text: showText,
})

// showText renders the catalogue's format. Every line is always there, so
// a reader can rely on the shape: an unassigned bead shows
// "Assignee: unassigned" (baton's word for it in every vocabulary), and a
// bead without relations shows "Dependencies: none".
func showText(o showOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ID: %s\nTitle: %s\nStatus: %s\nType: %s\nPriority: P%d\nAssignee: %s\n",
		o.ID, o.Title, o.Status, o.Type, o.Priority, assigneeName(o.Assignee))
	if o.Description == "" {
		b.WriteString("Description:\n")
	} else {
		fmt.Fprintf(&b, "Description: %s\n", o.Description)
	}
	if len(o.Dependencies) == 0 {
		b.WriteString("Dependencies: none")
		return b.String()
	}
	b.WriteString("Dependencies:")
	for _, d := range o.Dependencies {
		fmt.Fprintf(&b, "\n  - %s (%s)", d.ID, d.Type)
	}
	return b.String()
}
