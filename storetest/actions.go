package storetest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
)

// The action-log group: RecentActions reads the newest calls of one agent
// (or of everyone) without reading the log, for the dashboard's "recent
// calls".
var actionCases = []testCase{
	{"RecentNewestFirst", testRecentActionsNewestFirst},
	{"RecentOfOneAgent", testRecentActionsOfOneAgent},
	{"WithEvent", testActionWithEvent},
	{"ChainAcrossABatch", testActionChainAcrossABatch},
	{"JoinsASessionOpenedBefore", testActionJoinsASessionOpenedBefore},
}

// appendActions appends one action per agent named, in order, the n-th
// with tool "tool-n".
func (e *env) appendActions(agents ...string) {
	e.t.Helper()
	e.update(func(tx baton.Tx) error {
		for i, a := range agents {
			if err := tx.AppendAction(e.ctx, &baton.Action{Agent: a, Source: "test", Tool: fmt.Sprintf("tool-%d", i),
				InputDigest: "in", ResultDigest: "out", At: at(i)}); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *env) recent(agent string, limit int) []string {
	e.t.Helper()
	var out []string
	e.view(func(tx baton.Tx) error {
		as, err := tx.RecentActions(e.ctx, agent, limit)
		for _, a := range as {
			out = append(out, a.Agent+"/"+a.Tool)
		}
		return err
	})
	return out
}

func testRecentActionsNewestFirst(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	if got := e.recent("", 10); len(got) != 0 {
		t.Fatalf("an empty log: RecentActions = %v, want none", got)
	}
	e.appendActions("agent-a", "agent-b", "agent-a", "agent-c")
	if got, want := e.recent("", 3), []string{"agent-c/tool-3", "agent-a/tool-2", "agent-b/tool-1"}; !slices.Equal(got, want) {
		t.Errorf("RecentActions(\"\", 3) = %v, want %v", got, want)
	}
	if got := e.recent("", 0); len(got) != 4 {
		t.Errorf("RecentActions(\"\", 0) = %v, want the whole short log (a default limit)", got)
	}
	// The actions read back whole, as Actions returns them.
	e.view(func(tx baton.Tx) error {
		all, err := tx.Actions(e.ctx, 0, 0)
		if err != nil {
			return err
		}
		recent, err := tx.RecentActions(e.ctx, "", 1)
		if err != nil {
			return err
		}
		if len(recent) != 1 || *recent[0] != *all[len(all)-1] {
			t.Errorf("RecentActions(\"\", 1) = %+v, want the last action %+v", recent, all[len(all)-1])
		}
		return nil
	})
}

func testRecentActionsOfOneAgent(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.appendActions("agent-a", "Agent-B", "agent-a", "agent-c", "agent-a", "agent-b")
	if got, want := e.recent("agent-a", 2), []string{"agent-a/tool-4", "agent-a/tool-2"}; !slices.Equal(got, want) {
		t.Errorf("RecentActions(agent-a, 2) = %v, want %v", got, want)
	}
	// Agent names match case-insensitively, as everywhere in baton.
	if got, want := e.recent("AGENT-b", 10), []string{"agent-b/tool-5", "Agent-B/tool-1"}; !slices.Equal(got, want) {
		t.Errorf("RecentActions(AGENT-b, 10) = %v, want %v", got, want)
	}
	if got := e.recent("agent-nobody", 10); len(got) != 0 {
		t.Errorf("RecentActions(agent-nobody) = %v, want none", got)
	}
}

// testActionWithEvent: AppendActionEvent chains its action as AppendAction
// does, between plain appends, and appends its event as AppendEvent does
// (the project's next seq), both read back as returned.
func testActionWithEvent(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	var acts []*baton.Action
	var evs []*baton.Event
	e.update(func(tx baton.Tx) error {
		for i := range 4 {
			a := &baton.Action{Agent: "agent-a", Source: "test", Tool: fmt.Sprintf("tool-%d", i), InputDigest: "in",
				ResultDigest: "out", At: at(i)}
			acts = append(acts, a)
			if i == 2 {
				if err := tx.AppendAction(e.ctx, a); err != nil {
					return err
				}
				continue
			}
			ev := &baton.Event{Project: "alpha", Type: fmt.Sprintf("type-%d", i), Agent: "agent-a", At: at(i)}
			evs = append(evs, ev)
			if err := tx.AppendActionEvent(e.ctx, a, ev); err != nil {
				return err
			}
		}
		return nil
	})
	for i, a := range acts {
		if a.Position != int64(i+1) || (i > 0 && a.PreviousHash != acts[i-1].Hash) || a.Hash == "" {
			t.Errorf("action %d: position %d, previous %q, hash %q; want position %d chained to the one before",
				i, a.Position, a.PreviousHash, a.Hash, i+1)
		}
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d: seq %d, want %d", i, ev.Seq, i+1)
		}
	}
	e.view(func(tx baton.Tx) error {
		stored, err := tx.Actions(e.ctx, 0, 0)
		if err != nil {
			return err
		}
		if len(stored) != len(acts) {
			t.Fatalf("%d actions stored, want %d", len(stored), len(acts))
		}
		for i := range acts {
			if *stored[i] != *acts[i] {
				t.Errorf("action %d stored as %+v, returned as %+v", i, stored[i], acts[i])
			}
		}
		got, err := tx.Events(e.ctx, "alpha", 0, 0)
		if err != nil {
			return err
		}
		var types []string
		for _, ev := range got {
			types = append(types, fmt.Sprintf("%d:%s", ev.Seq, ev.Type))
		}
		if want := []string{"1:type-0", "2:type-1", "3:type-3"}; !slices.Equal(types, want) {
			t.Errorf("events %v, want %v", types, want)
		}
		return nil
	})
}

// testActionChainAcrossABatch: writes queued behind a busy writer commit
// together (group commit), and a call takes the chain's head from the call
// before it in the batch rather than reading it. A call that appends and
// then fails is rolled back, and the head with it: the next call chains to
// the last action that stands. The log must read back as one unbroken chain
// of exactly the calls that succeeded, whatever the batches were.
func testActionChainAcrossABatch(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	appendOne := func(tx baton.Tx, tool string) error {
		return tx.AppendAction(e.ctx, &baton.Action{Agent: "agent-a", Source: "test", Tool: tool, InputDigest: "in",
			ResultDigest: "out", At: at(0)})
	}
	// The first write holds the writer while the others queue behind it.
	release, holding := make(chan struct{}), make(chan struct{})
	held := sync.OnceFunc(func() { close(holding) }) // a store may run fn again
	first := make(chan error, 1)
	go func() {
		first <- e.s.Update(e.ctx, func(tx baton.Tx) error {
			if err := appendOne(tx, "first"); err != nil {
				return err
			}
			held()
			<-release
			return nil
		})
	}()
	<-holding
	errRefused := errors.New("refused after appending")
	const n = 24
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := range n {
		wg.Go(func() {
			results[i] = e.s.Update(e.ctx, func(tx baton.Tx) error {
				if err := appendOne(tx, fmt.Sprintf("call-%d", i)); err != nil {
					return err
				}
				if i%3 == 1 {
					return errRefused
				}
				return nil
			})
		})
	}
	time.Sleep(200 * time.Millisecond) // let them queue: they would pass with any batching
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatalf("the first write: %v", err)
	}
	want := map[string]bool{"first": true}
	for i, err := range results {
		switch {
		case i%3 == 1 && !errors.Is(err, errRefused):
			t.Errorf("call %d: %v, want its own error", i, err)
		case i%3 != 1 && err != nil:
			t.Errorf("call %d: %v", i, err)
		case i%3 != 1:
			want[fmt.Sprintf("call-%d", i)] = true
		}
	}
	e.view(func(tx baton.Tx) error {
		stored, err := tx.Actions(e.ctx, 0, 0)
		if err != nil {
			return err
		}
		got := map[string]bool{}
		prev := audit.Genesis
		for i, a := range stored {
			got[a.Tool] = true
			if a.Position != int64(i+1) || a.PreviousHash != prev || audit.ActionOf(a).Hash() != a.Hash {
				t.Errorf("action %d (%s): position %d, previous %.12s (want %.12s), hash %.12s (recomputed %.12s)",
					i+1, a.Tool, a.Position, a.PreviousHash, prev, a.Hash, audit.ActionOf(a).Hash())
			}
			prev = a.Hash
		}
		if len(stored) != len(want) || !maps.Equal(got, want) {
			t.Errorf("%d actions stored (%v), want the %d calls that succeeded (%v)", len(stored), got, len(want), want)
		}
		return nil
	})
}

// testActionJoinsASessionOpenedBefore: a call's action joins an audit
// session that an earlier call opened, also when both run in one group
// commit batch after a call that found no session open (the batch's
// remembered chain head must not answer "no session" for it). The calls
// queue behind a write holding the writer, in order.
func testActionJoinsASessionOpenedBefore(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := &baton.Item{Project: "alpha", Title: "audited", Status: baton.StatusTodo, CreatedBy: "test"}
	e.update(func(tx baton.Tx) error { return tx.CreateItem(e.ctx, it) })
	appendOn := func(tx baton.Tx, tool string, min int) (*baton.Action, error) {
		a := &baton.Action{Agent: "agent-a", Source: "test", Tool: tool, Subject: it.ID, InputDigest: "in",
			ResultDigest: "out", At: at(min)}
		return a, tx.AppendAction(e.ctx, a)
	}
	session := &baton.AuditSession{TaskID: it.ID, AuditorID: "auditor", Reason: "check", Scope: "shallow",
		StartedBy: "test", StartedAt: at(1)}
	var joined *baton.Action
	calls := []func(tx baton.Tx) error{
		func(tx baton.Tx) error { _, err := appendOn(tx, "before", 0); return err },
		func(tx baton.Tx) error {
			if err := tx.StartSession(e.ctx, session); err != nil {
				return err
			}
			_, err := appendOn(tx, "opening", 1)
			return err
		},
		func(tx baton.Tx) error {
			var err error
			joined, err = appendOn(tx, "after", 2)
			return err
		},
	}
	for i, err := range e.queuedBehindAWrite(calls...) {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	e.view(func(tx baton.Tx) error {
		recs, err := tx.SessionRecords(e.ctx, session.ID)
		if err != nil {
			return err
		}
		var got []string
		for _, r := range recs {
			got = append(got, r.Kind+"/"+r.RecordID)
		}
		if want := []string{fmt.Sprintf("action/%d", joined.Position)}; !slices.Equal(got, want) {
			t.Errorf("session records %v, want %v: the action of the call after the one that opened it", got, want)
		}
		return nil
	})
}
