package issues_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// epoch is the first instant a fakeClock reports.
var epoch = time.Date(2026, 4, 8, 22, 15, 30, 0, time.UTC)

// withClock makes every call of k read a fake clock that starts at epoch
// and moves by step per call (0: every call ties).
func withClock(k *testkit.Kit, step time.Duration) *testkit.Clock {
	return k.UseClock(testkit.NewClock(epoch, step))
}

func on(k *testkit.Kit, t testing.TB) *testkit.Kit { return k.On(t) }

// bound returns a copy of k whose session is bound to the issue id.
func bound(k *testkit.Kit, id string) *testkit.Kit {
	c := *k
	c.Principal.IssueID = id
	return &c
}

type apiError = testkit.APIError

func fail(k *testkit.Kit, name string, args any, code string) apiError {
	k.T.Helper()
	return k.FailEnvelope(name, args, code)
}

// violations lists details.violations as "field:rule", sorted; empty when
// the error came from the tool itself rather than the schema.
func violations(e apiError) []string {
	raw, _ := e.Details["violations"].([]any)
	out := []string{}
	for _, v := range raw {
		if m, ok := v.(map[string]any); ok {
			out = append(out, fmt.Sprintf("%v:%v", m["field"], m["rule"]))
		}
	}
	sort.Strings(out)
	return out
}

// invalid calls a tool that must fail with ERR_INVALID_INPUT naming field,
// either as a schema violation or in details.field.
func invalid(k *testkit.Kit, name string, args any, field string) apiError {
	k.T.Helper()
	e := fail(k, name, args, baton.ErrInvalidInput)
	vs := violations(e)
	named := e.Details["field"] == field
	for _, v := range vs {
		if strings.HasPrefix(v, field+":") {
			named = true
		}
	}
	if !named {
		k.T.Errorf("%s: error does not name the field %s: details %v", name, field, e.Details)
	}
	if !strings.Contains(e.Message, field) {
		k.T.Errorf("%s: message %q does not name the field %s", name, e.Message, field)
	}
	return e
}

// issue creates an issue with create_issue (title "issue" unless given)
// and returns its id.
func issue(k *testkit.Kit, args map[string]any) string {
	k.T.Helper()
	a := map[string]any{"title": "issue"}
	for key, v := range args {
		a[key] = v
	}
	return k.OK("create_issue", a)["issue_id"].(string)
}

// paths drive a fresh issue (backlog) to each status with task_update.
var paths = map[string][]map[string]any{
	"backlog":     {},
	"todo":        {{"status": "todo"}},
	"in_progress": {{"status": "todo"}, {"status": "in_progress"}},
	"blocked":     {{"status": "todo"}, {"status": "blocked", "blocked_reason": "waiting for credentials"}},
	"review":      {{"status": "todo"}, {"status": "in_progress"}, {"status": "review"}},
	"done":        {{"status": "todo"}, {"status": "in_progress"}, {"status": "review"}, {"status": "done"}},
	"cancelled":   {{"status": "cancelled"}},
}

// drive moves id from its status along paths[status], skipping the steps
// up to where it already is.
func drive(k *testkit.Kit, id, status string) {
	k.T.Helper()
	steps := paths[status]
	cur := status0(k, id)
	start := 0
	for i, s := range steps {
		if s["status"] == cur {
			start = i + 1
		}
	}
	for _, s := range steps[start:] {
		a := map[string]any{"task_id": id}
		for key, v := range s {
			a[key] = v
		}
		k.OK("task_update", a)
	}
	if got := status0(k, id); got != status {
		k.T.Fatalf("drove %s to %s, but it is %s", id, status, got)
	}
}

// issueIn creates an issue and drives it to status.
func issueIn(k *testkit.Kit, status string, args map[string]any) string {
	k.T.Helper()
	id := issue(k, args)
	drive(k, id, status)
	return id
}

// status0 reads an issue's status through get_issue.
func status0(k *testkit.Kit, id string) string {
	k.T.Helper()
	return k.OK("get_issue", map[string]any{"issue_id": id})["status"].(string)
}

// getIssue reads an issue with get_issue.
func getIssue(k *testkit.Kit, id string) map[string]any {
	k.T.Helper()
	return k.OK("get_issue", map[string]any{"issue_id": id})
}

// taskGet reads an issue in Colibri's vocabulary.
func taskGet(k *testkit.Kit, id string) map[string]any {
	k.T.Helper()
	return k.OK("task_get", map[string]any{"task_id": id})
}

// list returns the elements of a list field of out as maps.
func list(t testing.TB, out map[string]any, field string) []map[string]any {
	t.Helper()
	raw, ok := out[field].([]any)
	if !ok {
		t.Fatalf("%s is not a list (null or missing?): %#v", field, out[field])
	}
	res := make([]map[string]any, 0, len(raw))
	for _, e := range raw {
		m, ok := e.(map[string]any)
		if !ok {
			t.Fatalf("%s element is not an object: %#v", field, e)
		}
		res = append(res, m)
	}
	return res
}

// strs returns a list field of out as strings.
func strs(t testing.TB, out map[string]any, field string) []string {
	t.Helper()
	raw, ok := out[field].([]any)
	if !ok {
		t.Fatalf("%s is not a list (null or missing?): %#v", field, out[field])
	}
	res := make([]string, 0, len(raw))
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			t.Fatalf("%s element is not a string: %#v", field, e)
		}
		res = append(res, s)
	}
	return res
}

// column returns one field of each element of a list field of out.
func column(t testing.TB, out map[string]any, field, key string) []string {
	t.Helper()
	var res []string
	for _, m := range list(t, out, field) {
		res = append(res, fmt.Sprint(m[key]))
	}
	return res
}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// num reads a JSON number as an int.
func num(t testing.TB, v any) int {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	return int(f)
}

// parseStamp parses an ISO-8601 UTC timestamp.
func parseStamp(t testing.TB, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v is not a string", v)
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %q is not ISO-8601: %v", s, err)
	}
	if !strings.HasSuffix(s, "Z") {
		t.Errorf("timestamp %q is not UTC (no Z suffix)", s)
	}
	return ts
}

// equal reports a mismatch of two string lists.
func equal(t testing.TB, what string, got, want []string) {
	t.Helper()
	if got == nil {
		got = []string{}
	}
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// run stores an agent run with its events on an issue, as the orchestrator
// would after ingesting the agent's stream, and returns its id.
func run(k *testkit.Kit, r *baton.Run, events ...baton.RunEvent) string {
	k.T.Helper()
	ctx := context.Background()
	if r.Agent == "" {
		r.Agent = "agent-alice"
	}
	if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.CreateRun(ctx, r, events) }); err != nil {
		k.T.Fatalf("create run: %v", err)
	}
	return r.ID
}

// ev builds a run event with JSON data.
func ev(typ, subtype, data string) baton.RunEvent {
	return baton.RunEvent{Type: typ, Subtype: subtype, Data: json.RawMessage(data)}
}

// pad returns a string of exactly n characters (n >= 1), built from a
// sentence so it reads like a real pattern; it starts and ends with a
// non-space, so trimming leaves all n.
func pad(n int) string {
	const text = "Subject first: SQLite readers must open with query_only so a stray write fails loudly instead of waiting on the writer lock. "
	s := strings.Repeat(text, n/len(text)+1)
	return s[:n-1] + "."
}
