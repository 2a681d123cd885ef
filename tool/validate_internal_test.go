package tool

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// listOut is shaped like a list tool's output: a page of items, each with
// an enum, a time, a nested list and an optional field.
type listItem struct {
	ID      string   `json:"id" jsonschema:"The id."`
	Title   string   `json:"title" jsonschema:"The title."`
	Status  string   `json:"status" jsonschema:"The status."`
	Updated string   `json:"updated" jsonschema:"When."`
	Labels  []string `json:"labels" jsonschema:"Labels."`
	Parent  string   `json:"parent,omitempty" jsonschema:"The parent."`
	Rank    int      `json:"rank" jsonschema:"Rank."`
}

type listOut struct {
	Items []listItem `json:"items" jsonschema:"Items."`
	Count int        `json:"count" jsonschema:"Items returned."`
}

// TestQuickWalkAgrees: check's quick walk finds a violation exactly when
// the full walk does, over a valid page and pages each broken one way.
func TestQuickWalkAgrees(t *testing.T) {
	s, err := outputSchema(reflect.TypeFor[listOut](), Rules{"items.status": Enum("todo", "doing", "done"), "items.title": Length(1, 40)})
	if err != nil {
		t.Fatal(err)
	}
	breaks := map[string]func(m map[string]any){
		"valid":         func(map[string]any) {},
		"enum":          func(m map[string]any) { item(m, 3)["status"] = "gone" },
		"type":          func(m map[string]any) { item(m, 7)["rank"] = "first" },
		"null list":     func(m map[string]any) { item(m, 9)["labels"] = nil },
		"missing":       func(m map[string]any) { delete(item(m, 0), "id") },
		"unknown field": func(m map[string]any) { item(m, 49)["extra"] = true },
		"too long":      func(m map[string]any) { item(m, 20)["title"] = strings.Repeat("x", 41) },
		"last key":      func(m map[string]any) { m["count"] = "fifty" },
	}
	for what, mutate := range breaks {
		e, err := encode(page())
		if err != nil {
			t.Fatal(err)
		}
		mutate(e.val.(map[string]any))
		quick, full := walk(s, "", e.val, true), walk(s, "", e.val, false)
		if (len(quick) == 0) != (len(full) == 0) || (what == "valid") != (len(full) == 0) {
			t.Errorf("%s: quick walk %v, full walk %v", what, quick, full)
		}
		if got := check(s, "", e.val); len(got) != len(full) {
			t.Errorf("%s: check reports %d violations, the full walk %d", what, len(got), len(full))
		}
	}
}

func item(page map[string]any, i int) map[string]any {
	return page["items"].([]any)[i].(map[string]any)
}

// page is a valid 50-item listOut.
func page() listOut {
	var o listOut
	for i := range 50 {
		o.Items = append(o.Items, listItem{ID: fmt.Sprintf("BAT-%d", i), Title: "Fix the thing that broke", Status: "doing",
			Updated: time.Now().UTC().Format(time.RFC3339), Labels: []string{"a", "b"}, Rank: i})
	}
	o.Count = 50
	return o
}

// BenchmarkCheckOutput is the output check of a valid 50-item page, the
// common case: go test -run '^$' -bench CheckOutput -benchmem ./tool/
func BenchmarkCheckOutput(b *testing.B) {
	s, err := outputSchema(reflect.TypeFor[listOut](), Rules{"items.status": Enum("todo", "doing", "done")})
	if err != nil {
		b.Fatal(err)
	}
	e, err := encode(page())
	if err != nil {
		b.Fatal(err)
	}
	if vs := check(s, "", e.val); len(vs) > 0 {
		b.Fatal(vs)
	}
	for b.Loop() {
		check(s, "", e.val)
	}
}
