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
