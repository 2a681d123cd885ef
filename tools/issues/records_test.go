package issues_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// seedRuns stores two runs on COL-1 and one on COL-2:
//
//	R-1 (COL-1): system/init, assistant/thinking, assistant/text, assistant/tool_use, user/tool_result, result/success
//	R-2 (COL-2): system/init, assistant/text, result/error
//	R-3 (COL-1): system/init, assistant/tool_use, user/tool_result, rate_limit_event/""
func seedRuns(k *testkit.Kit) {
	k.T.Helper()
	issue(k, nil)
	issue(k, nil)
	run(k, &baton.Run{ItemID: "COL-1", Status: "succeeded"},
		ev("system", "init", `{"model":"opus"}`), ev("assistant", "thinking", `{"text":"plan"}`),
		ev("assistant", "text", `{"text":"hello"}`), ev("assistant", "tool_use", `{"name":"get_issue"}`),
		ev("user", "tool_result", `{"ok":true}`), ev("result", "success", `{"cost":0.1}`))
	run(k, &baton.Run{ItemID: "COL-2", Status: "failed", Error: "boom"},
		ev("system", "init", `{}`), ev("assistant", "text", `{"text":"other issue"}`), ev("result", "error", `{}`))
	run(k, &baton.Run{ItemID: "COL-1", Status: "failed"},
		ev("system", "init", `{}`), ev("assistant", "tool_use", `{"name":"add_finding"}`),
		ev("user", "tool_result", `{"ok":false}`), ev("rate_limit_event", "", `{"retry_after":30}`))
}

// trace renders events as run:seq:type/subtype.
func trace(t testing.TB, out map[string]any) []string {
	t.Helper()
	var res []string
	for _, e := range list(t, out, "events") {
		res = append(res, fmt.Sprintf("%v:%d:%v/%v", e["run_id"], num(t, e["seq"]), e["type"], e["subtype"]))
	}
	return res
}

func TestQueryRunEvents(t *testing.T) {
	k := testkit.New(t)
	seedRuns(k)
	r1 := []string{"R-1:1:system/init", "R-1:2:assistant/thinking", "R-1:3:assistant/text", "R-1:4:assistant/tool_use",
		"R-1:5:user/tool_result", "R-1:6:result/success"}
	r3 := []string{"R-3:1:system/init", "R-3:2:assistant/tool_use", "R-3:3:user/tool_result", "R-3:4:rate_limit_event/"}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"one run", map[string]any{"run_id": "R-1"}, r1},
		{"every run of an issue, by run then stream order", map[string]any{"issue_id": "COL-1"}, append(append([]string{}, r1...), r3...)},
		{"other issue", map[string]any{"issue_id": "COL-2"}, []string{"R-2:1:system/init", "R-2:2:assistant/text", "R-2:3:result/error"}},
		{"type", map[string]any{"issue_id": "COL-1", "event_type": "assistant"},
			[]string{"R-1:2:assistant/thinking", "R-1:3:assistant/text", "R-1:4:assistant/tool_use", "R-3:2:assistant/tool_use"}},
		{"subtype", map[string]any{"issue_id": "COL-1", "event_subtype": "tool_use"},
			[]string{"R-1:4:assistant/tool_use", "R-3:2:assistant/tool_use"}},
		{"type and subtype", map[string]any{"run_id": "R-1", "event_type": "assistant", "event_subtype": "thinking"},
			[]string{"R-1:2:assistant/thinking"}},
		{"subtype of another type", map[string]any{"run_id": "R-1", "event_type": "user", "event_subtype": "thinking"}, nil},
		{"rate limit events", map[string]any{"issue_id": "COL-1", "event_type": "rate_limit_event"}, []string{"R-3:4:rate_limit_event/"}},
		{"result", map[string]any{"issue_id": "COL-2", "event_type": "result"}, []string{"R-2:3:result/error"}},
		{"run and its issue", map[string]any{"run_id": "R-3", "issue_id": "COL-1", "event_type": "system"}, []string{"R-3:1:system/init"}},
		{"run of another issue", map[string]any{"run_id": "R-2", "issue_id": "COL-1"}, nil},
		{"unknown run", map[string]any{"run_id": "R-99"}, nil},
		{"unknown subtype", map[string]any{"run_id": "R-1", "event_subtype": "nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := on(k, t).OK("query_run_events", tc.args)
			equal(t, "events", trace(t, out), tc.want)
			if num(t, out["count"]) != len(tc.want) || num(t, out["total_count"]) != len(tc.want) {
				t.Errorf("count/total_count = %v/%v, want %d", out["count"], out["total_count"], len(tc.want))
			}
			if num(t, out["limit"]) != 100 || num(t, out["offset"]) != 0 {
				t.Errorf("limit/offset = %v/%v, want the defaults 100/0", out["limit"], out["offset"])
			}
		})
	}

	// The data is the stream line as the agent wrote it.
	e := list(t, k.OK("query_run_events", map[string]any{"run_id": "R-1", "event_subtype": "tool_use"}), "events")[0]
	if d, ok := e["data"].(map[string]any); !ok || d["name"] != "get_issue" {
		t.Errorf("data = %#v", e["data"])
	}
	parseStamp(t, e["created_at"])
}

