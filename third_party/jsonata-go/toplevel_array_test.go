package jsonata

// Regression tests for the baton patch (see NOTE.md). Every expected
// value is what jsonata-js 2.2.2, the reference implementation, returns
// for the same expression and input.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

const (
	mailJSON = `[
  {"id":"m1","subject":"Invoice","email":"a@x.io","amount":250,"created":"2026-05-31T09:00:00Z","ts":"2026-05-31T09:00:00Z","tags":["x","y"]},
  {"id":"m2","subject":"Lunch","email":"b@x.io","amount":40,"created":"2026-06-01T10:00:00Z","ts":"2026-05-31T17:30:00Z","tags":["z"]},
  {"id":"m3","subject":"Refund","email":"a@x.io","amount":120.5,"created":"2026-05-30T08:00:00Z","ts":"2026-06-01T08:00:00Z","tags":[]}]`
	oneJSON    = `[{"id":"m1","created":"2026-05-31T09:00:00Z"}]`
	nestedJSON = `{"a":[[{"t":[1,2]},{"t":[3]}],[{"t":[]}]],"m":[[3,1,2],[9,8]],"x":[[{"a":"k"}]]}`
	mixedJSON  = `[{"id":"m1","amount":5},7,"x",null,{"amount":9},{"id":"m2","amount":1}]`
)

var (
	m1 = `{"id":"m1","subject":"Invoice","email":"a@x.io","amount":250,"created":"2026-05-31T09:00:00Z","ts":"2026-05-31T09:00:00Z","tags":["x","y"]}`
	m2 = `{"id":"m2","subject":"Lunch","email":"b@x.io","amount":40,"created":"2026-06-01T10:00:00Z","ts":"2026-05-31T17:30:00Z","tags":["z"]}`
	m3 = `{"id":"m3","subject":"Refund","email":"a@x.io","amount":120.5,"created":"2026-05-30T08:00:00Z","ts":"2026-06-01T08:00:00Z","tags":[]}`
)

func decodeJSON(t *testing.T, s string) interface{} {
	t.Helper()
	var v interface{}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}

// TestTopLevelArray: an array input is one context value, as in
// jsonata-js 1.7.0 and later, so a path's first step (a sort, a
// function call, a block, a wildcard, a filtered name) sees the whole
// array, not each item. Before the patch the first eight lines after
// the spec examples returned the items in input order (each item was
// sorted or reversed on its own) and tags[0] gave ["x","z"].
func TestTopLevelArray(t *testing.T) {
	tests := []struct {
		data, expr, want string
	}{
		// The examples of baton's membot_query.
		{mailJSON, `$[amount > 100]`, "[" + m1 + "," + m3 + "]"},
		{mailJSON, `$.{ 'id': id, 'subject': subject }`, `[{"id":"m1","subject":"Invoice"},{"id":"m2","subject":"Lunch"},{"id":"m3","subject":"Refund"}]`},
		{mailJSON, `$distinct(email)`, `["a@x.io","b@x.io"]`},
		{mailJSON, `$^(>created)[[0..9]]`, "[" + m2 + "," + m1 + "," + m3 + "]"},
		{mailJSON, `$sum(amount)`, `410.5`},
		{mailJSON, `${ $substring(ts,0,10): $count($) }`, `{"2026-05-31":2,"2026-06-01":1}`},
		{mailJSON, `$count($)`, `3`},
		{mailJSON, `${ email: $sum(amount) }`, `{"a@x.io":370.5,"b@x.io":40}`},
		// Sort, then a path.
		{mailJSON, `$^(>created).id`, `["m2","m1","m3"]`},
		{mailJSON, `$^(>created)[0].id`, `"m2"`},
		{mailJSON, `$^(>created)[[0..1]].id`, `["m2","m1"]`},
		{mailJSON, `$^(<amount, >created).subject`, `["Lunch","Refund","Invoice"]`},
		{mailJSON, `$$^(>amount)[0].id`, `"m1"`},
		{mailJSON, `($^(>created)).id`, `["m2","m1","m3"]`},
		// A function, then a path.
		{mailJSON, `$reverse($).id`, `["m3","m2","m1"]`},
		{mailJSON, `$reverse($)[0].id`, `"m3"`},
		{mailJSON, `$sort($, function($a, $b) { $a.amount > $b.amount }).id`, `["m2","m3","m1"]`},
		{mailJSON, `$single($, function($v) { $v.id = 'm2' }).subject`, `"Lunch"`},
		// Other first steps over the whole array.
		{mailJSON, `tags[0]`, `"x"`},
		{mailJSON, `*.id`, `["m1","m2","m3"]`},
		// What worked before still does.
		{mailJSON, `$.id`, `["m1","m2","m3"]`},
		{mailJSON, `id`, `["m1","m2","m3"]`},
		{mailJSON, `$[0].id`, `"m1"`},
		{mailJSON, `${ 'all': $count($) }`, `{"all":3}`},
		{oneJSON, `id`, `"m1"`},
		{oneJSON, `$^(>created).id`, `"m1"`},
	}
	for _, test := range tests {
		t.Run(test.expr, func(t *testing.T) {
			checkEval(t, test.data, test.expr, test.want)
		})
	}
}

