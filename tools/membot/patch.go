package membot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// LinePatch is one line-range patch (membot-operations.md §8), the shape
// every line-editing tool shares (membot_edit, task_edit, schedule_edit,
// prompt_edit, skill_edit), so agents see the same fields everywhere.
// Line numbers are 1-based and refer to the text before any patch of the
// same call is applied.
type LinePatch struct {
	StartLine int    `json:"start_line" jsonschema:"1-based first line to replace; with end_line 0, the line to insert before."`
	EndLine   int    `json:"end_line" jsonschema:"1-based last line to replace (inclusive), or 0 to insert."`
	Content   string `json:"content" jsonschema:"Replacement lines; empty deletes."`
}

// Patch limits. The whole call must fit the framework's payload limit
// (tool.MaxArguments) even when every patch is as large as it may be, so
// the count and the size of one patch are bounded together: a larger
// rewrite is a membot_write with on_conflict "overwrite".
const (
	// MaxLinePatches is the most patches one call applies.
	MaxLinePatches = 100
	// MaxLinePatchContent is the longest replacement of one patch, in
	// characters.
	MaxLinePatchContent = 3000
	// maxLineNumber bounds line numbers: a document of
	// baton.MaxDocumentBytes has at most one more line than bytes.
	maxLineNumber = baton.MaxDocumentBytes + 1
)

// LinePatchRules are the schema rules of a patches property named name
// (at least one patch), for the tools that take LinePatch[].
func LinePatchRules(name string) tool.Rules {
	one := 1
	most := MaxLinePatches
	return tool.Rules{
		name:                 {MinItems: &one, MaxItems: &most},
		name + ".start_line": tool.Range(1, maxLineNumber),
		name + ".end_line":   tool.Range(0, maxLineNumber),
		name + ".content":    tool.MaxLen(MaxLinePatchContent),
	}
}

// ApplyLinePatches applies patches to text as Botholomew does (§8): the
// text is split on "\n" (a trailing newline makes a last, empty line);
// patches are applied highest start_line first, so each refers to the
// original line numbers; end_line 0 inserts content's lines before
// start_line; otherwise lines start_line..end_line are replaced by
// content's lines, or deleted when content is "".
//
// Unlike upstream, which splices whatever it is given, it first validates
// every patch (the [baton] rules of §8): start_line >= 1; end_line 0 or
// start_line <= end_line <= the line count; an insertion's start_line at
// most one past the last line; no two replacements over the same line, and
// no insertion inside lines another patch replaces (its place would be
// gone). A violation is ERR_INVALID_INPUT naming the patch's index (from 0)
// in details, and text is returned unchanged, so a caller writes nothing.
//
// Patches at the same start_line keep their given order, as upstream:
// two insertions before one line end up in reverse order (each goes before
// the line, ahead of the one applied before it). An insertion at the first
// line of a replacement goes before the replacement's lines whatever the
// order given, where upstream would let the replacement remove it.
func ApplyLinePatches(text string, patches []LinePatch) (string, error) {
	lines := strings.Split(text, "\n")
	if err := checkLinePatches(patches, len(lines)); err != nil {
		return text, err
	}
	order := make([]int, len(patches))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		pa, pb := patches[a], patches[b]
		if pa.StartLine != pb.StartLine {
			return pb.StartLine - pa.StartLine
		}
		// At one line, the replacement first: the insertion then lands
		// before its new lines instead of being replaced by them.
		return insertRank(pa) - insertRank(pb)
	})
	for _, i := range order {
		p := patches[i]
		var add []string
		if p.Content != "" {
			add = strings.Split(p.Content, "\n")
		}
		at := p.StartLine - 1
		end := at
		if p.EndLine != 0 {
			end = p.EndLine
		}
		lines = slices.Concat(lines[:at], add, lines[end:])
	}
	return strings.Join(lines, "\n"), nil
}

func insertRank(p LinePatch) int {
	if p.EndLine == 0 {
		return 1
	}
	return 0
}

// checkLinePatches validates patches against a text of n lines.
func checkLinePatches(patches []LinePatch, n int) error {
	for i, p := range patches {
		switch {
		case p.StartLine < 1:
			return patchError(i, "start_line", "patches[%d].start_line is %d; lines are numbered from 1", i, p.StartLine)
		case p.EndLine < 0:
			return patchError(i, "end_line", "patches[%d].end_line is %d; use 0 to insert or a line number to replace up to", i, p.EndLine)
		case p.EndLine == 0 && p.StartLine > n+1:
			return patchError(i, "start_line", "patches[%d] inserts before line %d, but the text has %d lines (insert at %d to append)",
				i, p.StartLine, n, n+1).WithDetails("line_count", n)
		case p.EndLine != 0 && p.EndLine < p.StartLine:
			return patchError(i, "end_line", "patches[%d].end_line %d is before its start_line %d", i, p.EndLine, p.StartLine)
		case p.EndLine > n:
			return patchError(i, "end_line", "patches[%d].end_line %d is past the last line (the text has %d lines)", i, p.EndLine, n).
				WithDetails("line_count", n)
		}
	}
	for i, p := range patches {
		for j, q := range patches {
			if i == j || q.EndLine == 0 {
				continue
			}
			switch {
			case p.EndLine != 0 && j > i && p.StartLine <= q.EndLine && q.StartLine <= p.EndLine:
				return patchError(j, "start_line", "patches[%d] (lines %d-%d) overlaps patches[%d] (lines %d-%d)",
					j, q.StartLine, q.EndLine, i, p.StartLine, p.EndLine).WithDetails("overlaps", i)
			case p.EndLine == 0 && q.StartLine < p.StartLine && p.StartLine <= q.EndLine:
				return patchError(i, "start_line", "patches[%d] inserts before line %d, inside lines %d-%d that patches[%d] replaces",
					i, p.StartLine, q.StartLine, q.EndLine, j).WithDetails("overlaps", j)
			}
		}
	}
	return nil
}

func patchError(i int, field, format string, args ...any) *baton.Error {
	return baton.Errorf(baton.ErrInvalidInput, format, args...).
		WithDetails("patch", i, "field", fmt.Sprintf("patches[%d].%s", i, field)).
		WithHint("re-read the entry (membot_read) to confirm the line numbers, then retry; every patch refers to the lines before any patch is applied")
}
