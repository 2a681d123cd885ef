package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/baton-dev/baton"
)

// The action-log group: RecentActions reads the newest calls of one agent
// (or of everyone) without reading the log, for the dashboard's "recent
// calls".
var actionCases = []testCase{
	{"RecentNewestFirst", testRecentActionsNewestFirst},
	{"RecentOfOneAgent", testRecentActionsOfOneAgent},
	{"WithEvent", testActionWithEvent},
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
