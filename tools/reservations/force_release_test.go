package reservations_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

const force = "force_release_file_reservation"

var operator = baton.Principal{Agent: baton.User, Source: baton.SourceCLI}

// as is k acting as p.
func as(k *testkit.Kit, p baton.Principal) *testkit.Kit {
	c := *k
	c.Principal = p
	return &c
}

// inbox is what agent finds in thread.
func inbox(k *testkit.Kit, agent, thread string) []map[string]any {
	k.T.Helper()
	return maps(k.T, k.As(agent).OK("read_messages", map[string]any{"threadId": thread})["messages"])
}

// TestForceReleaseActiveHolderRefused: an agent cannot take the paths of
// a holder that is still about: heard from within 30 minutes (a call or
// a session's heartbeat) and, for a reservation taken for an item, still
// holding its claim. The refusal says why and to message the holder.
func TestForceReleaseActiveHolderRefused(t *testing.T) {
	k, clk := newKit(t)
	bob := k.As("agent-bob")
	item := claimed(bob, 3600)
	linked := reserve(bob, []string{"src/**"}, map[string]any{"reason": "refactor", "ttl_seconds": 7200})[0]
	rid := id(t, linked["file_reservation_id"])

	clk.Advance(29*time.Minute + 59*time.Second)
	e := fail(k, force, map[string]any{"file_reservation_id": rid, "note": "mine now"}, baton.ErrConflict)
	for _, want := range []string{"looks active", "agent-bob", "src/**", "29m ago", baton.Timestamp(epoch), "claim on " + item} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("refusal %q does not say %q", e.Message, want)
		}
	}
	if e.Details["holder"] != "agent-bob" || e.Details["item_claimed"] != true || e.Details["item_id"] != item ||
		!stamp(t, e.Details["last_seen"]).Equal(epoch) || !stamp(t, e.Details["stale_at"]).Equal(epoch.Add(30*time.Minute)) {
		t.Errorf("details = %v", e.Details)
	}
	if !strings.Contains(e.Hint, "send_message") || !strings.Contains(e.Hint, fmt.Sprintf("reservation-%d", rid)) {
		t.Errorf("hint %q does not say to message the holder", e.Hint)
	}
	if r := reservation(k, rid); !r.Active(clk.Peek()) {
		t.Fatalf("refused force released it: %+v", r)
	}
	if n := len(inbox(k, "agent-bob", fmt.Sprintf("reservation-%d", rid))); n != 0 {
		t.Errorf("bob was messaged %d times by a refused call", n)
	}

	// A live MCP session counts as being there, whatever the calls.
	unlinked := reserve(k.As("agent-carol"), []string{"docs/**"}, nil)[0]
	at := clk.Advance(40 * time.Minute)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.TouchSession(ctx, &baton.SessionPresence{ID: "s-carol", Agent: "agent-carol", ConnectedAt: at.Add(-time.Hour),
			LastSeen: at.Add(-time.Minute)})
	}); err != nil {
		t.Fatal(err)
	}
	e = fail(k, force, map[string]any{"file_reservation_id": id(t, unlinked["file_reservation_id"])}, baton.ErrConflict)
	if !strings.Contains(e.Message, "1m ago") || e.Details["item_claimed"] != false {
		t.Errorf("refusal for carol with a live session: %q %v", e.Message, e.Details)
	}
}

