package membot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tools/membot"
)

// Helpers of the membot_query tests; every name starts with q.

// qMail is a top-level array of three records; qMailObject the same
// records under "items".
const qMail = `[
  {"id":"m1","subject":"Invoice","email":"a@x.io","amount":250,"created":"2026-05-31T09:00:00Z","ts":"2026-05-31T09:00:00Z"},
  {"id":"m2","subject":"Lunch","email":"b@x.io","amount":40,"created":"2026-06-01T10:00:00Z","ts":"2026-05-31T17:30:00Z"},
  {"id":"m3","subject":"Refund","email":"a@x.io","amount":120.5,"created":"2026-05-30T08:00:00Z","ts":"2026-06-01T08:00:00Z"}
]`

var qMailObject = `{"items": ` + qMail + `}`

const (
	qM1 = `{"id":"m1","subject":"Invoice","email":"a@x.io","amount":250,"created":"2026-05-31T09:00:00Z","ts":"2026-05-31T09:00:00Z"}`
	qM2 = `{"id":"m2","subject":"Lunch","email":"b@x.io","amount":40,"created":"2026-06-01T10:00:00Z","ts":"2026-05-31T17:30:00Z"}`
	qM3 = `{"id":"m3","subject":"Refund","email":"a@x.io","amount":120.5,"created":"2026-05-30T08:00:00Z","ts":"2026-06-01T08:00:00Z"}`
)

// qSpace is where a testkit session reads and writes: colibri's space.
var qSpace = baton.DocSpace{Scope: baton.ScopeProject, Project: testkit.Project}

// qPut stores content at path in s directly, as a new version.
func qPut(k *testkit.Kit, s baton.DocSpace, path, content string) {
	k.T.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return knowledge.Write(ctx, tx, nil, &baton.Document{DocKey: baton.DocKey{DocSpace: s, Path: path},
			Content: content, ContentType: "application/json", SourceType: baton.SourceInline, UpdatedBy: "agent-alice"}, nil)
	}); err != nil {
		k.T.Fatalf("store %s: %v", path, err)
	}
}

// qDoc is the current version at path in colibri's space, nil if none.
func qDoc(k *testkit.Kit, path string) *baton.Document { return wDocIn(k, qSpace, path) }

// qAllDocs lists every current document of colibri's and the global
// space, path and version.
func qAllDocs(k *testkit.Kit) []string {
	k.T.Helper()
	ctx := context.Background()
	var out []string
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		ds, err := tx.ListDocuments(ctx, baton.DocumentFilter{Spaces: []baton.DocSpace{qSpace, {Scope: baton.ScopeGlobal}}})
		for _, d := range ds {
			out = append(out, d.Path+"@"+d.Version)
		}
		return err
	}); err != nil {
		k.T.Fatal(err)
	}
	return out
}

// qOK runs membot_query, which must succeed with is_error false.
func qOK(k *testkit.Kit, args map[string]any) map[string]any {
	k.T.Helper()
	out := k.OK("membot_query", args)
	if out["is_error"] != false {
		k.T.Fatalf("is_error = %v, want false: %v", out["is_error"], out)
	}
	return out
}

// qFail runs membot_query, which must fail with code and error_type.
func qFail(k *testkit.Kit, args map[string]any, code, errorType string) *baton.Error {
	k.T.Helper()
	e := k.Fail("membot_query", args, code)
	if e.Type != errorType {
		k.T.Fatalf("membot_query(%v): error_type %q, want %q: %s", args, e.Type, errorType, e.Message)
	}
	if e.Hint == "" {
		k.T.Fatalf("membot_query(%v): %s has no next_action_hint", args, errorType)
	}
	return e
}

// qJSON decodes a JSON text.
func qJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}

