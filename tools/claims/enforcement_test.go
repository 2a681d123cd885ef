package claims_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/claims"
	"github.com/baton-dev/baton/tools/issues"
	"github.com/baton-dev/baton/tools/tasks"
)

// TestHolderActivityRenews: the holder's own task updates keep the lease
// alive, so an agent that keeps working never loses its claim.
func TestHolderActivityRenews(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, nil)
	claim(k, id, 60)
	for range 3 {
		now := clk.Advance(50 * time.Second)
		update(k, id, map[string]any{"progress": 10})
		if c := claimOf(k, id); c == nil || !c.ExpiresAt.Equal(now.Add(60*time.Second)) {
			t.Fatalf("after the holder's update at %s the claim is %+v, want expiry %s", now, c, now.Add(60*time.Second))
		}
	}
	// 150s after claiming with a 60s ttl, the lease still holds.
	fail(k.As("agent-bob"), "claim_item", map[string]any{"item_id": id}, baton.ErrClaimed)
	if out := claim(k, id, 60); num(t, out["token"]) != 1 {
		t.Errorf("token = %v, want the original claim", out["token"])
	}
}

func TestUpdateByAnotherRefused(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	claim(k, id, 0)
	bob := k.As("agent-bob")
	for _, args := range []map[string]any{
		{"progress": 40},
		{"status": "review"},
		{"status": "cancelled"},
		{"assignee": "agent-bob"},
	} {
		a := map[string]any{"task_id": id}
		for key, v := range args {
			a[key] = v
		}
		e := fail(bob, "task_update", a, baton.ErrClaimed)
		if e.Details["holder"] != "agent-alice" || !strings.Contains(e.Message, "agent-alice") {
			t.Errorf("task_update %v by bob: %v / %q, want the holder agent-alice named", args, e.Details, e.Message)
		}
	}
	got := get(k, id)
	if got["status"] != "in_progress" || got["assignee"] != "agent-alice" || num(t, got["progress"]) != 0 {
		t.Errorf("refused updates changed the task: %v", got)
	}
}

func TestFinishingClearsClaim(t *testing.T) {
	k, _ := newKit(t)
	done := task(k, nil)
	claim(k, done, 0)
	update(k, done, map[string]any{"status": "review"})
	if claimOf(k, done) == nil {
		t.Fatal("moving to review ended the claim; only done or cancelled should")
	}
	update(k, done, map[string]any{"status": "done"})
	if c := claimOf(k, done); c != nil {
		t.Errorf("claim after done = %+v, want none", c)
	}

	cancelled := task(k, nil)
	claim(k, cancelled, 0)
	update(k, cancelled, map[string]any{"status": "cancelled"})
	if c := claimOf(k, cancelled); c != nil {
		t.Errorf("claim after cancelled = %+v, want none", c)
	}
	fail(k, "release_claim", map[string]any{"item_id": done}, baton.ErrNotFound)
}

// TestUnclaimedItemsStayOpen: claims are opt-in; without one anyone may
// update an item as before.
func TestUnclaimedItemsStayOpen(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	update(k.As("agent-bob"), id, map[string]any{"progress": 5})
	update(k.As("agent-carol"), id, map[string]any{"progress": 6})
}

// TestHolderRecordsRenew: recording work on a claimed item (a finding, a
// comment) renews the holder's lease; someone else's records do not.
func TestHolderRecordsRenew(t *testing.T) {
	k, clock := newKit(t)
	reg := tool.NewRegistry(claims.ClaimItem, tasks.Create, tasks.Update, issues.AddFinding, issues.AddComment)
	call := func(agent, name, args string) tool.Result {
		p := k.Principal
		p.Agent = agent
		return reg.Call(context.Background(), k.Env, p, name, json.RawMessage(args))
	}
	call("agent-alice", "task_create", `{"title":"x","project":"colibri"}`)
	call("agent-alice", "task_update", `{"task_id":"COL-1","status":"todo"}`)
	if res := call("agent-alice", "claim_item", `{"item_id":"COL-1","ttl_seconds":60}`); res.Err != nil {
		t.Fatal(res.Text)
	}
	expiry := func() time.Time {
		var c *baton.Claim
		_ = k.Store.View(context.Background(), func(tx baton.Tx) (err error) {
			c, err = tx.ClaimOf(context.Background(), "COL-1")
			return err
		})
		return c.ExpiresAt
	}
	first := expiry()
	clock.Advance(40 * time.Second)
	if res := call("agent-bob", "add_comment", `{"issue_id":"COL-1","content":"looks stuck"}`); res.Err != nil {
		t.Fatal(res.Text)
	}
	if !expiry().Equal(first) {
		t.Fatal("another agent's comment renewed the holder's lease")
	}
	if res := call("agent-alice", "add_finding", `{"issue_id":"COL-1","category":"bug","summary":"found it"}`); res.Err != nil {
		t.Fatal(res.Text)
	}
	if got, want := expiry(), clock.Now().Add(60*time.Second); !got.Equal(want.Truncate(time.Millisecond)) {
		t.Fatalf("after the holder's finding the lease ends %v, want %v", got, want)
	}
}
