package issues_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// Issue 12, point 16: search_learnings reads the same FTS5 syntax as
// search_messages and task_list. Its juxtaposed words stay alternatives
// (any may match, more matches rank higher); AND, NOT, phrases and NEAR
// narrow, and a malformed query is ERR_INVALID_INPUT with its position.
func TestPoint16SearchLearningsSyntax(t *testing.T) {
	k := testkit.New(t)
	ids := seedCorpus(k)
	matching := []string{"A", "B", "C", "D", "D2", "E"}
	for _, tc := range []struct {
		query string
		want  []string // sorted
		field string   // matched_field of every hit, when set
	}{
		{"flag redis", []string{"D", "F"}, ""},
		{"migrating AND flag", []string{"D"}, ""},
		{"migrating flag AND rollout", []string{"D"}, ""}, // (migrating OR flag) AND rollout
		{"migrating NOT flag", []string{"A", "B", "C", "D2", "E"}, ""},
		{"migrating NOT (flag OR failed)", []string{"B", "C", "D2", "E"}, ""},
		{`"feature flag"`, []string{"D"}, "pattern"},
		{`"flag feature"`, nil, ""},
		{`"migrations"`, []string{"D2", "E"}, ""}, // quoted: the written word, not its stem
		{`"freshly creat"*`, []string{"A", "B", "C", "D", "D2", "E", "F"}, "context"},
		{"NEAR(feature rollout, 3)", []string{"D"}, "pattern"},
		{"NEAR(feature rollout, 2)", nil, ""},
		{"feature NEAR/3 rollout OR tenant", []string{"D", "F"}, "pattern"},
		{"migrat*", matching, ""},
	} {
		out := k.OK("search_learnings", map[string]any{"query": tc.query})
		got := names(t, out, ids)
		slices.Sort(got)
		equal(t, tc.query, got, tc.want)
		if tc.field == "" {
			continue
		}
		for _, f := range column(t, out, "results", "matched_field") {
			if f != tc.field {
				t.Errorf("%q: matched_field %s, want %s", tc.query, f, tc.field)
			}
		}
	}
	for _, tc := range []struct {
		query string
		pos   int
	}{
		{`migrations"* OR redis`, 11}, {"migrat AND", 8}, {"NOT flag", 1}, {"(flag", 1}, {"flag)", 5}, {"!!! ---", 1},
		{"NEAR(flag)", 1}, {"flag NEAR", 6},
	} {
		e := invalid(on(k, t), "search_learnings", map[string]any{"query": tc.query}, "query")
		if num(t, e.Details["position"]) != tc.pos || !strings.Contains(e.Message, fmt.Sprintf("character %d", tc.pos)) ||
			!strings.Contains(e.Hint, "any word may match") {
			t.Errorf("%q: %s %v (hint %q), want position %d and the syntax", tc.query, e.Message, e.Details, e.Hint, tc.pos)
		}
		if e.Code != baton.ErrInvalidInput {
			t.Errorf("%q: code %s", tc.query, e.Code)
		}
	}
}