// TestForceReleaseStaleHolder: after 30 minutes of silence an agent may
// end the reservation: it is released by the caller, the holder is told
// who, what and why in thread reservation-ID, the paths are free, and
// the action log has the call.
func TestForceReleaseStaleHolder(t *testing.T) {
	k, clk := newKit(t)
	bob := k.As("agent-bob")
	g := reserve(bob, []string{"src/**"}, map[string]any{"ttl_seconds": 7200})[0]
	rid := id(t, g["file_reservation_id"])
	at := clk.Advance(30 * time.Minute)

	out := k.OK(force, map[string]any{"file_reservation_id": rid, "note": "bob's process died"})
	msgID, _ := out["message_id"].(string)
	if id(t, out["file_reservation_id"]) != rid || out["path_pattern"] != "src/**" || out["previous_holder"] != "agent-bob" ||
		!stamp(t, out["released_at"]).Equal(at) || out["notified"] != true || msgID == "" {
		t.Fatalf("force = %v", out)
	}
	if r := reservation(k, rid); !r.ReleasedAt.Equal(at) || r.ReleasedBy != "agent-alice" {
		t.Errorf("stored %+v, want released by alice", r)
	}
	ms := inbox(k, "agent-bob", fmt.Sprintf("reservation-%d", rid))
	if len(ms) != 1 {
		t.Fatalf("bob's thread reservation-%d = %v, want one message", rid, ms)
	}
	m := ms[0]
	if m["id"] != msgID || m["agentId"] != "agent-alice" || m["recipient"] != "agent-bob" || m["role"] != "agent" {
		t.Errorf("message %v", m)
	}
	for _, want := range []string{"agent-alice", "src/**", "bob's process died", "30m ago", "file_reservation_paths"} {
		if !strings.Contains(m["body"].(string), want) {
			t.Errorf("message body %q does not say %q", m["body"], want)
		}
	}
	reserve(k, []string{"src/main.go"}, nil)

	var last string
	if err := k.Store.View(context.Background(), func(tx baton.Tx) error {
		as, err := tx.Actions(context.Background(), 0, 100000)
		for _, a := range as {
			if a.Tool == force {
				last = a.Agent
			}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if last != "agent-alice" {
		t.Errorf("the force is in the action log as %q's, want agent-alice's", last)
	}
}

// TestForceReleaseUnclaimedItem: a reservation taken for an item whose
// claim its holder no longer holds (here: lapsed, not yet reaped) is
// stale, however recently the holder was heard from.
func TestForceReleaseUnclaimedItem(t *testing.T) {
	k, clk := newKit(t)
	bob := k.As("agent-bob")
	item := claimed(bob, 30)
	g := reserve(bob, []string{"src/**"}, nil)[0]
	if g["issue_id"] != item {
		t.Fatalf("grant %v, want linked to %s", g, item)
	}
	clk.Advance(time.Minute)
	out := k.OK(force, map[string]any{"file_reservation_id": id(t, g["file_reservation_id"])})
	if out["previous_holder"] != "agent-bob" {
		t.Errorf("force = %v", out)
	}
	ms := inbox(k, "agent-bob", fmt.Sprintf("reservation-%d", id(t, g["file_reservation_id"])))
	if len(ms) != 1 || !strings.Contains(ms[0]["body"].(string), "no longer hold a claim on "+item) {
		t.Errorf("message %v does not say the claim is gone", ms)
	}
}

// TestForceReleaseByUser: the human may end any reservation, active or
// not; without notify_previous nobody is messaged.
func TestForceReleaseByUser(t *testing.T) {
	k, _ := newKit(t)
	bob := k.As("agent-bob")
	a := reserve(bob, []string{"a/**"}, nil)[0]
	b := reserve(bob, []string{"b/**"}, nil)[0]
	op := as(k, operator)

	out := op.OK(force, map[string]any{"file_reservation_id": id(t, a["file_reservation_id"]), "note": "reassigning"})
	if out["notified"] != true {
		t.Errorf("force by the user = %v", out)
	}
	ms := inbox(k, "agent-bob", fmt.Sprintf("reservation-%d", id(t, a["file_reservation_id"])))
	if len(ms) != 1 || ms[0]["agentId"] != baton.User || ms[0]["role"] != "user" || !strings.Contains(ms[0]["body"].(string), "reassigning") {
		t.Errorf("messages %v", ms)
	}
	out = op.OK(force, map[string]any{"file_reservation_id": id(t, b["file_reservation_id"]), "notify_previous": false})
	if out["notified"] != false || out["message_id"] != nil {
		t.Errorf("force without notice = %v", out)
	}
	if ms := inbox(k, "agent-bob", fmt.Sprintf("reservation-%d", id(t, b["file_reservation_id"]))); len(ms) != 0 {
		t.Errorf("bob was told: %v", ms)
	}
	if r := reservation(k, id(t, b["file_reservation_id"])); r.ReleasedBy != baton.User {
		t.Errorf("released by %q, want user", r.ReleasedBy)
	}
}

// TestForceReleaseRefusals: one's own reservation, one that ended, an
// unknown id and an oversized note are refused, with what to do.
func TestForceReleaseRefusals(t *testing.T) {
	k, clk := newKit(t)
	own := reserve(k, []string{"a/**"}, nil)[0]
	e := invalid(k, force, map[string]any{"file_reservation_id": id(t, own["file_reservation_id"])}, "file_reservation_id", "not_own_reservation")
	if !strings.Contains(e.Hint, "release_file_reservations") {
		t.Errorf("hint %q", e.Hint)
	}
	bob := k.As("agent-bob")
	gone := reserve(bob, []string{"b/**"}, nil)[0]
	bob.OK("release_file_reservations", nil)
	clk.Advance(time.Hour)
	e = invalid(k, force, map[string]any{"file_reservation_id": id(t, gone["file_reservation_id"])}, "file_reservation_id", "active")
	if !strings.Contains(e.Message, "agent-bob released it") {
		t.Errorf("refusal %q does not say who ended it", e.Message)
	}
	fail(k, force, map[string]any{"file_reservation_id": 9999}, baton.ErrNotFound)
	invalid(k, force, map[string]any{"file_reservation_id": 1, "note": strings.Repeat("n", 1001)}, "note", "maxLength")
	invalid(k, force, map[string]any{"file_reservation_id": 0}, "file_reservation_id", "minimum")
}
