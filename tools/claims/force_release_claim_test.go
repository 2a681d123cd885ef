package claims_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/claims"
	"github.com/baton-dev/baton/tools/messaging"
	"github.com/baton-dev/baton/tools/tasks"
)

// The operator in the dashboard, and an agent.
var (
	operator = baton.Principal{Agent: baton.User, Source: baton.SourceWeb}
	worker   = baton.Principal{Agent: "agent-bob", Profile: "worker", AgentType: "worker", Source: baton.SourceStdio}
)

// forceKit is newKit with force_release_claim, and read_messages for the
// holder to read what it was told.
func forceKit(t *testing.T) (*testkit.Kit, *testkit.Clock) {
	t.Helper()
	k, clk := newKit(t)
	reg := tool.NewRegistry(claims.ClaimItem, claims.ClaimNext, claims.RenewClaim, claims.ReleaseClaim, claims.ForceReleaseClaim,
		tasks.Create, tasks.Update, tasks.Get, tasks.NextActions, messaging.ReadMessages)
	k.Registry, k.Env.Registry = reg, reg
	return k, clk
}

// as is k acting as p.
func as(k *testkit.Kit, p baton.Principal) *testkit.Kit {
	c := *k
	c.Principal = p
	return &c
}

// lastAction is the newest entry of the action log.
func lastAction(k *testkit.Kit) *baton.Action {
	k.T.Helper()
	ctx := context.Background()
	var last *baton.Action
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		as, err := tx.Actions(ctx, 0, 100000)
		if len(as) > 0 {
			last = as[len(as)-1]
		}
		return err
	}); err != nil {
		k.T.Fatal(err)
	}
	return last
}