// qSame fails unless got (decoded JSON) equals the JSON text want.
func qSame(t *testing.T, what string, got any, want string) {
	t.Helper()
	if w := qJSON(t, want); !reflect.DeepEqual(got, w) {
		b, _ := json.Marshal(got)
		t.Errorf("%s:\n got %s\nwant %s", what, b, want)
	}
}

// TestQueryExamples evaluates the catalogue's six examples, $count($)
// and a group+sum over a top-level array, and over the same records
// under a field of an object, and compares both with what jsonata-js
// 2.2.2 (the reference implementation) returns. A top-level array was
// where jsonata-go v1.8.8 went wrong (third_party/jsonata-go/NOTE.md):
// the sort-then-path and function-then-path lines gave the records in
// input order.
func TestQueryExamples(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	qPut(k, qSpace, "mcp/inbox-object.json", qMailObject)
	tests := []struct {
		array, object, want, typ string
		count                    int // -1: none
	}{
		{`$[amount > 100]`, `items[amount > 100]`, "[" + qM1 + "," + qM3 + "]", "array", 2},
		{`$.{ 'id': id, 'subject': subject }`, `items.{ 'id': id, 'subject': subject }`,
			`[{"id":"m1","subject":"Invoice"},{"id":"m2","subject":"Lunch"},{"id":"m3","subject":"Refund"}]`, "array", 3},
		{`$distinct(email)`, `$distinct(items.email)`, `["a@x.io","b@x.io"]`, "array", 2},
		{`$^(>created)[[0..9]]`, `items^(>created)[[0..9]]`, "[" + qM2 + "," + qM1 + "," + qM3 + "]", "array", 3},
		{`$sum(amount)`, `$sum(items.amount)`, `410.5`, "number", -1},
		{`${ $substring(ts,0,10): $count($) }`, `items{ $substring(ts,0,10): $count($) }`,
			`{"2026-05-31":2,"2026-06-01":1}`, "object", 2},
		{`$count($)`, `$count(items)`, `3`, "number", -1},
		{`${ email: $sum(amount) }`, `items{ email: $sum(amount) }`, `{"a@x.io":370.5,"b@x.io":40}`, "object", 2},
		// Sort, or a function, then a path: what the library got wrong.
		{`$^(>created).id`, `items^(>created).id`, `["m2","m1","m3"]`, "array", 3},
		{`$^(>created)[[0..1]].{ 'id': id, 'subject': subject }`, `items^(>created)[[0..1]].{ 'id': id, 'subject': subject }`,
			`[{"id":"m2","subject":"Lunch"},{"id":"m1","subject":"Invoice"}]`, "array", 2},
		{`$reverse($).id`, `$reverse(items).id`, `["m3","m2","m1"]`, "array", 3},
		{`$sort($, function($a, $b) { $a.amount > $b.amount }).id`, `$sort(items, function($a, $b) { $a.amount > $b.amount }).id`,
			`["m2","m3","m1"]`, "array", 3},
	}
	for _, tc := range tests {
		for _, q := range []struct{ path, expr string }{{"mcp/inbox.json", tc.array}, {"mcp/inbox-object.json", tc.object}} {
			t.Run(q.expr, func(t *testing.T) {
				out := qOK(k.On(t), map[string]any{"logical_path": q.path, "expression": q.expr})
				qSame(t, q.expr, out["result"], tc.want)
				if out["result_type"] != tc.typ {
					t.Errorf("result_type = %v, want %s", out["result_type"], tc.typ)
				}
				if n, has := out["result_count"]; tc.count < 0 && has || tc.count >= 0 && n != float64(tc.count) {
					t.Errorf("result_count = %v, want %d", n, tc.count)
				}
			})
		}
	}
}

// The tested behaviour of Botholomew's query test (§7).

