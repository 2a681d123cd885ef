package importers

import (
	"fmt"
	"strings"
)

// Text is the report for people, as `baton import` prints it: a summary
// line, one line per item, the mapping table and everything skipped.
func (r *Report) Text() string {
	var b strings.Builder
	into := ""
	if r.Project != "" {
		into = " into " + r.Project
	}
	verb := "created"
	switch {
	case r.DryRun:
		verb = "would create"
	case !r.Imported && r.Project == "":
		verb = "to create"
	}
	fmt.Fprintf(&b, "%s import%s: %s %d items (%d already imported), %d dependencies, %d comments; %d skipped",
		r.Source, into, verb, r.Created, r.AlreadyImported, r.Dependencies, r.Comments, len(r.Skipped))
	if r.DryRun {
		b.WriteString(" (dry run: nothing was written)")
	}
	b.WriteString("\n")
	if len(r.Items) > 0 {
		b.WriteString("\nitems:\n")
	}
	for _, it := range r.Items {
		id := it.ID
		if id == "" {
			id = "-"
		}
		action := ""
		if it.Action == ActionAlreadyImported {
			action = "  (already imported)"
		}
		fmt.Fprintf(&b, "  %s -> %s  %s %s P%s  %s%s\n", clean(it.ForeignID), clean(id), it.Kind.To, it.Status.To, it.Priority.To,
			clean(it.Title), action)
		for _, n := range it.Notes {
			fmt.Fprintf(&b, "      %s\n", clean(n))
		}
	}
	if len(r.Mappings) > 0 {
		b.WriteString("\nmappings:\n")
	}
	for _, m := range r.Mappings {
		fmt.Fprintf(&b, "  %-8s %s -> %s  x%d\n", m.Field, clean(m.From), m.To, m.Count)
	}
	if len(r.Skipped) > 0 {
		b.WriteString("\nskipped:\n")
	}
	for _, s := range r.Skipped {
		target := ""
		if s.Target != "" {
			target = " " + clean(s.Target)
		}
		where := ""
		if s.Where != "" {
			where = " (" + clean(s.Where) + ")"
		}
		fmt.Fprintf(&b, "  %s %s%s%s: %s\n", s.Kind, clean(s.ForeignID), target, where, clean(s.Reason))
	}
	return b.String()
}

// clean keeps what a file says on one line of a terminal: control
// characters (escape sequences included) become spaces.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}
