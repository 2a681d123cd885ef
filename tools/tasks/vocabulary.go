// Package tasks holds the Colibri task tools: the work items of the store
// read and written in Colibri's vocabulary (priority names, "unassigned",
// T-style ids from the project prefix).
package tasks

import (
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "tasks"

// Priority names of Colibri. The canonical scale has five steps and Colibri
// four, so canonical 4 (backlog) reads as "low"; see docs/decisions.md.
var priorityNames = []string{"critical", "high", "normal", "low"}

func priorityName(p baton.Priority) string {
	if p >= baton.PriorityLow {
		return "low"
	}
	return priorityNames[p]
}

func priorityValue(name string) baton.Priority {
	for i, n := range priorityNames {
		if n == name {
			return baton.Priority(i)
		}
	}
	return baton.PriorityNormal
}

// priorityValues maps filter names onto the canonical values they cover.
func priorityValues(names []string) []baton.Priority {
	var out []baton.Priority
	for _, n := range names {
		out = append(out, priorityValue(n))
		if n == "low" {
			out = append(out, baton.PriorityBacklog)
		}
	}
	return out
}

const unassigned = "unassigned"

func assigneeName(a string) string {
	if a == "" {
		return unassigned
	}
	return a
}

func assigneeValue(a string) string {
	if a == unassigned {
		return ""
	}
	return a
}

func statusNames() []string {
	out := make([]string, len(baton.Statuses))
	for i, s := range baton.Statuses {
		out[i] = string(s)
	}
	return out
}

// Field rules shared by several task tools.
var (
	titleRule       = tool.Length(1, 256).NonBlank()
	descriptionRule = tool.MaxLen(8000)
	priorityRule    = tool.Enum(priorityNames...)
	statusRule      = tool.Enum(statusNames()...)
	labelsRule      = tool.List(20, tool.Length(1, 64).NonBlank())
	assigneeRule    = tool.Length(1, 128).NonBlank()
	taskIDRule      = tool.Length(1, 128)
	projectRule     = tool.Length(1, 63)
)