func TestQueryGroupByDay(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	out := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "${ $substring(ts,0,10): $count($) }"})
	qSame(t, "result", out["result"], `{"2026-05-31":2,"2026-06-01":1}`)
	if out["result_type"] != "object" || out["result_count"] != 2.0 {
		t.Errorf("result_type %v, result_count %v; want object, 2", out["result_type"], out["result_count"])
	}
	for _, f := range []string{"message", "logical_path", "version_id", "preview", "bytes_written"} {
		if _, has := out[f]; has {
			t.Errorf("an inline result has %s: %v", f, out)
		}
	}
}

func TestQueryFilterCount(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	out := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "$[amount > 100]"})
	if out["result_type"] != "array" || out["result_count"] != 2.0 {
		t.Fatalf("result_type %v, result_count %v; want array, 2", out["result_type"], out["result_count"])
	}
	qSame(t, "result", out["result"], "["+qM1+","+qM3+"]")
}

// TestQueryOutputPath: the result stored as a new version, pretty-printed,
// reads back as the JSON array it was; a second query chains on it.
func TestQueryOutputPath(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	out := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "$distinct(email)",
		"output_logical_path": "/mcp/emails.json"})
	want := "[\n  \"a@x.io\",\n  \"b@x.io\"\n]"
	if out["logical_path"] != "mcp/emails.json" || out["bytes_written"] != float64(len(want)) || out["preview"] != want {
		t.Fatalf("output %v; want logical_path mcp/emails.json, bytes_written %d, preview %q", out, len(want), want)
	}
	if _, has := out["result"]; has {
		t.Errorf("a stored result is also returned: %v", out)
	}
	d := qDoc(k, "mcp/emails.json")
	if d == nil || d.Content != want || d.Version != out["version_id"] {
		t.Fatalf("stored %+v, want content %q at version %v", d, want, out["version_id"])
	}
	if d.ContentType != "application/json" || d.ChangeNote != "query of mcp/inbox.json" || d.SourceType != baton.SourceInline {
		t.Errorf("stored as %s, note %q, source %s", d.ContentType, d.ChangeNote, d.SourceType)
	}
	qSame(t, "stored", qJSON(t, d.Content), `["a@x.io","b@x.io"]`)
	// pipe -> query -> query: the stored result is a JSON document too.
	back := qOK(k, map[string]any{"logical_path": "mcp/emails.json", "expression": "$count($)"})
	if back["result"] != 2.0 {
		t.Errorf("$count over the stored result = %v, want 2", back["result"])
	}
	// A further query writes a further version, with the note given.
	again := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "$sum(amount)",
		"output_logical_path": "mcp/emails.json", "change_note": "total"})
	if d := qDoc(k, "mcp/emails.json"); d.Content != "410.5" || d.ChangeNote != "total" || d.Version != again["version_id"] {
		t.Errorf("second version %+v", d)
	}
}

// TestQueryPreview: the preview is the stored text's first 200
// characters.
func TestQueryPreview(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "big.json", `{"s": "`+strings.Repeat("é", 300)+`"}`)
	out := qOK(k, map[string]any{"logical_path": "big.json", "expression": "s", "output_logical_path": "s.json"})
	stored := `"` + strings.Repeat("é", 300) + `"`
	if out["preview"] != `"`+strings.Repeat("é", 199) || out["bytes_written"] != float64(len(stored)) {
		t.Errorf("preview %q (%v bytes written)", out["preview"], out["bytes_written"])
	}
}

// TestQueryUndefined: an expression that selects nothing is null, inline
// and stored.
func TestQueryUndefined(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	out := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "$[amount > 1000]"})
	if r, has := out["result"]; !has || r != nil || out["result_type"] != "null" {
		t.Errorf("result %v (present %v), result_type %v; want null", r, has, out["result_type"])
	}
	if _, has := out["result_count"]; has {
		t.Errorf("a null result has a result_count: %v", out)
	}
	qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "nothing.here", "output_logical_path": "none.json"})
	if d := qDoc(k, "none.json"); d == nil || d.Content != "null" {
		t.Errorf("stored %+v, want null", d)
	}
}