func TestQueryRunEventsPaging(t *testing.T) {
	k := testkit.New(t)
	seedRuns(k)
	all := trace(t, k.OK("query_run_events", map[string]any{"issue_id": "COL-1"}))
	if len(all) != 10 {
		t.Fatalf("COL-1 has %d events, want 10", len(all))
	}
	var paged []string
	for off := 0; off < 12; off += 4 {
		out := k.OK("query_run_events", map[string]any{"issue_id": "COL-1", "limit": 4, "offset": off})
		if num(t, out["total_count"]) != 10 || num(t, out["offset"]) != off || num(t, out["limit"]) != 4 {
			t.Errorf("page at %d: total/offset/limit = %v/%v/%v", off, out["total_count"], out["offset"], out["limit"])
		}
		page := trace(t, out)
		if want := min(4, 10-off); len(page) != want || num(t, out["count"]) != want {
			t.Errorf("page at %d has %d events (count %v), want %d", off, len(page), out["count"], want)
		}
		paged = append(paged, page...)
	}
	equal(t, "pages together", paged, all)
	out := k.OK("query_run_events", map[string]any{"issue_id": "COL-1", "offset": 50})
	if len(trace(t, out)) != 0 || num(t, out["total_count"]) != 10 {
		t.Errorf("past the end = %v", out)
	}
	// Filters apply before paging, and total_count counts filtered events.
	out = k.OK("query_run_events", map[string]any{"issue_id": "COL-1", "event_type": "assistant", "limit": 1, "offset": 1})
	equal(t, "filtered page", trace(t, out), []string{"R-1:3:assistant/text"})
	if num(t, out["total_count"]) != 4 {
		t.Errorf("total_count = %v, want 4", out["total_count"])
	}
}

func TestQueryRunEventsLimits(t *testing.T) {
	k := testkit.New(t)
	id := issue(k, nil)
	events := make([]baton.RunEvent, 510)
	for i := range events {
		events[i] = ev("assistant", "text", fmt.Sprintf(`{"i":%d}`, i))
	}
	run(k, &baton.Run{ItemID: id, Status: "succeeded"}, events...)
	for _, tc := range []struct {
		limit any
		want  int
	}{
		{nil, 100},
		{1, 1},
		{499, 499},
		{500, 500},
	} {
		args := map[string]any{"run_id": "R-1"}
		if tc.limit != nil {
			args["limit"] = tc.limit
		}
		out := k.OK("query_run_events", args)
		if n := len(list(t, out, "events")); n != tc.want || num(t, out["total_count"]) != 510 {
			t.Errorf("limit %v: %d events of %v, want %d of 510", tc.limit, n, out["total_count"], tc.want)
		}
	}
	for _, l := range []any{501, 0, -1, 10000} {
		invalid(k, "query_run_events", map[string]any{"run_id": "R-1", "limit": l}, "limit")
	}
	invalid(k, "query_run_events", map[string]any{"run_id": "R-1", "offset": -1}, "offset")

	// Either run_id or issue_id is required, even when bound to an issue.
	for _, kit := range []*testkit.Kit{k, bound(k, id)} {
		e := invalid(kit, "query_run_events", map[string]any{}, "run_id")
		if !strings.Contains(e.Message, "issue_id") {
			t.Errorf("message %q does not mention issue_id", e.Message)
		}
		invalid(kit, "query_run_events", map[string]any{"event_type": "assistant"}, "run_id")
	}
	for _, bad := range []string{"tool_use", "Assistant", "error", ""} {
		invalid(k, "query_run_events", map[string]any{"run_id": "R-1", "event_type": bad}, "event_type")
	}
	for _, good := range []string{"system", "assistant", "user", "result", "rate_limit_event"} {
		k.OK("query_run_events", map[string]any{"run_id": "R-1", "event_type": good})
	}
	fail(k, "query_run_events", map[string]any{"issue_id": "COL-99"}, baton.ErrTaskNotFound)
}

