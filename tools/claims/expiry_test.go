package claims_test

import (
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestExpiredClaimIsTakenOver(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	alice, bob := k, k.As("agent-bob")
	claim(alice, id, 30)

	// One millisecond before expiry the lease still holds.
	clk.Advance(30*time.Second - time.Millisecond)
	fail(bob, "claim_item", map[string]any{"item_id": id}, baton.ErrClaimed)

	now := clk.Advance(time.Millisecond)
	out := claim(bob, id, 60)
	if out["holder"] != "agent-bob" || num(t, out["token"]) != 2 || out["status"] != "in_progress" {
		t.Errorf("claim after expiry = %v, want bob holding token 2, in_progress", out)
	}
	sameTime(t, "claimed_at", out["claimed_at"], now)
	if got := get(k, id); got["assignee"] != "agent-bob" {
		t.Errorf("assignee = %v, want the new holder agent-bob", got["assignee"])
	}

	// The superseded holder is fenced out.
	e := fail(alice, "task_update", map[string]any{"task_id": id, "progress": 50}, baton.ErrClaimed)
	if e.Details["holder"] != "agent-bob" {
		t.Errorf("stale holder's update: details %v, want holder agent-bob", e.Details)
	}
	e = fail(alice, "renew_claim", map[string]any{"item_id": id}, baton.ErrClaimed)
	if e.Details["holder"] != "agent-bob" {
		t.Errorf("stale holder's renew: details %v, want holder agent-bob", e.Details)
	}
	fail(alice, "release_claim", map[string]any{"item_id": id}, baton.ErrClaimed)
	if got := get(k, id); num(t, got["progress"]) != 0 {
		t.Errorf("the stale update got through: progress %v", got["progress"])
	}
}

// TestLapsedClaimFencesItsHolder: a lapsed lease refuses its own holder's
// writes even when nobody else took over, because someone might have
// worked on the item meanwhile; claiming again restores the right to write.
func TestLapsedClaimFencesItsHolder(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	claim(k, id, 30)
	clk.Advance(31 * time.Second)

	e := fail(k, "task_update", map[string]any{"task_id": id, "progress": 10}, baton.ErrClaimed)
	if num(t, e.Details["token"]) != 1 {
		t.Errorf("lapsed error details = %v, want token 1", e.Details)
	}
	fail(k, "renew_claim", map[string]any{"item_id": id}, baton.ErrClaimed)

	out := claim(k, id, 30)
	if num(t, out["token"]) != 2 {
		t.Errorf("re-claim after lapse token = %v, want a new claim (2)", out["token"])
	}
	update(k, id, map[string]any{"progress": 10})
}

func TestLazyExpiry(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	claim(k, id, 30)
	bob := k.As("agent-bob")

	if next := nextActions(k); slices.Contains(next, id) {
		t.Fatalf("task_next_actions lists %s while it is claimed: %v", id, next)
	}
	if out := bob.OK("claim_next", nil); out["claimed"] != false {
		t.Fatalf("claim_next took a claimed item: %v", out)
	}

	clk.Advance(31 * time.Second)
	// No reaper has run: the lapsed claim is still stored, yet the queue
	// already treats its item as todo again.
	if claimOf(k, id) == nil {
		t.Fatal("the lapsed claim is gone before anything reaped it")
	}
	if next := nextActions(k); !slices.Contains(next, id) {
		t.Errorf("task_next_actions after the lease lapsed = %v, want %s listed again", next, id)
	}

	out := bob.OK("claim_next", nil)
	if out["claimed"] != true || out["item_id"] != id || out["holder"] != "agent-bob" || num(t, out["token"]) != 2 {
		t.Errorf("claim_next after the lease lapsed = %v, want bob claiming %s with token 2", out, id)
	}
	if c := claimOf(k, id); c == nil || c.Holder != "agent-bob" {
		t.Errorf("claim = %+v", c)
	}
}

// TestClaimNextReapsLapsedClaims: claim_next ends every lapsed claim it
// finds, returning items the claims had started to the queue.
func TestClaimNextReapsLapsedClaims(t *testing.T) {
	k, clk := newKit(t)
	a, b := task(k, nil), task(k, map[string]any{"priority": "low"})
	claim(k, a, 30)
	claim(k, b, 30)
	clk.Advance(time.Minute)

	out := k.As("agent-bob").OK("claim_next", nil)
	if out["item_id"] != a {
		t.Errorf("claim_next = %v, want %s", out, a)
	}
	if c := claimOf(k, b); c != nil {
		t.Errorf("lapsed claim on %s was not reaped: %+v", b, c)
	}
	if got := get(k, b); got["status"] != "todo" || got["assignee"] != "unassigned" {
		t.Errorf("reaped item %s is %v assigned to %v, want todo unassigned", b, got["status"], got["assignee"])
	}
}

func nextActions(k *testkit.Kit) []string {
	k.T.Helper()
	out := k.OK("task_next_actions", map[string]any{"project": testkit.Project})
	var ids []string
	for _, a := range out["next_actions"].([]any) {
		ids = append(ids, a.(map[string]any)["task_id"].(string))
	}
	return ids
}

// TestUpdateOverLapsedClaimKeepsItemQueued: another agent's update of an
// item whose lease lapsed must not strand it. The queue already shows the
// item as todo again; an unrelated update (a priority change) must leave it
// there, claimable, rather than in_progress with a holder who is gone.
// (Regression: checkClaim used to delete the lapsed claim but keep the
// in_progress status and assignee it had set, stranding the item.)
func TestUpdateOverLapsedClaimKeepsItemQueued(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	claim(k, id, 30)
	clk.Advance(31 * time.Second)
	if next := nextActions(k); !slices.Contains(next, id) {
		t.Fatalf("precondition: the lapsed item is not queued: %v", next)
	}

	update(k.As("agent-bob"), id, map[string]any{"priority": "high"})

	if next := nextActions(k); !slices.Contains(next, id) {
		got := get(k, id)
		t.Errorf("after bob's priority change %s left the queue: it is %v assigned to %v with claim %+v; want todo, unassigned, queued",
			id, got["status"], got["assignee"], claimOf(k, id))
	}
	if got := next(k.As("agent-carol"), nil); got != id {
		t.Errorf("claim_next after bob's update = %q, want %s", got, id)
	}
}
