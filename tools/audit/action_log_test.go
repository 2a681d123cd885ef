package audit_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestActionLog runs a mix of calls from two vocabularies and two agents
// and reads the action log: exactly one action per successful mutating
// call, in order, none for read-only or failed calls; each names the
// agent, the tool, the item, the digest of the validated input (defaults
// applied) and of the result, the call's time, and links to the action
// before; and the chain verifies.
func TestActionLog(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	bob := k.As("agent-bob")
	beads := *k
	beads.Principal.Project = testkit.Project // the bead tools take the project from the session

	type want struct {
		input   map[string]any // the normalized input; nil = the call appends nothing
		subject string
	}
	calls := []struct {
		kit  *testkit.Kit
		tool string
		args map[string]any
		code string // "" = succeeds
		want want
	}{
		{k, "task_create", map[string]any{"title": "Audit trail", "project": "colibri"}, "",
			want{map[string]any{"title": "Audit trail", "project": "colibri", "priority": "normal", "assignee": "unassigned"}, "COL-1"}},
		{bob, "task_update", map[string]any{"task_id": "COL-1", "status": "todo"}, "",
			want{map[string]any{"task_id": "COL-1", "status": "todo"}, "COL-1"}},
		{k, "task_update", map[string]any{"task_id": "COL-1", "status": "done"}, baton.ErrInvalidTransition, want{}},
		{k, "task_update", map[string]any{"task_id": "COL-99", "status": "todo"}, baton.ErrTaskNotFound, want{}},
		{k, "task_create", map[string]any{"title": "", "project": "colibri"}, baton.ErrInvalidInput, want{}},
		{k, "task_get", map[string]any{"task_id": "COL-1"}, "", want{}},
		{k, "task_list", map[string]any{"project": "colibri"}, "", want{}},
		{k, "thought_record", map[string]any{"task_id": "COL-1", "type": "risk", "content": "The log must not lose a call."}, "",
			want{map[string]any{"task_id": "COL-1", "type": "risk", "content": "The log must not lose a call."}, "COL-1"}},
		{k, "thought_record", map[string]any{"task_id": "COL-99", "type": "risk", "content": "x"}, baton.ErrTaskNotFound, want{}},
		{k, "thought_record_list", map[string]any{"task_id": "COL-1", "verify_chain": true}, "", want{}},
		{&beads, "create_bead", map[string]any{"title": "A bead", "description": "", "type": "task", "priority": 2}, "",
			want{map[string]any{"title": "A bead", "description": "", "type": "task", "priority": 2}, "COL-2"}},
		{&beads, "show_bead", map[string]any{"id": "COL-2"}, "", want{}},
		{bob, "task_create", map[string]any{"title": "Sub-task", "project": "colibri", "parent_id": "COL-1",
			"labels": []string{"audit"}, "estimate_hours": 2.5, "priority": "high"}, "",
			want{map[string]any{"title": "Sub-task", "project": "colibri", "parent_id": "COL-1", "labels": []string{"audit"},
				"estimate_hours": 2.5, "priority": "high", "assignee": "unassigned"}, "COL-3"}},
		{k, "audit_session_start", map[string]any{"task_id": "COL-1", "auditor_id": "agent-auditor"}, "",
			want{map[string]any{"task_id": "COL-1", "auditor_id": "agent-auditor", "scope": "shallow"}, "COL-1"}},
		{k, "thought_record", map[string]any{"task_id": "COL-1", "type": "decision", "content": "Audited <safely> & well"}, "",
			want{map[string]any{"task_id": "COL-1", "type": "decision", "content": "Audited <safely> & well"}, "COL-1"}},
		// Verifying a session ends its tracking (Colibri's catalogue): a
		// change, so it is logged.
		{k, "audit_verify_chain", map[string]any{"session_id": "A-0001"}, "",
			want{map[string]any{"session_id": "A-0001"}, ""}},
		{k, "merkle_root", map[string]any{"session_id": "A-0001"}, "", want{}},
		{k, "merkle_finalize", map[string]any{"session_id": "A-0001"}, "",
			want{map[string]any{"session_id": "A-0001"}, ""}},
		{k, "merkle_finalize", map[string]any{"session_id": "A-0001"}, baton.ErrAlreadyFinalized, want{}},
		{k, "merkle_proof", map[string]any{"session_id": "A-0001", "record_id": "Θ-0002"}, "", want{}},
	}

	type expected struct {
		agent, tool, subject, input, result, at string
	}
	var exp []expected
	for _, c := range calls {
		res := c.kit.Call(c.tool, c.args)
		switch {
		case c.code == "" && res.Err != nil:
			t.Fatalf("%s(%v): %s", c.tool, c.args, res.Text)
		case c.code != "" && (res.Err == nil || res.Err.Code != c.code):
			t.Fatalf("%s(%v): want %s, got %s", c.tool, c.args, c.code, res.Text)
		}
		if c.want.input == nil {
			continue
		}
		in, err := audit.Digest(c.want.input)
		if err != nil {
			t.Fatal(err)
		}
		if own := sha(canonicalJSON(t, c.want.input)); own != in {
			t.Fatalf("audit.Digest(%v) = %s, but the canonical JSON hashes to %s", c.want.input, in, own)
		}
		result, err := audit.Digest(res.Output)
		if err != nil {
			t.Fatal(err)
		}
		if own := sha(canonicalJSON(t, testkit.Decode(t, res.Output))); own != result {
			t.Fatalf("%s: result digest %s, canonical JSON of the output hashes to %s", c.tool, result, own)
		}
		exp = append(exp, expected{c.kit.Principal.Agent, c.tool, c.want.subject, in, result, stampOf(clock.Peek())})
	}

	acts := actions(k)
	if len(acts) != len(exp) {
		for _, a := range acts {
			t.Logf("action %d: %s %s %s", a.Position, a.Agent, a.Tool, a.Subject)
		}
		t.Fatalf("%d actions, want %d: one per successful mutating call", len(acts), len(exp))
	}
	prev := zeros
	links := make([]audit.Link, len(acts))
	for i, a := range acts {
		e := exp[i]
		if a.Position != int64(i+1) {
			t.Errorf("action %d has position %d", i+1, a.Position)
		}
		if a.Agent != e.agent || a.Tool != e.tool || a.Subject != e.subject || a.Source != string(baton.SourceTest) {
			t.Errorf("action %d: agent/tool/subject/source = %s/%s/%q/%s, want %s/%s/%q/test", i+1, a.Agent, a.Tool, a.Subject,
				a.Source, e.agent, e.tool, e.subject)
		}
		if a.InputDigest != e.input {
			t.Errorf("action %d (%s): input_digest %s, want the digest of the normalized input %s", i+1, a.Tool, a.InputDigest, e.input)
		}
		if a.ResultDigest != e.result {
			t.Errorf("action %d (%s): result_digest %s, want %s", i+1, a.Tool, a.ResultDigest, e.result)
		}
		if stampOf(a.At) != e.at {
			t.Errorf("action %d (%s): at %s, want the call's time %s", i+1, a.Tool, stampOf(a.At), e.at)
		}
		if a.PreviousHash != prev {
			t.Errorf("action %d: previous_hash %s, want %s", i+1, a.PreviousHash, prev)
		}
		if h := actionHash(t, a); a.Hash != h {
			t.Errorf("action %d: hash %s, want %s", i+1, a.Hash, h)
		}
		links[i] = audit.Link{Position: a.Position, Stored: a.Hash, PreviousHash: a.PreviousHash, Computed: audit.ActionOf(a).Hash()}
		prev = a.Hash
	}
	if broken := audit.Verify(links); len(broken) != 0 {
		t.Errorf("the action chain does not verify: %+v", broken)
	}
	rep, err := audit.VerifyStore(context.Background(), k.Store)
	if err != nil || !rep.OK() || rep.Actions != int64(len(exp)) {
		t.Errorf("VerifyStore = %+v, %v", rep, err)
	}
}

