package cli

import (
	"fmt"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Markers around the generated part of docs/profiles.md.
const (
	MatrixBegin = "<!-- BEGIN generated matrix: UPDATE_DOCS=1 go test ./cli -run Fresh -->"
	MatrixEnd   = "<!-- END generated matrix -->"
)

// ProfilesMatrix renders every tool against every built-in profile from
// the registry defaults (tool.ComputeScope with no stored settings), with
// the counts and schema costs per profile. docs/profiles.md holds it
// between MatrixBegin and MatrixEnd, and a test fails when it is stale.
func ProfilesMatrix(reg *tool.Registry) string {
	var b strings.Builder
	profiles := baton.BuiltinProfiles
	scopes := make([]*tool.Scope, len(profiles))
	sched := make([]*tool.Scope, len(profiles))
	for i, p := range profiles {
		scopes[i] = tool.ComputeScope(reg, baton.Principal{Profile: p, Source: baton.SourceStdio}, tool.ScopeInput{})
		sched[i] = tool.ComputeScope(reg, baton.Principal{Profile: p, Source: baton.SourceStdio, SchedulerMode: true}, tool.ScopeInput{})
	}
	b.WriteString("| tool | toolset | " + strings.Join(profiles, " | ") + " | notes |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(profiles)) + "---|\n")
	for _, t := range reg.All() {
		s := t.Spec()
		fmt.Fprintf(&b, "| [`%s`](tools.md#%s) | %s |", s.Name, s.Name, s.Toolset)
		for i := range profiles {
			cell := ""
			switch {
			case s.Annotations.Privileged:
				cell = "grant"
			case scopes[i].Has(s.Name):
				cell = "✓"
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		fmt.Fprintf(&b, " %s |\n", matrixNotes(s))
	}
	row := func(title string, value func(i int) string) {
		fmt.Fprintf(&b, "| **%s** | |", title)
		for i := range profiles {
			fmt.Fprintf(&b, " %s |", value(i))
		}
		b.WriteString(" |\n")
	}
	row("tools", func(i int) string { return fmt.Sprint(len(scopes[i].Names(reg))) })
	row("in a scheduler session", func(i int) string { return fmt.Sprint(len(sched[i].Names(reg))) })
	row("≈ tokens (chars/4)", func(i int) string { return fmt.Sprint(tool.ScopeTokens(reg, scopes[i])) })
	return b.String()
}

func matrixNotes(s *tool.Spec) string {
	var notes []string
	if s.Annotations.Privileged {
		notes = append(notes, "privileged: only by explicit grant")
	}
	if s.Annotations.SchedulerBlocked {
		notes = append(notes, "scheduler-blocked")
	}
	if s.SchedulerCap != "" {
		notes = append(notes, fmt.Sprintf("scheduler cap: %d %s", tool.SchedulerCaps[s.SchedulerCap], s.SchedulerCap))
	}
	if s.Annotations.ReadOnly {
		notes = append(notes, "read-only")
	}
	if s.AliasOf != "" {
		notes = append(notes, "alias of "+s.AliasOf+", callable, never listed")
	}
	return strings.Join(notes, "; ")
}
