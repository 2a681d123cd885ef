package beads_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// TestPoint19MissingBeadIsABead: a bead tool told of a bead that does not
// exist says so in Adjutant's words (a bead, not a Colibri task), with a
// hint to list beads, and the envelope carries error_type not_found.
func TestPoint19MissingBeadIsABead(t *testing.T) {
	k := newKit(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"show_bead", map[string]any{"id": "adj-404"}},
		{"update_bead", map[string]any{"id": "adj-404", "title": "x"}},
		{"update_bead", map[string]any{"id": "adj-404", "status": "closed"}},
		{"close_bead", map[string]any{"id": "adj-404", "reason": "done"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			k := k.on(t)
			e := k.fail(tc.tool, tc.args, baton.ErrNotFound)
			if e.Message != "Bead adj-404 not found" || e.Details["id"] != "adj-404" || e.Type != "bead_not_found" {
				t.Errorf("error = %+v, want the bead named as a bead", e)
			}
			if strings.Contains(strings.ToLower(e.Message+e.Hint), "task") || !strings.Contains(e.Hint, "list_beads") {
				t.Errorf("message %q / hint %q: a bead is not a task, and the hint should name list_beads", e.Message, e.Hint)
			}
			text := k.call(tc.tool, tc.args).Text
			var env struct {
				Error map[string]any `json:"error"`
			}
			if err := json.Unmarshal([]byte(text), &env); err != nil || env.Error["error_type"] != "not_found" {
				t.Errorf("envelope = %s, want error_type not_found", text)
			}
		})
	}
}

// TestPoint19ListBeadsDefaults: list_beads runs as Adjutant's does, which
// is bd list without flags: every bead not closed, most urgent first and
// newest first within a priority, at most 50, with a line saying more
// match.
func TestPoint19ListBeadsDefaults(t *testing.T) {
	k := newKit(t)
	var want []string
	for i := range 55 {
		k.StoreItem(&baton.Item{ID: fmt.Sprintf("adj-%03d", i), Title: "b", Priority: baton.Priority(i % 2),
			Status: []baton.Status{baton.StatusTodo, baton.StatusInProgress, baton.StatusBlocked, baton.StatusReview}[i%4]})
	}
	closed := k.StoreItem(&baton.Item{ID: "adj-closed", Title: "c", Priority: 0, Status: baton.StatusDone})
	// Expected order: priority 0 (even i) newest first, then priority 1.
	for _, p := range []int{0, 1} {
		for i := 54; i >= 0; i-- {
			if i%2 == p {
				want = append(want, fmt.Sprintf("adj-%03d", i))
			}
		}
	}
	out, text := k.ok("list_beads", nil)
	got := beadIDs(t, out)
	if strings.Join(got, ",") != strings.Join(want[:50], ",") {
		t.Errorf("ids =\n%v\nwant\n%v", got, want[:50])
	}
	for _, id := range got {
		if id == closed {
			t.Errorf("a closed bead is listed without status")
		}
	}
	if out["count"] != float64(50) || out["total"] != float64(55) {
		t.Errorf("count/total = %v/%v, want 50/55", out["count"], out["total"])
	}
	lines := strings.Split(text, "\n")
	if len(lines) != 51 || lines[50] != "Showing 50 of 55 beads (narrow with status, assignee or type to see the rest)" {
		t.Errorf("text ends %q (%d lines)", lines[len(lines)-1], len(lines))
	}
	// A filter that fits needs no such line.
	if _, text := k.ok("list_beads", map[string]any{"status": "closed"}); text != "[closed] adj-closed (task, P0): c" {
		t.Errorf("closed = %q", text)
	}
}
