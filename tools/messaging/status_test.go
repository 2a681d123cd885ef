package messaging_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestSetStatus(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	for _, st := range []string{"working", "blocked", "idle", "done"} {
		t.Run(st, func(t *testing.T) {
			k := on(k, t)
			out := k.OK("set_status", map[string]any{"status": st, "task": "run the " + st + " suite", "beadId": "COL-" + st})
			if want := map[string]any{"acknowledged": true, "status": st}; !reflect.DeepEqual(out, want) {
				t.Errorf("output %v, want %v", out, want)
			}
			a := agentState(k, "agent-alice")
			if a.Status != st || a.Task != "run the "+st+" suite" || a.BeadID != "COL-"+st {
				t.Errorf("recorded %+v", a)
			}
			if !a.LastSeen.Equal(clock.Peek()) || !a.FirstSeen.Equal(epoch.Add(time.Second)) {
				t.Errorf("first/last seen %v/%v, want %v/%v", a.FirstSeen, a.LastSeen, epoch.Add(time.Second), clock.Peek())
			}
		})
	}

	// Statuses are per agent, and the recorded name is the first spelling.
	k.As("agent-bob").OK("set_status", map[string]any{"status": "blocked"})
	k.As("AGENT-BOB").OK("set_status", map[string]any{"status": "working", "task": "t"})
	if a := agentState(k, "agent-bob"); a.Name != "agent-bob" || a.Status != "working" || a.Task != "t" {
		t.Errorf("bob: %+v", a)
	}
	if a := agentState(k, "agent-alice"); a.Status != "done" {
		t.Errorf("bob's status changed alice's: %+v", a)
	}
	// Optional fields may be left out.
	k.OK("set_status", map[string]any{"status": "idle"})
	if a := agentState(k, "agent-alice"); a.Status != "idle" {
		t.Errorf("alice: %+v", a)
	}
}

func TestSetStatusLimits(t *testing.T) {
	k := testkit.New(t)
	runLimitCases(t, k, "set_status", []limitCase{
		{"status missing", map[string]any{}, "status", "required"},
		{"status empty", map[string]any{"status": ""}, "status", "enum"},
		{"status upper case", map[string]any{"status": "WORKING"}, "status", "enum"},
		{"status unknown", map[string]any{"status": "busy"}, "status", "enum"},
		{"status a number", map[string]any{"status": 1}, "status", "type"},
		{"task empty", map[string]any{"status": "idle", "task": ""}, "", ""},
		{"task 500", map[string]any{"status": "idle", "task": strings.Repeat("t", 500)}, "", ""},
		{"task 501", map[string]any{"status": "idle", "task": strings.Repeat("t", 501)}, "task", "maxLength"},
		{"beadId 128", map[string]any{"status": "idle", "beadId": strings.Repeat("b", 128)}, "", ""},
		{"beadId 129", map[string]any{"status": "idle", "beadId": strings.Repeat("b", 129)}, "beadId", "maxLength"},
		{"beadId empty", map[string]any{"status": "idle", "beadId": ""}, "beadId", "minLength"},
		{"agent argument", map[string]any{"status": "idle", "agentId": "agent-bob"}, "agentId", "additionalProperties"},
	})
	// A refused call records nothing.
	if names := agentNames(k); len(names) != 1 || names[0] != "agent-alice" {
		t.Errorf("agents %v, want only agent-alice (from the accepted calls)", names)
	}
	if _, ok := knownAgents(k)["agent-bob"]; ok {
		t.Error("an agentId argument made agent-bob known")
	}
}

// knownAgents is the set of names send_message lists as known (through
// its ERR_AGENT_NOT_FOUND details), with how often each appears.
func knownAgents(k *testkit.Kit) map[string]int {
	k.T.Helper()
	e := fail(k, "send_message", map[string]any{"to": "agent-nobody-at-all", "body": "?"}, baton.ErrAgentNotFound)
	out := map[string]int{}
	for _, n := range strs(k.T, e.Details["known"]) {
		out[n]++
	}
	return out
}