// TestQueryScalars: result_type of each JSON type.
func TestQueryScalars(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	for expr, want := range map[string]string{`$[0].subject`: "string", `$count($) > 2`: "boolean",
		`$average(amount)`: "number", `{}`: "object", `[]`: "array", `null`: "null", `$[0].subject & " <ok> & done"`: "string"} {
		out := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": expr})
		if out["result_type"] != want {
			t.Errorf("%s: result_type %v, want %s (%v)", expr, out["result_type"], want, out["result"])
		}
	}
	out := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": `$[0].subject & " <ok> & done"`})
	if out["result"] != "Invoice <ok> & done" {
		t.Errorf("result %q", out["result"])
	}
	if out := qOK(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": `[]`}); out["result_count"] != 0.0 {
		t.Errorf("an empty array has result_count %v, want 0", out["result_count"])
	}
}

func TestQueryInvalidJSON(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "notes/plan.md", "# Plan\n\nnot JSON at all")
	e := qFail(k, map[string]any{"logical_path": "notes/plan.md", "expression": "$count($)"}, baton.ErrInvalidInput, "invalid_json")
	if !strings.Contains(e.Hint, "membot_read") {
		t.Errorf("hint %q does not point to membot_read", e.Hint)
	}
	if e.Details["offset"] != int64(1) {
		t.Errorf("details %v: want the offset of the first bad byte, 1", e.Details)
	}
	qPut(k, qSpace, "two.json", `{"a":1} {"b":2}`)
	qFail(k, map[string]any{"logical_path": "two.json", "expression": "a"}, baton.ErrInvalidInput, "invalid_json")
}

func TestQueryInvalidExpression(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	e := qFail(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "${"}, baton.ErrInvalidInput, "invalid_expression")
	if !strings.Contains(e.Message, "position") || e.Details["position"] == nil {
		t.Errorf("message %q, details %v: no position", e.Message, e.Details)
	}
	primer := qOK(k, map[string]any{"logical_path": "x", "expression": "?"})["message"]
	if e.Hint != primer {
		t.Errorf("hint is not the primer: %q", e.Hint)
	}
	e = qFail(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "$[amount > ]"}, baton.ErrInvalidInput, "invalid_expression")
	if e.Details["position"] != 11 {
		t.Errorf("position %v, want 11 (%s)", e.Details["position"], e.Message)
	}
}

// TestQueryPrimer: "?" or a blank expression is the primer, without
// reading the source (which here does not exist).
func TestQueryPrimer(t *testing.T) {
	k := testkit.New(t)
	for _, expr := range []string{"?", "", "  ", " ? "} {
		out := qOK(k, map[string]any{"logical_path": "no/such.json", "expression": expr})
		msg, _ := out["message"].(string)
		for _, must := range []string{"$", "name.sub", "[amount > 100]", ".{", "${", "^(>", "^(<a, >b)", "[[0..9]]", "&", "~>",
			"and", "or", "$count", "$sum", "$average", "$max", "$min", "$distinct", "$substring", "$split", "$join", "$keys",
			"$sort", "$reverse", "$number", "$string", "$uppercase", "$lowercase", "$contains", "$match",
			"$[amount > 100]", "$.{ 'id': id, 'subject': subject }", "$distinct(email)", "$^(>created)[[0..9]]",
			"$sum(amount)", "${ $substring(ts,0,10): $count($) }", "$count($)", "${ email: $sum(amount) }",
			"When the root is an object, start with the field"} {
			if !strings.Contains(msg, must) {
				t.Errorf("primer for %q lacks %q", expr, must)
			}
		}
		if _, has := out["result"]; has {
			t.Errorf("primer with a result: %v", out)
		}
	}
}

