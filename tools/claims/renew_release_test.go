package claims_test

import (
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

func TestRenewClaim(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	first := claim(k, id, 120)
	now := clk.Advance(100 * time.Second)

	out := k.OK("renew_claim", map[string]any{"item_id": id})
	if out["item_id"] != id || out["holder"] != "agent-alice" || out["token"] != first["token"] {
		t.Errorf("renew_claim = %v, want item %s, holder agent-alice, token %v", out, id, first["token"])
	}
	// Renewal extends by the claim's own ttl from now.
	sameTime(t, "expires_at", out["expires_at"], now.Add(120*time.Second))
	if c := claimOf(k, id); !c.ExpiresAt.Equal(now.Add(120 * time.Second)) {
		t.Errorf("stored expiry %v, want %v", c.ExpiresAt, now.Add(120*time.Second))
	}
}

func TestRenewClaimRefused(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	fail(k, "renew_claim", map[string]any{"item_id": id}, baton.ErrNotFound)
	fail(k, "renew_claim", map[string]any{"item_id": "COL-404"}, baton.ErrTaskNotFound)

	claim(k, id, 0)
	e := fail(k.As("agent-bob"), "renew_claim", map[string]any{"item_id": id}, baton.ErrClaimed)
	if e.Details["holder"] != "agent-alice" {
		t.Errorf("details = %v, want holder agent-alice", e.Details)
	}
	if c := claimOf(k, id); c.Holder != "agent-alice" {
		t.Errorf("claim = %+v", c)
	}
}

func TestReleaseClaim(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	claim(k, id, 0)

	out := k.OK("release_claim", map[string]any{"item_id": id})
	if out["item_id"] != id || out["released"] != true || out["status"] != "todo" {
		t.Errorf("release_claim = %v, want released, status todo", out)
	}
	if got := get(k, id); got["status"] != "todo" || got["assignee"] != "unassigned" {
		t.Errorf("after release: %v assigned to %v, want todo and unassigned", got["status"], got["assignee"])
	}
	if c := claimOf(k, id); c != nil {
		t.Errorf("claim after release = %+v", c)
	}
	fail(k, "release_claim", map[string]any{"item_id": id}, baton.ErrNotFound)
	fail(k, "release_claim", map[string]any{"item_id": "COL-404"}, baton.ErrTaskNotFound)

	// Released work is anyone's again.
	if out := claim(k.As("agent-bob"), id, 0); out["holder"] != "agent-bob" {
		t.Errorf("claim after release = %v", out)
	}
}

func TestReleaseClaimByAnother(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	claim(k, id, 0)
	e := fail(k.As("agent-bob"), "release_claim", map[string]any{"item_id": id}, baton.ErrClaimed)
	if e.Details["holder"] != "agent-alice" {
		t.Errorf("details = %v", e.Details)
	}
	if c := claimOf(k, id); c == nil || c.Holder != "agent-alice" {
		t.Errorf("claim after a refused release = %+v", c)
	}
}

// TestReleaseKeepsStatusTheHolderSet: release only undoes what the claim
// did; work the holder moved on (to review) stays where it is.
func TestReleaseKeepsStatusTheHolderSet(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	claim(k, id, 0)
	update(k, id, map[string]any{"status": "review"})
	if out := k.OK("release_claim", map[string]any{"item_id": id}); out["status"] != "review" {
		t.Errorf("release of an item in review: status %v, want review", out["status"])
	}
	if got := get(k, id); got["assignee"] != "agent-alice" {
		t.Errorf("assignee after release of reviewed work = %v, want agent-alice kept", got["assignee"])
	}
}

func TestFencingTokensGrow(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	alice, bob := k, k.As("agent-bob")

	if tok := num(t, claim(alice, id, 30)["token"]); tok != 1 {
		t.Fatalf("first claim token = %d, want 1", tok)
	}
	alice.OK("release_claim", map[string]any{"item_id": id})
	if tok := num(t, claim(alice, id, 30)["token"]); tok != 2 {
		t.Fatalf("claim after release token = %d, want 2", tok)
	}
	clk.Advance(31 * time.Second)
	if tok := num(t, claim(bob, id, 30)["token"]); tok != 3 {
		t.Fatalf("claim after expiry by another agent token = %d, want 3", tok)
	}
	// A renewal is the same claim: same token.
	if tok := num(t, bob.OK("renew_claim", map[string]any{"item_id": id})["token"]); tok != 3 {
		t.Errorf("renewal token = %d, want 3", tok)
	}
	// Tokens are per item.
	other := task(k, nil)
	if tok := num(t, claim(alice, other, 30)["token"]); tok != 1 {
		t.Errorf("first claim of another item token = %d, want 1", tok)
	}
}