func TestRecordTestHealth(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	id := issueIn(k, "in_progress", nil)
	w := bound(k, id).As("agent-bob")
	out := w.OK("record_test_health", map[string]any{"test_count": 120, "test_files_changed": 3, "tests_added": 5,
		"tests_removed": 2, "execution_time_ms": 4200})
	equal(t, "fields", keys(out), []string{"created_at", "issue_id", "recorded", "test_count"})
	if out["recorded"] != true || out["issue_id"] != id || out["test_count"] != 120.0 {
		t.Errorf("output = %v", out)
	}
	if at := parseStamp(t, out["created_at"]); !at.Equal(clock.Peek()) {
		t.Errorf("created_at = %v, want %v", at, clock.Peek())
	}
	w.OK("record_test_health", map[string]any{"test_count": 0})

	rows, err := k.DB().Query(k.Rebind(`SELECT item_id, agent, test_count, test_files_changed, tests_added, tests_removed,
		execution_time_ms FROM test_health ORDER BY rid`))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var item, agent string
		var n int
		var files, added, removed, ms sql.NullInt64
		if err := rows.Scan(&item, &agent, &n, &files, &added, &removed, &ms); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %d %v %v %v %v", item, agent, n, files, added, removed, ms))
	}
	// Optional metrics left out are unknown (NULL), not zero.
	equal(t, "rows", got, []string{
		id + " agent-bob 120 {3 true} {5 true} {2 true} {4200 true}",
		id + " agent-bob 0 {0 false} {0 false} {0 false} {0 false}",
	})

	for _, tc := range []struct {
		field string
		args  map[string]any
	}{
		{"test_count", map[string]any{}},
		{"test_count", map[string]any{"test_count": -1}},
		{"test_count", map[string]any{"test_count": -0.5}},
		{"tests_added", map[string]any{"test_count": 1, "tests_added": -1}},
		{"execution_time_ms", map[string]any{"test_count": 1, "execution_time_ms": 86_400_001}},
		{"agent", map[string]any{"test_count": 1, "agent": "mallory"}},
	} {
		invalid(w, "record_test_health", tc.args, tc.field)
	}
	fail(w, "record_test_health", map[string]any{"issue_id": "COL-99", "test_count": 1}, baton.ErrTaskNotFound)
	if n := k.Count(`SELECT COUNT(*) FROM test_health`); n != 2 {
		t.Errorf("test_health rows = %d after refused calls, want 2", n)
	}
}

// coverage reads the coverage table: "file concept status ticket notes agent".
func coverage(k *testkit.Kit) []string {
	k.T.Helper()
	rows, err := k.DB().Query(k.Rebind(`SELECT project, file_path, concept, status, ticket_id, notes, agent FROM coverage
		ORDER BY project, file_path, concept`))
	if err != nil {
		k.T.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, f, c, s, tk, n, a string
		if err := rows.Scan(&p, &f, &c, &s, &tk, &n, &a); err != nil {
			k.T.Fatal(err)
		}
		out = append(out, strings.Join([]string{p, f, c, s, tk, n, a}, "|"))
	}
	return out
}

func TestRecordCoverage(t *testing.T) {
	k := testkit.New(t)
	ticket := issue(k, nil)
	s := k.As("scanner-1")
	out := s.OK("record_coverage", map[string]any{"file_path": "server/orchestrator/dispatcher.ts",
		"concept": "error_handling", "status": "covered"})
	equal(t, "fields", keys(out), []string{"concept", "file_path", "project", "recorded", "status"})
	if out["recorded"] != true || out["project"] != "colibri" || out["status"] != "covered" {
		t.Errorf("output = %v", out)
	}
	s.OK("record_coverage", map[string]any{"file_path": "server/orchestrator/dispatcher.ts", "concept": "type_safety",
		"status": "covered", "notes": "strict mode"})
	// The latest record for a file and concept wins.
	s2 := k.As("scanner-2")
	s2.OK("record_coverage", map[string]any{"file_path": "server/orchestrator/dispatcher.ts", "concept": "error_handling",
		"status": "has_issues", "ticket_id": ticket, "notes": "Unhandled promise rejection on DB timeout"})
	equal(t, "coverage", coverage(k), []string{
		"colibri|server/orchestrator/dispatcher.ts|error_handling|has_issues|" + ticket + "|Unhandled promise rejection on DB timeout|scanner-2",
		"colibri|server/orchestrator/dispatcher.ts|type_safety|covered||strict mode|scanner-1",
	})
	s.OK("record_coverage", map[string]any{"file_path": "server/orchestrator/dispatcher.ts", "concept": "error_handling",
		"status": "covered"})
	if got := coverage(k)[0]; got != "colibri|server/orchestrator/dispatcher.ts|error_handling|covered|||scanner-1" {
		t.Errorf("after a newer record = %q: ticket and notes must be replaced too", got)
	}

	before := coverage(k)
	e := fail(s, "record_coverage", map[string]any{"file_path": "a.ts", "concept": "c", "status": "has_issues",
		"ticket_id": "COL-99"}, baton.ErrTaskNotFound)
	if e.Details["task_id"] != "COL-99" {
		t.Errorf("details = %v", e.Details)
	}
	for _, tc := range []struct {
		field string
		args  map[string]any
	}{
		{"status", map[string]any{"file_path": "a.ts", "concept": "c", "status": "ok"}},
		{"status", map[string]any{"file_path": "a.ts", "concept": "c"}},
		{"file_path", map[string]any{"concept": "c", "status": "covered"}},
		{"file_path", map[string]any{"file_path": " ", "concept": "c", "status": "covered"}},
		{"concept", map[string]any{"file_path": "a.ts", "status": "covered"}},
		{"ticket_id", map[string]any{"file_path": "a.ts", "concept": "c", "status": "covered", "ticket_id": ""}},
	} {
		invalid(s, "record_coverage", tc.args, tc.field)
	}
	equal(t, "coverage after refusals", coverage(k), before)
}