func TestReportProgress(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	k.OK("set_status", map[string]any{"status": "working", "task": "messaging", "beadId": "COL-3"})
	for _, p := range []int{0, 1, 50, 99, 100} {
		out := k.OK("report_progress", map[string]any{"task": "COL-3 tools", "percentage": p, "description": "step"})
		if want := map[string]any{"acknowledged": true, "percentage": float64(p)}; !reflect.DeepEqual(out, want) {
			t.Errorf("output %v, want %v", out, want)
		}
		a := agentState(k, "agent-alice")
		if a.Progress != p || a.ProgressTask != "COL-3 tools" || a.ProgressDescription != "step" || !a.LastSeen.Equal(clock.Peek()) {
			t.Errorf("recorded %+v, want %d%%", a, p)
		}
		// Progress leaves the status alone.
		if a.Status != "working" || a.Task != "messaging" || a.BeadID != "COL-3" {
			t.Errorf("report_progress changed the status: %+v", a)
		}
	}
	// 50.0 is the integer 50.
	k.OK("report_progress", map[string]any{"task": "t", "percentage": 50.0})
	if a := agentState(k, "agent-alice"); a.Progress != 50 || a.ProgressDescription != "" {
		t.Errorf("recorded %+v", a)
	}
	// A new agent's first report makes it known.
	k.As("agent-bob").OK("report_progress", map[string]any{"task": "t", "percentage": 5})
	if a := agentState(k, "agent-bob"); a.Progress != 5 || a.Status != "" {
		t.Errorf("bob: %+v", a)
	}
}

func TestReportProgressLimits(t *testing.T) {
	k := testkit.New(t)
	base := map[string]any{"task": "t", "percentage": 10}
	c := func(extra map[string]any) map[string]any { return with(base, extra) }
	runLimitCases(t, k, "report_progress", []limitCase{
		{"percentage -1", c(map[string]any{"percentage": -1}), "percentage", "minimum"},
		{"percentage 0", c(map[string]any{"percentage": 0}), "", ""},
		{"percentage 100", c(map[string]any{"percentage": 100}), "", ""},
		{"percentage 101", c(map[string]any{"percentage": 101}), "percentage", "maximum"},
		{"percentage 50.5", c(map[string]any{"percentage": 50.5}), "", ""}, // fractions are fine (point 19)
		{"percentage -0.5", c(map[string]any{"percentage": -0.5}), "percentage", "minimum"},
		{"percentage 100.5", c(map[string]any{"percentage": 100.5}), "percentage", "maximum"},
		{"percentage a string", c(map[string]any{"percentage": "50"}), "percentage", "type"},
		{"percentage missing", c(map[string]any{"percentage": nil}), "percentage", "required"},
		{"task missing", c(map[string]any{"task": nil}), "task", "required"},
		{"task empty", c(map[string]any{"task": ""}), "task", "minLength"},
		{"task blank", c(map[string]any{"task": "   "}), "task", "pattern"},
		{"task 500", c(map[string]any{"task": strings.Repeat("t", 500)}), "", ""},
		{"task 501", c(map[string]any{"task": strings.Repeat("t", 501)}), "task", "maxLength"},
		{"description 2000", c(map[string]any{"description": strings.Repeat("d", 2000)}), "", ""},
		{"description 2001", c(map[string]any{"description": strings.Repeat("d", 2001)}), "description", "maxLength"},
	})
	if a := agentState(k, "agent-alice"); a.Progress != 10 || a.ProgressTask != "t" {
		// The last accepted call was the 2000-character description one.
		t.Errorf("recorded %+v", a)
	}
}

// The human is "user", never an agent: whatever a tool does when the user
// calls it (succeed or refuse), "user" must not join the agents.
func TestUserIsNeverAnAgent(t *testing.T) {
	cases := []struct {
		tool string
		args map[string]any
	}{
		{"send_message", map[string]any{"to": "agent-bob", "body": "hello from the human"}},
		{"read_messages", map[string]any{}},
		{"mark_read", map[string]any{"agentId": "agent-bob"}},
		{"announce", map[string]any{"type": "question", "title": "t", "body": "b"}},
		{"create_proposal", map[string]any{"title": "t", "description": "d", "type": "product"}},
		{"set_status", map[string]any{"status": "working"}},
		{"report_progress", map[string]any{"task": "review", "percentage": 20}},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			k := testkit.New(t)
			known(k, "agent-bob")
			k.As("user").Call(tc.tool, tc.args)
			if names := agentNames(k); slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, baton.User) }) {
				t.Errorf("after the user's %s, agents %v include the user", tc.tool, names)
			}
			if got := knownAgents(k); got["user"] != 1 {
				t.Errorf("after the user's %s, send_message lists known %v: \"user\" must appear exactly once", tc.tool, got)
			}
		})
	}
}