// TestQueryPrimerExamplesRun: every example the primer teaches runs on
// the data it is meant for.
func TestQueryPrimerExamplesRun(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "a.json", qMail)
	qPut(k, qSpace, "o.json", qMailObject)
	for _, expr := range []string{"$[amount > 100]", "$[0]", "$[-1]", "$[[0..9]]", "$^(>created)", "$^(<email, >amount)",
		"$.{ 'id': id, 'subject': subject }", "$.email", "id & ': ' & subject", "$[0].id ~> $uppercase()",
		"$count($[amount > 50 and email = 'a@x.io' or amount < 0])", "$distinct(email)", "$^(>created)[[0..9]]", "$sum(amount)",
		"${ $substring(ts,0,10): $count($) }", "$count($)", "${ email: $sum(amount) }", "$average(amount)", "$max(amount)",
		"$min(amount)", "$split($[0].ts, 'T')", "$join(id, ',')", "$keys($[0])", "$sort(id)", "$reverse(id)",
		"$number('42')", "$string(amount)", "$uppercase($[0].id)", "$lowercase('A')", "$contains($[0].email, /x\\.io/)",
		"$match($[0].email, /@(.*)/)", "`amount`", "$[0].amount > 100 ? 'big' : 'small'", "'a' in id"} {
		if out := k.Call("membot_query", map[string]any{"logical_path": "a.json", "expression": expr}); out.Err != nil {
			t.Errorf("%s: %s", expr, out.Text)
		}
	}
	for _, expr := range []string{"items[amount > 100]", "$sum(items.amount)", "items^(>created)[[0..9]]", "items{ email: $sum(amount) }"} {
		if out := k.Call("membot_query", map[string]any{"logical_path": "o.json", "expression": expr}); out.Err != nil {
			t.Errorf("%s: %s", expr, out.Text)
		}
	}
}

// TestQueryMaxInput: max_input_bytes bounds the document's length in
// characters.
func TestQueryMaxInput(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	qFail(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "$count($)", "max_input_bytes": 5},
		baton.ErrInvalidInput, "source_too_large")
	qPut(k, qSpace, "accents.json", `"ééé"`) // 5 characters, 8 bytes
	if out := qOK(k, map[string]any{"logical_path": "accents.json", "expression": "$", "max_input_bytes": 5}); out["result"] != "ééé" {
		t.Errorf("result %v", out["result"])
	}
	qFail(k, map[string]any{"logical_path": "accents.json", "expression": "$", "max_input_bytes": 4},
		baton.ErrInvalidInput, "source_too_large")
	k.Fail("membot_query", map[string]any{"logical_path": "accents.json", "expression": "$", "max_input_bytes": 0}, baton.ErrInvalidInput)
}

func TestQuerySourceNotFound(t *testing.T) {
	k := testkit.New(t)
	qFail(k, map[string]any{"logical_path": "no/such.json", "expression": "$count($)"}, baton.ErrNotFound, "source_not_found")
	// A deleted document has no current version.
	qPut(k, qSpace, "gone.json", `[1]`)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		_, err := tx.DeleteDocument(ctx, baton.DocKey{DocSpace: qSpace, Path: "gone.json"}, "", "agent-alice")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	qFail(k, map[string]any{"logical_path": "gone.json", "expression": "$count($)"}, baton.ErrNotFound, "source_not_found")
	qFail(k, map[string]any{"logical_path": "a/../b.json", "expression": "$"}, baton.ErrInvalidInput, "source_not_found")
}

// TestQueryGlobalDocument: a session reads the global space's document
// where its project has none.
func TestQueryGlobalDocument(t *testing.T) {
	k := testkit.New(t)
	qPut(k, baton.DocSpace{Scope: baton.ScopeGlobal}, "shared.json", `{"n": 7}`)
	if out := qOK(k, map[string]any{"logical_path": "shared.json", "expression": "n * 2"}); out["result"] != 14.0 {
		t.Errorf("result %v", out["result"])
	}
}

