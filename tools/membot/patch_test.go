package membot_test

import (
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tools/membot"
)

type lp = membot.LinePatch

func TestApplyLinePatches(t *testing.T) {
	const text = "a\nb\nc\nd\ne"
	for _, tc := range []struct {
		name    string
		text    string
		patches []lp
		want    string
	}{
		{"replace one line", text, []lp{{StartLine: 2, EndLine: 2, Content: "B"}}, "a\nB\nc\nd\ne"},
		{"replace a range with more lines", text, []lp{{StartLine: 2, EndLine: 3, Content: "x\ny\nz"}}, "a\nx\ny\nz\nd\ne"},
		{"empty content deletes", text, []lp{{StartLine: 2, EndLine: 4, Content: ""}}, "a\ne"},
		{"end_line 0 inserts before start_line", text, []lp{{StartLine: 3, EndLine: 0, Content: "new"}}, "a\nb\nnew\nc\nd\ne"},
		{"insert at line 1 prepends", text, []lp{{StartLine: 1, EndLine: 0, Content: "top"}}, "top\na\nb\nc\nd\ne"},
		{"insert at count+1 appends", text, []lp{{StartLine: 6, EndLine: 0, Content: "end"}}, "a\nb\nc\nd\ne\nend"},
		{"empty insert is a no-op", text, []lp{{StartLine: 2, EndLine: 0, Content: ""}}, text},
		{"line numbers refer to the original text", text, []lp{
			{StartLine: 1, EndLine: 1, Content: "A1\nA2\nA3"}, // grows the text before line 4...
			{StartLine: 4, EndLine: 4, Content: "D"},          // ...which still means the original d
			{StartLine: 2, EndLine: 0, Content: "ins"},
		}, "A1\nA2\nA3\nins\nb\nc\nD\ne"},
		{"given order does not matter for distinct lines", text, []lp{
			{StartLine: 4, EndLine: 5, Content: ""},
			{StartLine: 1, EndLine: 2, Content: "AB"},
		}, "AB\nc"},
		// A trailing newline makes a last, empty line (§8 step 1).
		{"trailing newline is a last empty line", "a\nb\n", []lp{{StartLine: 3, EndLine: 0, Content: "c"}}, "a\nb\nc\n"},
		{"replacing the last empty line drops the newline", "a\nb\n", []lp{{StartLine: 3, EndLine: 3, Content: ""}}, "a\nb"},
		{"content with a trailing newline adds an empty line", "a\nb", []lp{{StartLine: 1, EndLine: 1, Content: "x\n"}}, "x\n\nb"},
		{"empty text has one empty line", "", []lp{{StartLine: 1, EndLine: 1, Content: "hello"}}, "hello"},
		// An insertion at the first line of a replacement lands before its
		// new lines, whichever is given first.
		{"insert at a replacement's first line, insert first", text, []lp{
			{StartLine: 2, EndLine: 0, Content: "ins"},
			{StartLine: 2, EndLine: 3, Content: "BC"},
		}, "a\nins\nBC\nd\ne"},
		{"insert at a replacement's first line, replacement first", text, []lp{
			{StartLine: 2, EndLine: 3, Content: "BC"},
			{StartLine: 2, EndLine: 0, Content: "ins"},
		}, "a\nins\nBC\nd\ne"},
		{"insert right after a replaced range", text, []lp{
			{StartLine: 2, EndLine: 3, Content: "BC"},
			{StartLine: 4, EndLine: 0, Content: "ins"},
		}, "a\nBC\nins\nd\ne"},
		// Upstream applies ties in their given order, each insertion going
		// before the line: the later one ends up first.
		{"two inserts at one line, as upstream", text, []lp{
			{StartLine: 2, EndLine: 0, Content: "first"},
			{StartLine: 2, EndLine: 0, Content: "second"},
		}, "a\nsecond\nfirst\nb\nc\nd\ne"},
		{"no patches leaves the text", text, nil, text},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := membot.ApplyLinePatches(tc.text, tc.patches)
			if err != nil {
				t.Fatalf("ApplyLinePatches: %v", err)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Every [baton] rule of §8 refuses the call as ERR_INVALID_INPUT naming the
// offending patch, and the text comes back unchanged.
func TestApplyLinePatchesValidation(t *testing.T) {
	const text = "a\nb\nc\nd\ne" // 5 lines
	for _, tc := range []struct {
		name    string
		patches []lp
		index   int
		field   string
	}{
		{"start_line below 1", []lp{{StartLine: 0, EndLine: 1, Content: "x"}}, 0, "patches[0].start_line"},
		{"negative start_line", []lp{{StartLine: 1, EndLine: 1}, {StartLine: -3, EndLine: 0, Content: "x"}}, 1, "patches[1].start_line"},
		{"negative end_line", []lp{{StartLine: 2, EndLine: -1, Content: "x"}}, 0, "patches[0].end_line"},
		{"end_line before start_line", []lp{{StartLine: 4, EndLine: 3, Content: "x"}}, 0, "patches[0].end_line"},
		{"end_line past the last line", []lp{{StartLine: 1, EndLine: 1}, {StartLine: 5, EndLine: 6, Content: "x"}}, 1, "patches[1].end_line"},
		{"start_line past the last line", []lp{{StartLine: 6, EndLine: 6, Content: "x"}}, 0, "patches[0].end_line"},
		{"insert past count+1", []lp{{StartLine: 7, EndLine: 0, Content: "x"}}, 0, "patches[0].start_line"},
		{"overlapping replacements", []lp{{StartLine: 1, EndLine: 3, Content: "x"}, {StartLine: 3, EndLine: 4, Content: "y"}}, 1, "patches[1].start_line"},
		{"one replacement inside another", []lp{{StartLine: 2, EndLine: 2, Content: "y"}, {StartLine: 1, EndLine: 5, Content: "x"}}, 1, "patches[1].start_line"},
		{"the same range twice", []lp{{StartLine: 2, EndLine: 2, Content: "x"}, {StartLine: 2, EndLine: 2, Content: "y"}}, 1, "patches[1].start_line"},
		{"insert inside a replaced range", []lp{{StartLine: 2, EndLine: 4, Content: "x"}, {StartLine: 3, EndLine: 0, Content: "y"}}, 1, "patches[1].start_line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := membot.ApplyLinePatches(text, tc.patches)
			if err == nil {
				t.Fatalf("accepted, got %q", got)
			}
			if got != text {
				t.Fatalf("text changed on failure: %q", got)
			}
			e := baton.AsError(err)
			if e.Code != baton.ErrInvalidInput || e.Hint == "" {
				t.Fatalf("want ERR_INVALID_INPUT with a hint, got %v", e)
			}
			if e.Details["patch"] != tc.index || e.Details["field"] != tc.field {
				t.Fatalf("details = %v, want patch %d, field %s", e.Details, tc.index, tc.field)
			}
		})
	}
	// Touching ranges are not overlapping.
	if got, err := membot.ApplyLinePatches(text, []lp{{StartLine: 1, EndLine: 2, Content: "x"}, {StartLine: 3, EndLine: 5, Content: "y"}}); err != nil || got != "x\ny" {
		t.Fatalf("adjacent ranges: %q, %v", got, err)
	}
}
