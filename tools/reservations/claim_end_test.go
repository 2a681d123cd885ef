package reservations_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestClaimEndReleasesReservations: however the claim on an item ends,
// the reservations its holder took for the item end with it, at the same
// instant and by "claim"; the holder's other reservations, and other
// agents', stay. get_issue shows the item's reservations while they hold.
func TestClaimEndReleasesReservations(t *testing.T) {
	ends := []struct {
		name string
		end  func(k *testkit.Kit, clk *testkit.Clock, item string) time.Time
	}{
		{"release_claim", func(k *testkit.Kit, clk *testkit.Clock, item string) time.Time {
			k.OK("release_claim", map[string]any{"item_id": item})
			return clk.Peek()
		}},
		{"done", func(k *testkit.Kit, clk *testkit.Clock, item string) time.Time {
			// review is not the end of the work: the claim and its
			// reservations stay until the item is done.
			k.OK("update_issue_status", map[string]any{"issue_id": item, "status": "review", "reason": "ready"})
			if n := len(k.OK("get_issue", map[string]any{"issue_id": item})["file_reservations"].([]any)); n != 2 {
				t.Errorf("in review: get_issue shows %d reservations, want 2", n)
			}
			clk.Advance(time.Second)
			k.OK("task_update", map[string]any{"task_id": item, "status": "done"})
			return clk.Peek()
		}},
		{"close_bead", func(k *testkit.Kit, clk *testkit.Clock, item string) time.Time {
			k.OK("close_bead", map[string]any{"id": item, "reason": "not needed"})
			return clk.Peek()
		}},
		{"force_release_claim", func(k *testkit.Kit, clk *testkit.Clock, item string) time.Time {
			op := *k
			op.Principal = baton.Principal{Agent: baton.User, Source: baton.SourceWeb}
			op.OK("force_release_claim", map[string]any{"item_id": item, "reason": "reassigning"})
			return clk.Peek()
		}},
		{"lapse, reaped", func(k *testkit.Kit, clk *testkit.Clock, item string) time.Time {
			at := clk.Advance(20 * time.Minute) // past the claim's 15-minute lease, within the reservations' hour
			ctx := context.Background()
			if err := k.Store.Update(ctx, func(tx baton.Tx) error {
				n, err := tx.ReapClaims(ctx, at)
				if err == nil && n != 1 {
					t.Errorf("ReapClaims ended %d claims, want 1", n)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return at
		}},
	}
	for _, tc := range ends {
		t.Run(tc.name, func(t *testing.T) {
			k, clk := newKit(t)
			k = k.On(t)
			item := claimed(k, 900)
			linked := reserve(k, []string{"src/**", "go.mod"}, nil)
			if linked[0]["issue_id"] != item || linked[1]["issue_id"] != item {
				t.Fatalf("grants %v, want linked to %s", linked, item)
			}
			other := claimed(k, 3600) // a second claim: what follows is unlinked
			unlinked := reserve(k, []string{"docs/**"}, nil)[0]
			bobs := reserve(k.As("agent-bob"), []string{"web/**"}, nil)[0]
			view := k.OK("get_issue", map[string]any{"issue_id": item})["file_reservations"]
			if rs := maps(t, view); len(rs) != 2 || rs[0]["agent"] != "agent-alice" || rs[0]["path_pattern"] != "src/**" ||
				rs[0]["exclusive"] != true || id(t, rs[0]["file_reservation_id"]) != id(t, linked[0]["file_reservation_id"]) ||
				!stamp(t, rs[0]["expires_at"]).Equal(epoch.Add(time.Hour)) || rs[1]["path_pattern"] != "go.mod" {
				t.Errorf("get_issue file_reservations = %v", view)
			}
			if rs := maps(t, k.OK("get_issue", map[string]any{"issue_id": other})["file_reservations"]); len(rs) != 0 {
				t.Errorf("get_issue of %s shows %v", other, rs)
			}
			clk.Advance(time.Minute)

			at := tc.end(k, clk, item)
			for _, g := range linked {
				r := reservation(k, id(t, g["file_reservation_id"]))
				if !r.ReleasedAt.Equal(at) || r.ReleasedBy != "claim" {
					t.Errorf("%s: released %v by %q, want %v by claim", r.Pattern, r.ReleasedAt, r.ReleasedBy, at)
				}
			}
			for _, g := range []map[string]any{unlinked, bobs} {
				if r := reservation(k, id(t, g["file_reservation_id"])); !r.Active(at) {
					t.Errorf("%s of %s ended with another claim: %+v", r.Pattern, r.Agent, r)
				}
			}
			if rs := maps(t, k.OK("get_issue", map[string]any{"issue_id": item})["file_reservations"]); len(rs) != 0 {
				t.Errorf("after the claim ended get_issue shows %v", rs)
			}
			// The paths are free for others.
			reserve(k.As("agent-bob"), []string{"src/main.go"}, nil)
		})
	}
}

// TestClaimEndReleaseIsOneTransaction: the reservations end in the
// transaction that ends the claim: inside it they are released, and when
// it rolls back, the claim and its reservations are both still there.
func TestClaimEndReleaseIsOneTransaction(t *testing.T) {
	k, clk := newKit(t)
	item := claimed(k, 0)
	g := reserve(k, []string{"src/**"}, nil)[0]
	rid := id(t, g["file_reservation_id"])
	ctx := context.Background()
	rollback := errors.New("roll back")
	err := k.Store.Update(ctx, func(tx baton.Tx) error {
		if err := tx.ReleaseClaim(ctx, item, "agent-alice", clk.Peek()); err != nil {
			return err
		}
		r, err := tx.Reservation(ctx, rid)
		if err != nil {
			return err
		}
		if r.ReleasedAt.IsZero() || r.ReleasedBy != "claim" {
			t.Errorf("inside the claim's release: %+v, want released by claim", r)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("Update = %v, want the rollback", err)
	}
	if r := reservation(k, rid); !r.Active(clk.Peek()) {
		t.Errorf("after the rollback: %+v, want still active", r)
	}
	if c := k.Count("SELECT COUNT(*) FROM claims WHERE item_id = ?", item); c != 1 {
		t.Errorf("claim rows after the rollback: %d", c)
	}
}
