// Package issues holds Symphony's issue tools: the work items of the store
// read and written in Symphony's vocabulary (priorities 1-4, findings,
// learnings, comments, runs), defaulting to the issue the session is bound
// to.
package issues

import (
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "issues"

// Symphony's priorities 1 urgent, 2 high, 3 medium, 4 low are canonical
// 0-3; canonical 4 (backlog) reads as 4, low.
func priorityOut(p baton.Priority) int { return min(int(p)+1, 4) }

func priorityIn(p int) baton.Priority { return baton.Priority(p - 1) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// size reads Symphony's t-shirt size from a size:X label.
func size(labels []string) string {
	for _, l := range labels {
		if v, ok := strings.CutPrefix(l, "size:"); ok {
			return v
		}
	}
	return ""
}

var (
	issueIDRule = tool.Length(1, 128)
	titleRule   = tool.Length(1, 256).NonBlank()
	descRule    = tool.MaxLen(8000)
	labelsRule  = tool.List(20, tool.Length(1, 64).NonBlank())
	priority    = tool.Range(1, 4).WithDefault(3)
)

// issueArg is the optional issue_id of tools that act on the current issue.
const issueArgDoc = "Issue to act on; defaults to the issue this session is bound to."
