package storetest

import (
	"testing"

	"github.com/baton-dev/baton"
)

// The events group: LastEventSeq tells a reader where a project's log
// ends without reading it (the dashboard's live reader, /events).
var eventCases = []testCase{
	{"LastSeqPerProject", testLastEventSeq},
}

func testLastEventSeq(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "A")
	e.project("beta", "B")
	last := func(project string) int64 {
		var n int64
		e.view(func(tx baton.Tx) (err error) { n, err = tx.LastEventSeq(e.ctx, project); return err })
		return n
	}
	if n := last("alpha"); n != 0 {
		t.Fatalf("an empty log ends at %d, want 0", n)
	}
	e.update(func(tx baton.Tx) error {
		for _, p := range []string{"alpha", "alpha", "beta", "alpha", ""} {
			if err := tx.AppendEvent(e.ctx, &baton.Event{Project: p, Type: "test.event", At: base}); err != nil {
				return err
			}
		}
		return nil
	})
	for p, want := range map[string]int64{"alpha": 3, "beta": 1, "": 1, "gamma": 0} {
		if n := last(p); n != want {
			t.Errorf("LastEventSeq(%q) = %d, want %d", p, n, want)
		}
	}
}
