package tasks_test

import (
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

type apiError = testkit.APIError

func fail(k *testkit.Kit, name string, args any, code string) apiError {
	k.T.Helper()
	return k.FailEnvelope(name, args, code)
}

// violations lists details.violations as "field:rule", sorted.
func violations(t testing.TB, e apiError) []string {
	t.Helper()
	raw, ok := e.Details["violations"].([]any)
	if !ok {
		t.Fatalf("details.violations missing or not a list: %v", e.Details)
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("violation is not an object: %v", v)
		}
		if m["message"] == "" || m["message"] == nil {
			t.Errorf("violation without a message: %v", m)
		}
		out = append(out, fmt.Sprintf("%v:%v", m["field"], m["rule"]))
	}
	sort.Strings(out)
	return out
}

// checkInvalid asserts that e names field and constraint and that its
// violations list exactly that one broken rule.
func checkInvalid(t testing.TB, e apiError, field, constraint string) {
	t.Helper()
	if e.Details["field"] != field || e.Details["constraint"] != constraint {
		t.Errorf("details field/constraint = %v/%v, want %s/%s (message %q)",
			e.Details["field"], e.Details["constraint"], field, constraint, e.Message)
	}
	if got, want := violations(t, e), []string{field + ":" + constraint}; !slices.Equal(got, want) {
		t.Errorf("violations = %v, want %v", got, want)
	}
	if !strings.Contains(e.Message, field) {
		t.Errorf("message %q does not name the field %s", e.Message, field)
	}
}

// create makes a task in colibri (title "task" unless given) and returns its id.
func create(k *testkit.Kit, args map[string]any) string {
	k.T.Helper()
	a := map[string]any{"project": testkit.Project, "title": "task"}
	for key, v := range args {
		a[key] = v
	}
	return k.OK("task_create", a)["task_id"].(string)
}

// update calls task_update on id with the fields of args.
func update(k *testkit.Kit, id string, args map[string]any) map[string]any {
	k.T.Helper()
	a := map[string]any{"task_id": id}
	for key, v := range args {
		a[key] = v
	}
	return k.OK("task_update", a)
}

// get reads a task back with task_get.
func get(k *testkit.Kit, id string) map[string]any {
	k.T.Helper()
	return k.OK("task_get", map[string]any{"task_id": id})
}

// paths drive a fresh task from backlog to each status along allowed moves.
var paths = map[string][]map[string]any{
	"backlog":     {},
	"todo":        {{"status": "todo"}},
	"in_progress": {{"status": "todo"}, {"status": "in_progress"}},
	"blocked":     {{"status": "todo"}, {"status": "blocked", "blocked_reason": "waiting for credentials"}},
	"review":      {{"status": "todo"}, {"status": "in_progress"}, {"status": "review"}},
	"done":        {{"status": "todo"}, {"status": "in_progress"}, {"status": "review"}, {"status": "done"}},
	"cancelled":   {{"status": "cancelled"}},
}

var statuses = []string{"backlog", "todo", "in_progress", "blocked", "review", "done", "cancelled"}

// createIn makes a task and drives it to status.
func createIn(k *testkit.Kit, status string, args map[string]any) string {
	k.T.Helper()
	id := create(k, args)
	for _, step := range paths[status] {
		update(k, id, step)
	}
	if got := get(k, id)["status"]; got != status {
		k.T.Fatalf("drove %s to %s, but it is %v", id, status, got)
	}
	return id
}

// storeItem creates an item directly through the store, for what the task
// tools cannot produce (canonical priority 4, a chosen creation time); the
// task tools' default status is backlog.
func storeItem(k *testkit.Kit, it *baton.Item) string {
	k.T.Helper()
	if it.Status == "" {
		it.Status = baton.StatusBacklog
	}
	return k.StoreItem(it)
}

// ids returns the task_id of every element of a list field of out.
func ids(t testing.TB, out map[string]any, field string) []string {
	t.Helper()
	list, ok := out[field].([]any)
	if !ok {
		t.Fatalf("%s is not a list (null or missing?): %v", field, out[field])
	}
	res := make([]string, 0, len(list))
	for _, e := range list {
		res = append(res, e.(map[string]any)["task_id"].(string))
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

func seqIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", testkit.Prefix, i+1)
	}
	return out
}