func TestAnnounce(t *testing.T) {
	for _, typ := range []string{"completion", "blocker", "question"} {
		t.Run(typ, func(t *testing.T) {
			k := testkit.New(t)
			clock := withClock(k, time.Second)
			out := k.OK("announce", map[string]any{"type": typ, "title": "Messaging tools done", "body": "All tests pass.", "beadId": "COL-10"})
			at := clock.Peek()
			if got := keys(out); !slices.Equal(got, []string{"messageId", "timestamp"}) {
				t.Fatalf("output keys %v, want [messageId timestamp]", got)
			}
			id := out["messageId"].(string)
			if !uuidV4.MatchString(id) || out["timestamp"] != stamp(at) {
				t.Errorf("output %v", out)
			}
			m := find(t, read(k.As("agent-observer"), map[string]any{}), id)
			want := map[string]any{"id": id, "agentId": "agent-alice", "recipient": "user", "role": "announcement",
				"body": "Messaging tools done\n\nAll tests pass.", "deliveryStatus": "pending", "eventType": typ,
				"metadata": map[string]any{"title": "Messaging tools done", "beadId": "COL-10"}, "createdAt": stamp(at)}
			if !reflect.DeepEqual(m, want) {
				t.Errorf("stored %v\nwant   %v", m, want)
			}
			// It is in the user's inbox and becomes delivered when the user reads.
			if got := find(t, read(k.As("user"), map[string]any{"agentId": "user"}), id)["deliveryStatus"]; got != "delivered" {
				t.Errorf("the user's read shows %v", got)
			}
		})
	}
}

func TestAnnounceLimits(t *testing.T) {
	k := testkit.New(t)
	base := map[string]any{"type": "completion", "title": "t", "body": "b"}
	c := func(extra map[string]any) map[string]any { return with(base, extra) }
	runLimitCases(t, k, "announce", []limitCase{
		{"type missing", c(map[string]any{"type": nil}), "type", "required"},
		{"type unknown", c(map[string]any{"type": "info"}), "type", "enum"},
		{"type capitalised", c(map[string]any{"type": "Completion"}), "type", "enum"},
		{"type announcement", c(map[string]any{"type": "announcement"}), "type", "enum"},
		{"title missing", c(map[string]any{"title": nil}), "title", "required"},
		{"title empty", c(map[string]any{"title": ""}), "title", "minLength"},
		{"title blank", c(map[string]any{"title": " \n"}), "title", "pattern"},
		{"title 256", c(map[string]any{"title": strings.Repeat("t", 256)}), "", ""},
		{"title 257", c(map[string]any{"title": strings.Repeat("t", 257)}), "title", "maxLength"},
		{"body missing", c(map[string]any{"body": nil}), "body", "required"},
		{"body empty", c(map[string]any{"body": ""}), "body", "minLength"},
		{"body blank", c(map[string]any{"body": "\t"}), "body", "pattern"},
		{"body 20000", c(map[string]any{"body": strings.Repeat("b", 20000)}), "", ""},
		{"body 20001", c(map[string]any{"body": strings.Repeat("b", 20001)}), "body", "maxLength"},
		{"beadId empty", c(map[string]any{"beadId": ""}), "beadId", "minLength"},
		{"recipient argument", c(map[string]any{"to": "agent-bob"}), "to", "additionalProperties"},
		{"sender argument", c(map[string]any{"agentId": "agent-bob"}), "agentId", "additionalProperties"},
	})
	// Every accepted announcement went to the user from the caller.
	for _, m := range read(k, map[string]any{}) {
		if m["recipient"] != "user" || m["agentId"] != "agent-alice" || m["role"] != "announcement" {
			t.Errorf("stored %v", m)
		}
	}
}
