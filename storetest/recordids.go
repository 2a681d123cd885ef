package storetest

import (
	"testing"

	"github.com/baton-dev/baton"
)

// RecordIDs checks how append-only records are numbered (PREFIX-N, one
// more than the rows there are) when ids given by callers (runs) already
// hold some of the numbers: each taken number is skipped, a run of them
// included, and a number given out is never given again. The store finds
// the number in one statement; this is what that statement must keep
// meaning. Backends call it beside Run.
func RecordIDs(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("ids", "ID")
	it := e.create(&baton.Item{Project: "ids", Title: "numbered", CreatedBy: "alice", CreatedAt: at(0)})
	create := func(id string) string {
		t.Helper()
		r := &baton.Run{ID: id, ItemID: it.ID, Agent: "alice", Status: baton.RunRunning, Model: "m", StartedAt: at(1)}
		e.update(func(tx baton.Tx) error { c := *r; err := tx.CreateRun(e.ctx, &c, nil); *r = c; return err })
		return r.ID
	}
	steps := []struct{ given, want string }{
		{"", "R-1"},
		{"R-3", "R-3"}, // rows: 2; next would be R-3, which is taken
		{"", "R-4"},
		{"R-6", "R-6"},
		{"R-7", "R-7"},
		{"R-8", "R-8"}, // rows: 6; taken, a run of two
		{"", "R-9"},
		{"custom-run", "custom-run"},
		{"", "R-10"}, // rows: 9
		{"", "R-11"},
	}
	for i, s := range steps {
		if got := create(s.given); got != s.want {
			t.Fatalf("step %d: run %q stored as %q, want %q", i, s.given, got, s.want)
		}
	}
	// Findings and comments number the same way, each table on its own.
	e.update(func(tx baton.Tx) error {
		for _, want := range []string{"C-1", "C-2"} {
			c := &baton.Comment{ItemID: it.ID, Body: "b", CreatedBy: "alice", CreatedAt: at(2)}
			if err := tx.AddComment(e.ctx, c); err != nil {
				return err
			}
			if c.ID != want {
				t.Errorf("comment stored as %q, want %q", c.ID, want)
			}
		}
		return nil
	})
}
