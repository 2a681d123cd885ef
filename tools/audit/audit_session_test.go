package audit_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestAuditSessionStartOutput: ids A-0001.., the spec's output fields,
// scope shallow by default, started_at from the clock, and the session as
// stored.
func TestAuditSessionStartOutput(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	a, b := create(k, nil), create(k, nil)
	cases := []struct {
		args      map[string]any
		id, scope string
	}{
		{map[string]any{"task_id": a, "auditor_id": "agent-auditor"}, "A-0001", "shallow"},
		{map[string]any{"task_id": a, "auditor_id": "agent-auditor", "scope": "deep", "reason": "Proof review before finalization"}, "A-0002", "deep"},
		{map[string]any{"task_id": b, "auditor_id": "someone else", "scope": "shallow"}, "A-0003", "shallow"},
	}
	for _, c := range cases {
		out := k.As("agent-bob").OK("audit_session_start", c.args)
		if got, want := keys(out), []string{"auditor_id", "scope", "session_id", "started_at", "task_id"}; !slices.Equal(got, want) {
			t.Fatalf("output fields = %v, want %v", got, want)
		}
		at := stampOf(clock.Peek())
		if out["session_id"] != c.id || out["task_id"] != c.args["task_id"] || out["auditor_id"] != c.args["auditor_id"] ||
			out["scope"] != c.scope || out["started_at"] != at {
			t.Errorf("%v: output %v, want id %s scope %s started_at %s", c.args, out, c.id, c.scope, at)
		}
		s := session(k, c.id)
		reason, _ := c.args["reason"].(string)
		if s.TaskID != c.args["task_id"] || s.AuditorID != c.args["auditor_id"] || s.Scope != c.scope || s.Reason != reason ||
			s.StartedBy != "agent-bob" || stampOf(s.StartedAt) != at || s.Finalized() {
			t.Errorf("stored session %+v", s)
		}
	}
}

// TestAuditSessionStartInput: every rule and error of audit_session_start.
func TestAuditSessionStartInput(t *testing.T) {
	k := testkit.New(t)
	task := create(k, nil)
	cases := []struct {
		name       string
		set        map[string]any
		drop       string
		code       string
		field, why string
	}{
		{name: "scope deep", set: map[string]any{"scope": "deep"}},
		{name: "auditor_id 128 chars", set: map[string]any{"auditor_id": strings.Repeat("x", 128)}},
		{name: "reason 1000 chars", set: map[string]any{"reason": strings.Repeat("r", 1000)}},
		{name: "scope unknown", set: map[string]any{"scope": "medium"}, code: baton.ErrInvalidInput, field: "scope", why: "enum"},
		{name: "scope wrong case", set: map[string]any{"scope": "Deep"}, code: baton.ErrInvalidInput, field: "scope", why: "enum"},
		{name: "scope empty", set: map[string]any{"scope": ""}, code: baton.ErrInvalidInput, field: "scope", why: "enum"},
		{name: "auditor_id missing", drop: "auditor_id", code: baton.ErrInvalidInput, field: "auditor_id", why: "required"},
		{name: "auditor_id empty", set: map[string]any{"auditor_id": ""}, code: baton.ErrInvalidInput, field: "auditor_id", why: "minLength"},
		{name: "auditor_id blank", set: map[string]any{"auditor_id": "   "}, code: baton.ErrInvalidInput, field: "auditor_id", why: "pattern"},
		{name: "auditor_id 129 chars", set: map[string]any{"auditor_id": strings.Repeat("x", 129)}, code: baton.ErrInvalidInput, field: "auditor_id", why: "maxLength"},
		{name: "reason 1001 chars", set: map[string]any{"reason": strings.Repeat("r", 1001)}, code: baton.ErrInvalidInput, field: "reason", why: "maxLength"},
		{name: "task_id missing", drop: "task_id", code: baton.ErrInvalidInput, field: "task_id", why: "required"},
		{name: "task_id unknown", set: map[string]any{"task_id": "COL-99"}, code: baton.ErrTaskNotFound},
		{name: "unknown field", set: map[string]any{"session_id": "A-0042"}, code: baton.ErrInvalidInput, field: "session_id", why: "additionalProperties"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := on(k, t)
			args := map[string]any{"task_id": task, "auditor_id": "agent-auditor"}
			for key, v := range c.set {
				args[key] = v
			}
			delete(args, c.drop)
			if c.code == "" {
				k.OK("audit_session_start", args)
				return
			}
			e := fail(k, "audit_session_start", args, c.code)
			if c.field != "" {
				invalid(t, e, c.field, c.why)
			}
		})
	}
}

