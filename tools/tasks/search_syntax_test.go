package tasks_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// Issue 12, point 16: task_list's search reads the same FTS5 syntax as
// search_messages and search_learnings (every word must match unless OR
// says otherwise), and a malformed search is ERR_INVALID_INPUT naming the
// field and the character where it goes wrong.
func TestPoint16TaskListSearchSyntax(t *testing.T) {
	k, _ := listFixture(t)
	for _, tc := range []struct {
		search string
		want   []string
	}{
		{"wire handler", []string{"COL-1"}},
		{"flaky OR wiring", []string{"COL-1", "COL-2", "COL-3"}}, // wiring stems to wire: "Wire up"
		{"tests NOT wiring", []string{}},
		{"(tests OR flaky) NOT random", []string{"COL-2"}},
		{`"table tests"`, []string{"COL-2"}},
		{`"tests table"`, []string{}},
		{`"flaky bui"*`, []string{"COL-3"}},
		{"NEAR(fix build, 2)", []string{"COL-3"}},
		{"NEAR(fix build, 1)", []string{}},
		{"fix NEAR/2 build", []string{"COL-3"}},
		{"mcp handler", []string{"COL-1"}},
		{"   ", []string{"COL-1", "COL-2", "COL-3", "COL-4", "COL-5", "OTH-1"}}, // blank: no search
	} {
		got := ids(t, k.OK("task_list", map[string]any{"search": tc.search, "sort_by": "created", "sort_order": "asc"}), "tasks")
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, want %v", tc.search, got, tc.want)
		}
	}
	for _, tc := range []struct {
		search string
		pos    int
	}{
		{`flaky OR NOT "build`, 14}, {`"*()`, 1}, {"flaky AND", 7}, {"NOT flaky", 1}, {"(flaky", 1}, {"flaky)", 6},
		{"!!!", 1}, {"flaky *", 7}, {"NEAR(flaky)", 1},
	} {
		e := fail(on(k, t), "task_list", map[string]any{"search": tc.search}, baton.ErrInvalidInput)
		if e.Details["field"] != "search" || num(t, e.Details["position"]) != tc.pos ||
			!strings.HasPrefix(e.Message, "search: ") || !strings.Contains(e.Message, fmt.Sprintf("character %d", tc.pos)) || !strings.Contains(e.Hint, "NEAR(a b, 10)") {
			t.Errorf("search %q: %s %v (hint %q), want field search at %d with the syntax", tc.search, e.Message, e.Details, e.Hint, tc.pos)
		}
	}
}