// TestForceReleaseActiveClaim: the operator ends alice's live claim. The
// item goes back to todo as alice's own release would leave it; alice is
// told who, why and what now in thread claim-ITEM; her next change under
// the old claim is ERR_CLAIMED naming the operator; bob can claim the item
// and work on it; the action log and the event stream have the call as the
// user's.
func TestForceReleaseActiveClaim(t *testing.T) {
	k, _ := forceKit(t)
	id := task(k, nil)
	claim(k, id, 0)
	op := as(k, operator)

	reason := "agent-alice's process died an hour ago"
	out := op.OK("force_release_claim", map[string]any{"item_id": id, "reason": reason})
	msgID, _ := out["message_id"].(string)
	if out["item_id"] != id || out["released"] != true || out["previous_holder"] != "agent-alice" || out["status"] != "todo" || msgID == "" {
		t.Fatalf("force_release_claim = %v", out)
	}
	if len(out) != 5 {
		t.Errorf("output has fields %v, want exactly item_id, released, previous_holder, status, message_id", out)
	}
	if c := claimOf(k, id); c != nil {
		t.Errorf("claim after a forced release = %+v", c)
	}
	if got := get(k, id); got["status"] != "todo" || got["assignee"] != "unassigned" {
		t.Errorf("after a forced release: %v assigned to %v, want todo and unassigned", got["status"], got["assignee"])
	}

	// Alice's inbox.
	var msgs struct {
		Messages []struct{ ID, AgentID, Recipient, Role, Body, ThreadID string }
	}
	b, _ := json.Marshal(k.OK("read_messages", map[string]any{"threadId": "claim-" + id}))
	_ = json.Unmarshal(b, &msgs)
	if len(msgs.Messages) != 1 {
		t.Fatalf("alice's messages in claim-%s: %+v", id, msgs.Messages)
	}
	m := msgs.Messages[0]
	if m.ID != msgID || m.AgentID != baton.User || m.Recipient != "agent-alice" || m.Role != baton.RoleUser || m.ThreadID != "claim-"+id {
		t.Errorf("message %+v, want %s from user to agent-alice in thread claim-%s", m, msgID, id)
	}
	for _, want := range []string{"user released your claim on " + id, reason, "ERR_CLAIMED", "claim_item"} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("message body %q does not say %q", m.Body, want)
		}
	}

	// Fencing: alice's changes under the old claim are refused.
	e := fail(k, "task_update", map[string]any{"task_id": id, "progress": 50}, baton.ErrClaimed)
	if e.Details["released_by"] != baton.User || e.Details["fenced"] != true || !strings.Contains(e.Message, "released by user") ||
		!strings.Contains(e.Hint, "claim-"+id) {
		t.Errorf("alice's update after the forced release: %+v", e)
	}
	fail(k, "renew_claim", map[string]any{"item_id": id}, baton.ErrClaimed)
	if got := get(k, id); got["progress"] != float64(0) {
		t.Errorf("the refused update was written: progress %v", got["progress"])
	}

	// Bob takes the item over.
	bob := k.As("agent-bob")
	c := claim(bob, id, 0)
	if c["holder"] != "agent-bob" || num(t, c["token"]) != 2 || c["status"] != "in_progress" {
		t.Errorf("bob's claim = %v, want his, token 2, in_progress", c)
	}
	update(bob, id, map[string]any{"progress": 10})
	fail(k, "task_update", map[string]any{"task_id": id, "progress": 60}, baton.ErrClaimed)

	// Alice's way back is claiming again, once bob lets go.
	bob.OK("release_claim", map[string]any{"item_id": id})
	claim(k, id, 0)
	update(k, id, map[string]any{"progress": 70})

	ctx := context.Background()
	var events []*baton.Event
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) { events, err = tx.Events(ctx, testkit.Project, 0, 1000); return err }); err != nil {
		t.Fatal(err)
	}
	var forced []*baton.Event
	for _, ev := range events {
		if ev.Type == "claim.force_released" {
			forced = append(forced, ev)
		}
	}
	if len(forced) != 1 || forced[0].Subject != id || forced[0].Agent != baton.User {
		t.Errorf("claim.force_released events: %+v, want one about %s by user", forced, id)
	}
	var logged []*baton.Action
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		as, err := tx.Actions(ctx, 0, 100000)
		for _, a := range as {
			if a.Tool == "force_release_claim" {
				logged = append(logged, a)
			}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(logged) != 1 || logged[0].Agent != baton.User || logged[0].Source != string(baton.SourceWeb) || logged[0].Subject != id {
		t.Errorf("action log: %+v, want one force_release_claim by user from the web about %s", logged, id)
	}
}

// TestForceReleaseLapsedClaim: a lapsed claim nobody reaped is ended the
// same way, and the holder is told it had lapsed.
func TestForceReleaseLapsedClaim(t *testing.T) {
	k, clk := forceKit(t)
	id := task(k, nil)
	claim(k, id, 30)
	clk.Advance(time.Minute)
	out := as(k, operator).OK("force_release_claim", map[string]any{"item_id": id, "reason": "stale"})
	if out["previous_holder"] != "agent-alice" || out["status"] != "todo" {
		t.Errorf("force_release_claim of a lapsed claim = %v", out)
	}
	msgs := k.OK("read_messages", map[string]any{"threadId": "claim-" + id})["messages"].([]any)
	if body := msgs[0].(map[string]any)["body"].(string); !strings.Contains(body, "had lapsed at") || !strings.Contains(body, "stale") {
		t.Errorf("message body %q, want it to say the claim had lapsed, and why it was released", body)
	}
	fail(k, "task_update", map[string]any{"task_id": id, "progress": 50}, baton.ErrClaimed)
	claim(k.As("agent-carol"), id, 0)
}

