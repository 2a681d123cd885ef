package membot_test

import (
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestCountLines: 0 for empty text, else the newline-separated pieces (a
// trailing newline adds one), with the size; flat output.
func TestCountLines(t *testing.T) {
	k := testkit.New(t)
	for path, tc := range map[string]struct {
		text  string
		lines float64
	}{
		"empty.md": {"", 0}, "one.md": {"one", 1}, "two.md": {"a\nb", 2}, "trailing.md": {"a\nb\n", 3}, "blank.md": {"\n", 2},
	} {
		put(k, path, tc.text)
		out := k.OK("membot_count_lines", map[string]any{"logical_path": "/" + path})
		eq(t, path, out, map[string]any{"is_error": false, "logical_path": path, "line_count": tc.lines, "size_bytes": float64(len(tc.text))})
	}
	putGlobal(k, "g.md", "x\ny")
	eq(t, "global", k.OK("membot_count_lines", map[string]any{"logical_path": "g.md"})["line_count"], 2.0)
}

// TestCountLinesErrors: a missing or deleted path is not_found, a
// malformed one input_error, each with a hint.
func TestCountLinesErrors(t *testing.T) {
	k := testkit.New(t)
	put(k, "gone.md", "x")
	remove(k, projectSpace, "gone.md")
	failWith(k, "membot_count_lines", map[string]any{"logical_path": "gone.md"}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_count_lines", map[string]any{"logical_path": "never.md"}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_count_lines", map[string]any{"logical_path": "x//y"}, baton.ErrInvalidInput, "input_error")
}