// TestNameOverNestedArrays: looking a name up in an array flattens
// array values, as jsonata-js's lookup does (it gave [[1,2],[3]]).
func TestNameOverNestedArrays(t *testing.T) {
	checkEval(t, nestedJSON, `a.t`, `[1,2,3]`)
	checkEval(t, nestedJSON, `a.t[0]`, `1`)
}

// TestSortedVariableIsAbsolute: a path starting with $x^(...) starts
// with a variable, so its first step is evaluated once even where the
// context is an array (it was evaluated once per item, which gave
// [10,20,30,10,20,30,10,20,30,80,90,80,90]).
func TestSortedVariableIsAbsolute(t *testing.T) {
	checkEval(t, nestedJSON, `m.($x := $; $x^($).($ * 10))`, `[10,20,30,80,90]`)
}

// TestGroupSkipsUndefinedKeys: an item whose key is undefined joins no
// group (it was an error), and grouping items that are arrays does not
// panic.
func TestGroupSkipsUndefinedKeys(t *testing.T) {
	checkEval(t, mixedJSON, `${ id: amount }`, `{"m1":5,"m2":1}`)
	checkEval(t, nestedJSON, `x{ a: 1 }`, `{"k":1}`)
}

// TestApplyKeepsExpression: x ~> $f() must not change the compiled
// expression, which is evaluated once per item of a path and may be
// evaluated again (it failed from the second item on: "takes 1
// argument(s), got 2").
func TestApplyKeepsExpression(t *testing.T) {
	checkEval(t, mailJSON, `$.(id ~> $uppercase())`, `["M1","M2","M3"]`)
	e := MustCompile(`id ~> $uppercase()`)
	for i := 0; i < 3; i++ {
		got, err := e.Eval(map[string]interface{}{"id": "m1"})
		if err != nil || got != "M1" {
			t.Fatalf("evaluation %d: %v, %v", i+1, got, err)
		}
	}
}

// TestArrayResultType: the wrapper that marks the input array never
// reaches the caller.
func TestArrayResultType(t *testing.T) {
	for _, expr := range []string{`$`, `$$`, `$string()`, `[$]`, `$reverse($)`} {
		got, err := MustCompile(expr).Eval(decodeJSON(t, `[1,2]`))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		switch got.(type) {
		case []interface{}, string:
		default:
			t.Errorf("%s returned a %T", expr, got)
		}
	}
	if got, _ := MustCompile(`$string()`).Eval(decodeJSON(t, `[1,2]`)); got != "[1,2]" {
		t.Errorf(`$string() = %v, want "[1,2]"`, got)
	}
}

// TestConcurrentContext: the built-in functions are shared by every
// evaluation; the context of a call ($uppercase() takes the context
// item) belongs to that call only. Before the patch, concurrent
// evaluations returned each other's data.
func TestConcurrentContext(t *testing.T) {
	e := MustCompile(`$.$uppercase()`)
	var wg sync.WaitGroup
	for _, prefix := range []string{"alice-", "bob-", "carol-", "dave-"} {
		wg.Add(1)
		go func(prefix string) {
			defer wg.Done()
			in := make([]interface{}, 20000)
			for i := range in {
				in[i] = fmt.Sprintf("%s%d", prefix, i)
			}
			got, err := e.Eval(in)
			if err != nil {
				t.Error(err)
				return
			}
			for _, v := range got.([]interface{}) {
				if !strings.HasPrefix(v.(string), strings.ToUpper(prefix)) {
					t.Errorf("evaluation over %q returned %v", prefix, v)
					return
				}
			}
		}(prefix)
	}
	wg.Wait()
}

func checkEval(t *testing.T, data, expr, want string) {
	t.Helper()
	e, err := Compile(expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	got, err := e.Eval(decodeJSON(t, data))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	if g, w := decodeJSON(t, string(b)), decodeJSON(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s\n got: %s\nwant: %s", expr, b, want)
	}
}