// TestForceReleaseRefused: no claim, no item, the caller's own claim, bad
// input; each changes nothing.
func TestForceReleaseRefused(t *testing.T) {
	k, _ := forceKit(t)
	op := as(k, operator)
	id := task(k, nil)

	e := fail(op, "force_release_claim", map[string]any{"item_id": id, "reason": "stale"}, baton.ErrNotFound)
	if e.Details["item_id"] != id || !strings.Contains(e.Message, "not claimed") {
		t.Errorf("no claim: %+v", e)
	}
	fail(op, "force_release_claim", map[string]any{"item_id": "COL-404", "reason": "stale"}, baton.ErrTaskNotFound)

	// One's own claim is given back with release_claim, unfenced.
	claim(op, id, 0)
	e = fail(op, "force_release_claim", map[string]any{"item_id": id, "reason": "mine"}, baton.ErrInvalidInput)
	if e.Details["constraint"] != "not_own_claim" || !strings.Contains(e.Hint, "release_claim") {
		t.Errorf("own claim: %+v", e)
	}
	if c := claimOf(k, id); c == nil || c.Holder != baton.User {
		t.Errorf("the refused call changed the claim: %+v", c)
	}
	op.OK("release_claim", map[string]any{"item_id": id})
	claim(k, id, 0)

	for _, tc := range []struct {
		name       string
		args       map[string]any
		field, con string
	}{
		{"reason missing", map[string]any{"item_id": id}, "reason", "required"},
		{"reason empty", map[string]any{"item_id": id, "reason": ""}, "reason", "minLength"},
		{"reason blank", map[string]any{"item_id": id, "reason": " \n"}, "reason", "pattern"},
		{"reason 1001", map[string]any{"item_id": id, "reason": strings.Repeat("r", 1001)}, "reason", "maxLength"},
		{"item_id missing", map[string]any{"reason": "stale"}, "item_id", "required"},
		{"item_id 129", map[string]any{"item_id": strings.Repeat("C", 129), "reason": "stale"}, "item_id", "maxLength"},
		{"holder argument", map[string]any{"item_id": id, "reason": "stale", "holder": "agent-alice"}, "holder", "additionalProperties"},
	} {
		t.Run(tc.name, func(t *testing.T) { invalid(op.On(t), "force_release_claim", tc.args, tc.field, tc.con) })
	}
	if c := claimOf(k, id); c == nil || c.Holder != "agent-alice" {
		t.Errorf("refused calls changed alice's claim: %+v", c)
	}
	op.OK("force_release_claim", map[string]any{"item_id": id, "reason": strings.Repeat("r", 1000)})
}

// TestForceReleaseIsTheOperators: force_release_claim is privileged: a
// worker neither lists nor calls it, nor does a session that names no
// profile; a profile the operator grants it to can; the dashboard can.
func TestForceReleaseIsTheOperators(t *testing.T) {
	k, _ := forceKit(t)
	id := task(k, nil)
	claim(k, id, 0)
	ctx := context.Background()
	s, err := k.Env.Scope(ctx, worker)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.Names(k.Registry), "force_release_claim") {
		t.Error("a worker lists force_release_claim")
	}
	args := map[string]any{"item_id": id, "reason": "I want it"}
	for _, p := range []baton.Principal{worker, {Agent: "agent-bob", Source: baton.SourceStdio, Preset: tool.PresetFull},
		{Agent: baton.User, Source: baton.SourceCLI}} {
		as(k, p).FailEnvelope("force_release_claim", args, baton.ErrPermissionDenied)
	}
	if c := claimOf(k, id); c == nil || c.Holder != "agent-alice" {
		t.Fatalf("refused calls changed the claim: %+v", c)
	}

	// An explicit grant: a janitor profile built on worker.
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.PutProfile(ctx, &baton.Profile{Name: "janitor", Extends: "worker", AllowedTools: []string{"force_release_claim", "get_issue"}})
	}); err != nil {
		t.Fatal(err)
	}
	janitor := baton.Principal{Agent: "agent-jan", Profile: "janitor", AgentType: "janitor", Source: baton.SourceStdio}
	out := as(k, janitor).OK("force_release_claim", args)
	if out["previous_holder"] != "agent-alice" {
		t.Errorf("the janitor's release = %v", out)
	}
	if a := lastAction(k); a.Agent != "agent-jan" || a.Tool != "force_release_claim" {
		t.Errorf("action log: %+v", a)
	}
}