// TestActionLogSameTransaction: when the action cannot be appended, the
// change it records is not made either; once the log works again, the
// chain continues without a gap.
func TestActionLogSameTransaction(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	task := create(k, nil)
	logDown, logUp := []string{`CREATE TRIGGER log_down BEFORE INSERT ON actions BEGIN SELECT RAISE(ABORT, 'the log is down'); END`},
		[]string{`DROP TRIGGER log_down`}
	if k.Backend == "postgres" {
		logDown = []string{
			`CREATE FUNCTION log_down() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the log is down'; END $$`,
			`CREATE TRIGGER log_down BEFORE INSERT ON actions FOR EACH ROW EXECUTE FUNCTION log_down()`,
		}
		logUp = []string{`DROP TRIGGER log_down ON actions`}
	}
	tamper(t, k, logDown...)

	res := k.Call("task_update", map[string]any{"task_id": task, "status": "todo"})
	if res.Err == nil {
		t.Fatal("task_update succeeded while its action could not be appended")
	}
	if got := k.OK("task_get", map[string]any{"task_id": task})["status"]; got != "backlog" {
		t.Errorf("the update was kept without its action: status %v", got)
	}
	if res := k.Call("thought_record", map[string]any{"task_id": task, "type": "risk", "content": "lost?"}); res.Err == nil {
		t.Fatal("thought_record succeeded while its action could not be appended")
	}
	if out := k.OK("thought_record_list", map[string]any{"task_id": task}); num(t, out["thought_count"]) != 0 {
		t.Errorf("the thought was kept without its action: %v", out)
	}
	if res := k.Call("task_create", map[string]any{"title": "ghost", "project": "colibri"}); res.Err == nil {
		t.Fatal("task_create succeeded while its action could not be appended")
	}
	fail(k, "task_get", map[string]any{"task_id": "COL-2"}, baton.ErrTaskNotFound)

	tamper(t, k, logUp...)
	k.OK("task_update", map[string]any{"task_id": task, "status": "todo"})
	acts := actions(k)
	var tools []string
	for _, a := range acts {
		tools = append(tools, a.Tool)
	}
	if !slices.Equal(tools, []string{"task_create", "task_update"}) {
		t.Errorf("actions %v, want task_create, task_update", tools)
	}
	if rep, err := audit.VerifyStore(context.Background(), k.Store); err != nil || !rep.OK() {
		t.Errorf("VerifyStore = %+v, %v", rep, err)
	}
}