func TestQueryEvaluationError(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	e := qFail(k, map[string]any{"logical_path": "mcp/inbox.json", "expression": "$sum(subject)"}, baton.ErrInvalidInput, "evaluation_error")
	if !strings.HasPrefix(e.Hint, "simplify") || !strings.Contains(e.Hint, "JSONata primer") {
		t.Errorf("hint %q: want simplify, then the primer", e.Hint)
	}
	// The library's message can quote whole values: it is cut.
	qPut(k, qSpace, "long.json", `{"s": "`+strings.Repeat("x", 5000)+`"}`)
	e = qFail(k, map[string]any{"logical_path": "long.json", "expression": "$sum(s)"}, baton.ErrInvalidInput, "evaluation_error")
	if len(e.Message) > 1200 || !strings.Contains(e.Message, "[truncated,") {
		t.Errorf("message of %d bytes: %.200s", len(e.Message), e.Message)
	}
}

// TestQueryRecursion: a function that calls itself without end is an
// evaluation error, not a crash of the server (a Go stack overflow
// cannot be recovered).
func TestQueryRecursion(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "n.json", `0`)
	e := qFail(k, map[string]any{"logical_path": "n.json", "expression": "($f := function($n) { $f($n + 1) }; $f($))"},
		baton.ErrInvalidInput, "evaluation_error")
	if !strings.Contains(e.Message, "levels deep") {
		t.Errorf("message %.300s", e.Message)
	}
}

// TestQueryTimeout: an expression that would run for minutes is stopped
// after QueryTimeout, and the call returns then.
func TestQueryTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the expression keeps a core busy for the whole 5 s limit; TestQueryCallerDeadline stops one sooner")
	}
	t.Parallel()
	k := testkit.New(t)
	qPut(k, qSpace, "n.json", `1`)
	start := time.Now()
	e := qFail(k, map[string]any{"logical_path": "n.json", "expression": "$count([1..1000].([1..1000].([1..1000])))",
		"output_logical_path": "slow.json"}, baton.ErrInvalidInput, "evaluation_error")
	took := time.Since(start)
	if took < membot.QueryTimeout || took > membot.QueryTimeout+3*time.Second {
		t.Errorf("stopped after %s, want about %s", took, membot.QueryTimeout)
	}
	if !strings.Contains(e.Message, "more than 5s") || !strings.HasPrefix(e.Hint, "simplify") {
		t.Errorf("message %q, hint %.80q", e.Message, e.Hint)
	}
	if d := qDoc(k, "slow.json"); d != nil {
		t.Errorf("a stopped query wrote %s", d.Path)
	}
}

// TestQueryCallerDeadline: the caller's own deadline stops an
// evaluation too.
func TestQueryCallerDeadline(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "n.json", `1`)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := k.Registry.Call(ctx, k.Env, k.Principal, "membot_query",
		testkit.Raw(t, map[string]any{"logical_path": "n.json", "expression": "$count([1..1000].([1..1000].([1..1000])))"}))
	if res.Err == nil || res.Err.Type != "evaluation_error" || strings.Contains(res.Err.Message, "5s") {
		t.Fatalf("want evaluation_error for the caller's deadline, got %s", res.Text)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("returned after %s, the caller gave up after 300ms", took)
	}
}

