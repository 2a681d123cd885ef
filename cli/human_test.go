package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHumanSide: the user reads agents' messages in the inbox, replies as
// "user" whatever --agent says, and decides proposals; accepting can make
// a work item.
func TestHumanSide(t *testing.T) {
	env := newDB(t)
	agent := func(name string, args ...string) run {
		t.Helper()
		r := baton(t, env, append([]string{"--agent", name}, args...)...)
		if r.code != 0 {
			t.Fatalf("%s %v: %+v", name, args, r)
		}
		return r
	}
	agent("builder", "status", "set_status", "--status", "working")
	agent("builder", "status", "announce", "--type", "question", "--title", "Which database?", "--body", "SQLite or Postgres?")
	agent("builder", "messages", "send_message", "--to", "user", "--body", "tests pass", "--thread-id", "t1")

	r := baton(t, env, "inbox")
	if r.code != 0 || !strings.Contains(r.stdout, "Which database?") || !strings.Contains(r.stdout, "question") ||
		!strings.Contains(r.stdout, "tests pass") || !strings.Contains(r.stdout, "2 messages to you") {
		t.Fatalf("inbox = %+v", r)
	}
	if r := baton(t, env, "--agent", "mallory", "reply", "BUILDER", "SQLite for now", "--thread", "t1"); r.code != 0 {
		t.Fatalf("reply = %+v", r)
	}
	r = agent("builder", "messages", "read_messages", "--thread-id", "t1", "--json")
	var got struct {
		Messages []struct{ AgentID, Recipient, Role, Body string }
	}
	_ = json.Unmarshal([]byte(r.stdout), &got)
	last := got.Messages[len(got.Messages)-1]
	if last.AgentID != "user" || last.Role != "user" || last.Recipient != "builder" || last.Body != "SQLite for now" {
		t.Fatalf("the reply reads as %+v", last)
	}
	if r := baton(t, env, "reply", "ghost", "hello"); r.code != 1 || !strings.Contains(r.stderr, "ERR_AGENT_NOT_FOUND") {
		t.Fatalf("reply to an unknown agent = %+v", r)
	}

	agent("builder", "proposals", "create_proposal", "--title", "Cache test fixtures", "--description", "Why: slow tests", "--type", "engineering")
	agent("builder", "proposals", "create_proposal", "--title", "Dark mode", "--description", "Why: eyes", "--type", "product")
	var props struct{ Proposals []struct{ ID, Title string } }
	_ = json.Unmarshal([]byte(agent("builder", "proposals", "list_proposals", "--json").stdout), &props)
	ids := map[string]string{}
	for _, p := range props.Proposals {
		ids[p.Title] = p.ID
	}
	// decide_proposal is privileged: by its name, without a grant, the
	// CLI is refused; `proposals accept|dismiss` are the person's own
	// commands for it.
	if r := baton(t, env, "proposals", "decide_proposal", "--id", ids["Dark mode"], "--decision", "accepted"); r.code != 1 ||
		!strings.Contains(r.stderr, "ERR_PERMISSION_DENIED") {
		t.Fatalf("decide_proposal by name = %+v", r)
	}
	if r := baton(t, env, "proposals", "accept", ids["Cache test fixtures"], "--create-item"); r.code != 0 || !strings.Contains(r.stdout, "created COL-1") {
		t.Fatalf("accept = %+v", r)
	}
	if r := baton(t, env, "proposals", "dismiss", ids["Dark mode"]); r.code != 0 {
		t.Fatalf("dismiss = %+v", r)
	}
	if r := baton(t, env, "proposals", "dismiss", ids["Dark mode"]); r.code != 1 || !strings.Contains(r.stderr, "already dismissed") {
		t.Fatalf("second decision = %+v", r)
	}
	if r := baton(t, env, "proposals", "accept", "no-such-id"); r.code != 1 || !strings.Contains(r.stderr, "ERR_NOT_FOUND") {
		t.Fatalf("unknown proposal = %+v", r)
	}
	r = baton(t, env, "tasks", "task_get", "--task-id", "COL-1", "--json")
	if !strings.Contains(r.stdout, `"title":"Cache test fixtures"`) || !strings.Contains(r.stdout, `"status":"todo"`) ||
		!strings.Contains(r.stdout, `"proposal"`) {
		t.Fatalf("the accepted proposal's item = %s", r.stdout)
	}
	r = agent("builder", "proposals", "list_proposals", "--status", "accepted", "--json")
	if !strings.Contains(r.stdout, `"count":1`) {
		t.Fatalf("accepted proposals = %s", r.stdout)
	}
	// The operator ends a claim whose holder went silent.
	agent("builder", "claims", "claim_item", "--item-id", "COL-1")
	if r := baton(t, env, "claims", "force-release", "COL-1"); r.code != 2 || !strings.Contains(r.stderr, "--reason is required") {
		t.Fatalf("force-release without a reason = %+v", r)
	}
	if r := baton(t, env, "claims", "force-release", "COL-1", "--reason", "builder stopped answering", "--json"); r.code != 0 ||
		!strings.Contains(r.stdout, `"previous_holder": "builder"`) || !strings.Contains(r.stdout, `"status": "todo"`) {
		t.Fatalf("force-release = %+v", r)
	}
	if r := baton(t, env, "--agent", "builder", "tasks", "task_update", "--task-id", "COL-1", "--progress", "50"); r.code != 1 ||
		!strings.Contains(r.stderr, "ERR_CLAIMED") {
		t.Fatalf("the old holder's change after force-release = %+v", r)
	}
	r = agent("builder", "messages", "read_messages", "--thread-id", "claim-COL-1", "--json")
	if !strings.Contains(r.stdout, "builder stopped answering") {
		t.Fatalf("the holder's notice = %s", r.stdout)
	}
	if r := baton(t, env, "claims", "force-release", "COL-1", "--reason", "again"); r.code != 1 || !strings.Contains(r.stderr, "ERR_NOT_FOUND") {
		t.Fatalf("force-release of an unclaimed item = %+v", r)
	}
	if r := baton(t, env, "audit", "verify"); r.code != 0 {
		t.Fatalf("the audit trail after the human's decisions: %+v", r)
	}
}