// TestSessionMembership: while a session is open, every record about the
// tasks it covers joins it (thought records and the action of every
// mutating call, any vocabulary); records made before it started, after
// it was finalized, or about other tasks do not. Shallow covers the task,
// deep also its sub-tasks at any depth.
func TestSessionMembership(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	p := create(k, nil)
	c := create(k, map[string]any{"parent_id": p})
	g := create(k, map[string]any{"parent_id": c})
	u := create(k, nil)

	// think records a thought and returns its two records: the thought and
	// the thought_record call's action.
	thought := func(task, content string) (string, string, []any) {
		out := think(k, task, content)
		return "thought:" + out["thought_id"].(string), "action:" + lastAction(k), list(t, out["session_ids"])
	}
	call := func(name string, args map[string]any) string {
		k.OK(name, args)
		return "action:" + lastAction(k)
	}

	before, beforeAct, joined := thought(p, "before any session")
	if len(joined) != 0 {
		t.Errorf("a record before any session joined %v", joined)
	}
	beforeUpd := call("task_update", map[string]any{"task_id": p, "priority": "high"})

	shallowP := start(k, p, "")
	deepP := start(k, p, "deep")
	shallowC := start(k, c, "shallow")

	t1, t1a, joined := thought(p, "on the parent")
	if got := fmtIDs(joined); !slices.Equal(got, []string{shallowP, deepP}) {
		t.Errorf("thought on %s joined %v, want [%s %s]", p, got, shallowP, deepP)
	}
	upP := call("task_update", map[string]any{"task_id": p, "status": "todo"})
	t2, t2a, joined := thought(c, "on the child")
	if got := fmtIDs(joined); !slices.Equal(got, []string{deepP, shallowC}) {
		t.Errorf("thought on %s joined %v, want [%s %s]", c, got, deepP, shallowC)
	}
	upG := call("task_update", map[string]any{"task_id": g, "status": "todo"})
	t3, t3a, joined := thought(g, "on the grandchild")
	if got := fmtIDs(joined); !slices.Equal(got, []string{deepP}) {
		t.Errorf("thought on %s joined %v, want [%s]", g, got, deepP)
	}
	tu, tua, joined := thought(u, "on an unrelated task")
	if len(joined) != 0 {
		t.Errorf("thought on the unrelated %s joined %v", u, joined)
	}
	upU := call("task_update", map[string]any{"task_id": u, "status": "todo"})
	newH := call("task_create", map[string]any{"project": testkit.Project, "title": "great-grandchild", "parent_id": g})
	// Read-only calls leave no record anywhere.
	k.OK("task_get", map[string]any{"task_id": p})
	k.OK("merkle_root", map[string]any{"session_id": deepP})
	// (audit_verify_chain ends a session's tracking: see
	// TestPoint17VerifyEndsSessionTracking.)

	k.OK("merkle_finalize", map[string]any{"session_id": shallowP})
	t5, t5a, joined := thought(p, "after the shallow session was finalized")
	if got := fmtIDs(joined); !slices.Equal(got, []string{deepP}) {
		t.Errorf("after finalizing %s, a thought on %s joined %v, want [%s]", shallowP, p, got, deepP)
	}
	k.OK("merkle_finalize", map[string]any{"session_id": deepP})
	k.OK("merkle_finalize", map[string]any{"session_id": shallowC})
	t6, t6a, joined := thought(p, "after every session was finalized")
	if len(joined) != 0 {
		t.Errorf("a record after finalization joined %v", joined)
	}
	upAfter := call("task_update", map[string]any{"task_id": c, "status": "todo"})

	open := func(id string) string { return "action:" + opening(k, id) }
	want := map[string][]string{
		shallowP: {open(deepP), t1, t1a, upP},
		deepP:    {open(shallowC), t1, t1a, upP, t2, t2a, upG, t3, t3a, newH, t5, t5a},
		shallowC: {t2, t2a},
	}
	for id, w := range want {
		got := members(k, id)
		if !slices.Equal(got, w) {
			t.Errorf("session %s holds %v, want %v", id, got, w)
		}
		for _, never := range []string{before, beforeAct, beforeUpd, tu, tua, upU, t6, t6a, upAfter} {
			if slices.Contains(got, never) {
				t.Errorf("session %s holds %s, made outside it", id, never)
			}
		}
		// thought_record_list by session lists exactly its thoughts, in
		// the order they joined.
		var thoughts []string
		for _, m := range w {
			if tid, ok := strings.CutPrefix(m, "thought:"); ok {
				thoughts = append(thoughts, tid)
			}
		}
		if got := thoughtIDs(t, k.OK("thought_record_list", map[string]any{"session_id": id})); !slices.Equal(got, thoughts) {
			t.Errorf("thought_record_list session %s = %v, want %v", id, got, thoughts)
		}
	}
}

func fmtIDs(v []any) []string {
	out := make([]string, len(v))
	for i, e := range v {
		out[i], _ = e.(string)
	}
	return out
}

// TestSessionOpeningCallIsNotARecord: a session holds the records made
// after it was opened ("all subsequent operations", spec), so a session in
// which nothing happened is empty: its live root and its finalized root
// are sha256("") over 0 leaves at depth 0.
func TestSessionOpeningCallIsNotARecord(t *testing.T) {
	k := testkit.New(t)
	task := create(k, nil)
	s := start(k, task, "")
	if recs := records(k, s); len(recs) != 0 {
		t.Errorf("a session in which nothing happened holds %d records: %+v (the audit_session_start call that opened "+
			"it joined it)", len(recs), recs)
	}
	live := k.OK("merkle_root", map[string]any{"session_id": s})
	if live["merkle_root"] != emptySHA || num(t, live["leaf_count"]) != 0 {
		t.Errorf("live root of an empty session = %v over %v leaves, want sha256(\"\") over 0", live["merkle_root"], live["leaf_count"])
	}
	out := k.OK("merkle_finalize", map[string]any{"session_id": s})
	if out["merkle_root"] != emptySHA || num(t, out["leaf_count"]) != 0 || num(t, out["tree_depth"]) != 0 {
		t.Errorf("finalizing an empty session gave root %v, %v leaves, depth %v; want %s, 0, 0",
			out["merkle_root"], out["leaf_count"], out["tree_depth"], emptySHA)
	}
}
