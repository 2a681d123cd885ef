package claims_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/claims"
	"github.com/baton-dev/baton/tools/tasks"

	"github.com/baton-dev/baton"
)

func TestClaimItemStartsTodoTask(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	now := clk.Advance(time.Minute)

	out := claim(k, id, 0)
	if out["item_id"] != id || out["holder"] != "agent-alice" || out["status"] != "in_progress" {
		t.Errorf("claim_item = %v, want item %s held by agent-alice, in_progress", out, id)
	}
	if num(t, out["token"]) != 1 {
		t.Errorf("first token = %v, want 1", out["token"])
	}
	sameTime(t, "claimed_at", out["claimed_at"], now)
	// No ttl_seconds: the server's TTL.
	sameTime(t, "expires_at", out["expires_at"], now.Add(baton.DefaultClaimTTL))

	got := get(k, id)
	if got["status"] != "in_progress" || got["assignee"] != "agent-alice" {
		t.Errorf("after claim the task is %v assigned to %v, want in_progress assigned to agent-alice", got["status"], got["assignee"])
	}
	c := claimOf(k, id)
	if c == nil || c.Holder != "agent-alice" || c.Token != 1 || !c.ExpiresAt.Equal(now.Add(baton.DefaultClaimTTL)) {
		t.Errorf("stored claim = %+v", c)
	}
}

func TestClaimItemTTL(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	out := claim(k, id, 90)
	sameTime(t, "expires_at", out["expires_at"], clk.Now().Add(90*time.Second))
}

// TestClaimItemHolderIsCaller: the holder comes from the session, and
// there is no argument to claim on someone else's behalf.
func TestClaimItemHolderIsCaller(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	if out := claim(k.As("agent-bob"), id, 0); out["holder"] != "agent-bob" {
		t.Errorf("holder = %v, want the caller agent-bob", out["holder"])
	}
	e := fail(k, "claim_item", map[string]any{"item_id": id, "holder": "agent-carol"}, baton.ErrInvalidInput)
	if e.Details["field"] != "holder" {
		t.Errorf("holder argument: details %v, want it refused as an unknown field", e.Details)
	}
}

func TestClaimItemAgainRenews(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	first := claim(k, id, 60)
	now := clk.Advance(45 * time.Second)
	again := claim(k, id, 60)
	if again["token"] != first["token"] {
		t.Errorf("re-claim by the holder: token %v, want the same %v", again["token"], first["token"])
	}
	if again["claimed_at"] != first["claimed_at"] {
		t.Errorf("re-claim moved claimed_at from %v to %v; it renews, it does not start a new claim", first["claimed_at"], again["claimed_at"])
	}
	sameTime(t, "renewed expires_at", again["expires_at"], now.Add(60*time.Second))
	if !stamp(t, again["expires_at"]).After(stamp(t, first["expires_at"])) {
		t.Errorf("re-claim did not extend the lease: %v then %v", first["expires_at"], again["expires_at"])
	}
	if again["status"] != "in_progress" {
		t.Errorf("status = %v", again["status"])
	}
}

// TestClaimItemAgainUsesRequestedTTL: a holder that claims again with a
// ttl_seconds gets that lease, as on a first claim.
// (Regression: Claim used to extend by the first claim's stored ttl and
// drop this call's silently.)
func TestClaimItemAgainUsesRequestedTTL(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	claim(k, id, 60)
	now := clk.Advance(10 * time.Second)
	out := claim(k, id, 3600)
	sameTime(t, "expires_at after re-claiming with ttl_seconds 3600", out["expires_at"], now.Add(time.Hour))
	if t.Failed() {
		return
	}
	// Later renewals keep the lease length last asked for.
	now = clk.Advance(30 * time.Minute)
	renewed := k.OK("renew_claim", map[string]any{"item_id": id})
	sameTime(t, "expires_at after renew", renewed["expires_at"], now.Add(time.Hour))
}

func TestClaimItemHeldByAnother(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	out := claim(k, id, 0)
	clk.Advance(time.Minute)

	e := fail(k.As("agent-bob"), "claim_item", map[string]any{"item_id": id}, baton.ErrClaimed)
	if e.Details["holder"] != "agent-alice" || e.Details["item_id"] != id {
		t.Errorf("ERR_CLAIMED details = %v, want holder agent-alice and item_id %s", e.Details, id)
	}
	sameTime(t, "details.expires_at", e.Details["expires_at"], stamp(t, out["expires_at"]))
	if e.Type != "claimed" {
		t.Errorf("type = %q", e.Type)
	}
	// The failed attempt changed nothing.
	if c := claimOf(k, id); c.Holder != "agent-alice" || c.Token != 1 {
		t.Errorf("claim after a refused claim = %+v", c)
	}
	if got := get(k, id); got["assignee"] != "agent-alice" {
		t.Errorf("assignee = %v", got["assignee"])
	}
}

// TestClaimItemLeavesOtherStatuses: only a todo item is started by a
// claim; the lease still protects items in other states.
func TestClaimItemLeavesOtherStatuses(t *testing.T) {
	k, _ := newKit(t)
	id := k.OK("task_create", map[string]any{"project": "colibri", "title": "backlog item"})["task_id"].(string)
	if out := claim(k, id, 0); out["status"] != "backlog" {
		t.Errorf("claiming a backlog item: status %v, want it left in backlog", out["status"])
	}
	if got := get(k, id); got["assignee"] != "unassigned" {
		t.Errorf("claiming a backlog item assigned it to %v", got["assignee"])
	}
	fail(k.As("agent-bob"), "claim_item", map[string]any{"item_id": id}, baton.ErrClaimed)
}

func TestClaimItemErrors(t *testing.T) {
	k, _ := newKit(t)
	fail(k, "claim_item", map[string]any{"item_id": "COL-404"}, baton.ErrTaskNotFound)

	done := task(k, nil)
	for _, s := range []string{"in_progress", "review", "done"} {
		update(k, done, map[string]any{"status": s})
	}
	e := fail(k, "claim_item", map[string]any{"item_id": done}, baton.ErrConflict)
	if e.Details["status"] != "done" {
		t.Errorf("ERR_CONFLICT details = %v", e.Details)
	}
	cancelled := task(k, nil)
	update(k, cancelled, map[string]any{"status": "cancelled"})
	fail(k, "claim_item", map[string]any{"item_id": cancelled}, baton.ErrConflict)
	if c := claimOf(k, done); c != nil {
		t.Errorf("a refused claim was stored: %+v", c)
	}
}

// TestServerClaimTTL: the server's --claim-ttl (Env.ClaimTTL) is the lease
// a claim gets unless the call asks for one.
func TestServerClaimTTL(t *testing.T) {
	k := testkit.New(t)
	k.Env.ClaimTTL = 2 * time.Minute
	reg := tool.NewRegistry(claims.ClaimItem, tasks.Create, tasks.Update)
	call := func(name, args string) tool.Result {
		return reg.Call(context.Background(), k.Env, k.Principal, name, json.RawMessage(args))
	}
	call("task_create", `{"title":"x","project":"colibri"}`)
	call("task_update", `{"task_id":"COL-1","status":"todo"}`)
	res := call("claim_item", `{"item_id":"COL-1"}`)
	if res.Err != nil {
		t.Fatal(res.Text)
	}
	out := testkit.Decode(t, res.Output)
	claimed, _ := time.Parse(time.RFC3339, out["claimed_at"].(string))
	expires, _ := time.Parse(time.RFC3339, out["expires_at"].(string))
	if d := expires.Sub(claimed); d != 2*time.Minute {
		t.Fatalf("lease = %v, want the server's 2m", d)
	}
}