// TestQueryFailureWritesNothing: with output_logical_path, no failure
// stores anything.
func TestQueryFailureWritesNothing(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "mcp/inbox.json", qMail)
	qPut(k, qSpace, "notes.md", "# not json")
	before := qAllDocs(k)
	for _, tc := range []struct {
		args      map[string]any
		code, typ string
	}{
		{map[string]any{"logical_path": "missing.json", "expression": "$"}, baton.ErrNotFound, "source_not_found"},
		{map[string]any{"logical_path": "mcp/inbox.json", "expression": "$", "max_input_bytes": 10}, baton.ErrInvalidInput, "source_too_large"},
		{map[string]any{"logical_path": "notes.md", "expression": "$"}, baton.ErrInvalidInput, "invalid_json"},
		{map[string]any{"logical_path": "mcp/inbox.json", "expression": "${"}, baton.ErrInvalidInput, "invalid_expression"},
		{map[string]any{"logical_path": "mcp/inbox.json", "expression": "$sum(subject)"}, baton.ErrInvalidInput, "evaluation_error"},
		{map[string]any{"logical_path": "mcp/inbox.json", "expression": "$", "output_logical_path": "a/../b.json"}, baton.ErrInvalidInput, "write_failed"},
	} {
		if _, has := tc.args["output_logical_path"]; !has {
			tc.args["output_logical_path"] = "out/result.json"
		}
		qFail(k, tc.args, tc.code, tc.typ)
	}
	if after := qAllDocs(k); !reflect.DeepEqual(after, before) {
		t.Errorf("failed queries changed the store:\nbefore %v\nafter  %v", before, after)
	}
}

// TestQueryResultTooLarge: a result over what a document holds is
// write_failed, before anything is written.
func TestQueryResultTooLarge(t *testing.T) {
	k := testkit.New(t)
	qPut(k, qSpace, "n.json", `1`)
	qFail(k, map[string]any{"logical_path": "n.json", "output_logical_path": "big.json",
		"expression": "$map([1..120000], function($v) { '" + strings.Repeat("x", 90) + "' })"},
		baton.ErrInvalidInput, "write_failed")
	if d := qDoc(k, "big.json"); d != nil {
		t.Errorf("wrote %s", d.Path)
	}
}

// TestQueryConcurrent: queries at the same time each see their own
// document (the library once shared the context of its built-in
// functions between evaluations).
func TestQueryConcurrent(t *testing.T) {
	k := testkit.New(t)
	names := []string{"alice", "bob", "carol", "dave"}
	for _, n := range names {
		items := make([]string, 3000)
		for i := range items {
			items[i] = fmt.Sprintf("%q", fmt.Sprintf("%s-%d", n, i))
		}
		qPut(k, qSpace, n+".json", "["+strings.Join(items, ",")+"]")
	}
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := k.Call("membot_query", map[string]any{"logical_path": n + ".json", "expression": "$.$uppercase()"})
			if res.Err != nil {
				t.Error(res.Text)
				return
			}
			for _, v := range testkit.Decode(t, res.Output)["result"].([]any) {
				if !strings.HasPrefix(v.(string), strings.ToUpper(n)+"-") {
					t.Errorf("query of %s.json returned %v", n, v)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestQueryDefinition(t *testing.T) {
	k := testkit.New(t)
	tl, ok := k.Registry.Get("membot_query")
	if !ok {
		t.Fatal("membot_query is not registered")
	}
	s := tl.Spec()
	if s.Toolset != membot.Toolset || s.Annotations.ReadOnly || s.Annotations.Destructive || len(s.Profiles) == 0 ||
		!reflect.DeepEqual(s.Args, []string{"logical_path", "expression"}) {
		t.Errorf("spec %+v", s)
	}
	in := s.InputSchema().Properties
	if string(in["max_input_bytes"].Default) != "20000000" || in["max_input_bytes"].Minimum == nil || *in["max_input_bytes"].Minimum != 1 {
		t.Errorf("max_input_bytes %+v", in["max_input_bytes"])
	}
	if !reflect.DeepEqual(s.InputSchema().Required, []string{"logical_path", "expression"}) {
		t.Errorf("required %v", s.InputSchema().Required)
	}
	out := s.OutputSchema().Properties
	if r := out["result"]; r == nil || r.Type != "" || len(r.Types) != 0 || r.Description == "" {
		t.Errorf("result must take any JSON value: %+v", r)
	}
	if !reflect.DeepEqual(out["result_type"].Enum, []any{"array", "object", "string", "number", "boolean", "null"}) {
		t.Errorf("result_type enum %v", out["result_type"].Enum)
	}
}
