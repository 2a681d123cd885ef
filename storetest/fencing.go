package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The fencing conformance group (issue 12, point 4): a claim is a lease
// with a fencing token, and a holder whose lease lapsed may not change the
// item again until it claims it again, whatever became of the claim row:
// still there but expired, reaped, taken over, or ended by someone else.
// Claims are opt-in: an agent that never held the item, or gave its claim
// back while it was still live, updates an unclaimed item freely.

// fencingCase starts from agent-alice holding a one-minute lease on a todo
// item claimed at t0, runs then (the claim's fate), and checks alice's
// update of the item at after.
type fencingCase struct {
	name  string
	then  func(e *env, id string, t0 time.Time) error
	after time.Duration
	// want is alice's update's error code; "" means it succeeds.
	want string
}

var fencingTable = []fencingCase{
	{"LapsedNotReaped", func(*env, string, time.Time) error { return nil },
		2 * time.Minute, baton.ErrClaimed},
	{"Reaped", func(e *env, _ string, t0 time.Time) error {
		return e.tryUpdate(func(tx baton.Tx) error {
			n, err := tx.ReapClaims(e.ctx, t0.Add(2*time.Minute))
			if err == nil && n != 1 {
				e.t.Errorf("ReapClaims = %d, want 1", n)
			}
			return err
		})
	}, 3 * time.Minute, baton.ErrClaimed},
	{"TakenOverByClaimNextThenReleased", func(e *env, id string, t0 time.Time) error {
		if err := e.tryUpdate(func(tx baton.Tx) error {
			c, _, err := tx.ClaimNext(e.ctx, "agent-bob", baton.ClaimNextFilter{}, time.Minute, t0.Add(2*time.Minute))
			if err == nil && (c == nil || c.ItemID != id || c.Token != 2) {
				e.t.Errorf("bob's ClaimNext = %+v, want %s with token 2", c, id)
			}
			return err
		}); err != nil {
			return err
		}
		// Bob's claim row goes too: alice's lapse still stands.
		return e.tryUpdate(func(tx baton.Tx) error {
			return tx.ReleaseClaim(e.ctx, id, "agent-bob", t0.Add(150*time.Second))
		})
	}, 3 * time.Minute, baton.ErrClaimed},
	{"TakenOverByClaimThenDone", func(e *env, id string, t0 time.Time) error {
		if err := e.tryUpdate(func(tx baton.Tx) error {
			_, err := tx.Claim(e.ctx, id, "agent-bob", time.Minute, t0.Add(2*time.Minute))
			return err
		}); err != nil {
			return err
		}
		return e.tryUpdate(func(tx baton.Tx) error {
			it, err := tx.Item(e.ctx, id)
			if err != nil {
				return err
			}
			it.Status, it.UpdatedBy, it.UpdatedAt = baton.StatusDone, "agent-bob", t0.Add(150*time.Second)
			return tx.UpdateItem(e.ctx, it)
		})
	}, 3 * time.Minute, baton.ErrClaimed},
	{"EndedByAnothersUpdate", func(e *env, id string, t0 time.Time) error {
		return e.tryUpdate(func(tx baton.Tx) error {
			it, err := tx.Item(e.ctx, id)
			if err != nil {
				return err
			}
			it.Priority, it.UpdatedBy, it.UpdatedAt = baton.PriorityHigh, "agent-carol", t0.Add(2*time.Minute)
			return tx.UpdateItem(e.ctx, it)
		})
	}, 3 * time.Minute, baton.ErrClaimed},
	{"ReleasedAfterLapse", func(e *env, id string, t0 time.Time) error {
		return e.tryUpdate(func(tx baton.Tx) error { return tx.ReleaseClaim(e.ctx, id, "agent-alice", t0.Add(2*time.Minute)) })
	}, 3 * time.Minute, baton.ErrClaimed},
	{"ReleasedWhileLive", func(e *env, id string, t0 time.Time) error {
		// Giving a live claim back is no lapse: the item is unclaimed, and
		// anyone, alice included, updates it as any unclaimed item.
		return e.tryUpdate(func(tx baton.Tx) error { return tx.ReleaseClaim(e.ctx, id, "agent-alice", t0.Add(30*time.Second)) })
	}, 3 * time.Minute, ""},
	{"ForceReleasedWhileLive", func(e *env, id string, t0 time.Time) error {
		// The operator ended alice's live claim: unlike her own release,
		// she may still be working from what she read, so she is fenced.
		return e.tryUpdate(func(tx baton.Tx) error {
			_, err := tx.ForceReleaseClaim(e.ctx, id, baton.User, t0.Add(30*time.Second))
			return err
		})
	}, 45 * time.Second, baton.ErrClaimed},
	{"ForceReleasedAfterLapse", func(e *env, id string, t0 time.Time) error {
		return e.tryUpdate(func(tx baton.Tx) error {
			_, err := tx.ForceReleaseClaim(e.ctx, id, baton.User, t0.Add(2*time.Minute))
			return err
		})
	}, 3 * time.Minute, baton.ErrClaimed},
	{"ReapedThenClaimedAgain", func(e *env, id string, t0 time.Time) error {
		if err := e.tryUpdate(func(tx baton.Tx) error { _, err := tx.ReapClaims(e.ctx, t0.Add(2*time.Minute)); return err }); err != nil {
			return err
		}
		return e.tryUpdate(func(tx baton.Tx) error {
			c, err := tx.Claim(e.ctx, id, "agent-alice", time.Minute, t0.Add(150*time.Second))
			if err == nil && c.Token != 2 {
				e.t.Errorf("re-claim token = %d, want 2", c.Token)
			}
			return err
		})
	}, 3 * time.Minute, ""},
	{"TakenOverThenClaimedAgain", func(e *env, id string, t0 time.Time) error {
		for _, step := range []struct {
			who string
			at  time.Duration
		}{{"agent-bob", 2 * time.Minute}, {"agent-alice", 4 * time.Minute}} {
			if err := e.tryUpdate(func(tx baton.Tx) error {
				_, err := tx.Claim(e.ctx, id, step.who, time.Minute, t0.Add(step.at))
				return err
			}); err != nil {
				return err
			}
		}
		return nil
	}, 4*time.Minute + time.Second, ""},
}

var fencingCases = func() []testCase {
	var cs []testCase
	for _, c := range fencingTable {
		cs = append(cs, testCase{c.name, func(t *testing.T, open func(t *testing.T) baton.Store) { testFencing(t, open, c) }})
	}
	return append(cs,
		testCase{"RenewAfterReapIsClaimed", testFencingRenew},
		testCase{"OthersUnaffected", testFencingOthers},
		testCase{"RefusalOverAnotherLapse", testFencingOverAnotherLapse},
		testCase{"ForceRelease", testForceRelease},
	)
}()

// fencingStart creates a todo item and has alice claim it at t0 for a
// minute. t0 is the wall clock, so the store's own lazy-expiry reads agree.
func fencingStart(t *testing.T, open func(t *testing.T) baton.Store) (*env, string, time.Time) {
	e := newEnv(t, open)
	e.project("fence", "FEN")
	id := e.create(newItem("fence", "leased work")).ID
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	e.update(func(tx baton.Tx) error {
		_, err := tx.Claim(e.ctx, id, "agent-alice", time.Minute, t0)
		return err
	})
	return e, id, t0
}

// updateAs changes the item's progress as agent at at.
func (e *env) updateAs(id, agent string, progress int, at time.Time) error {
	return e.tryUpdate(func(tx baton.Tx) error {
		it, err := tx.Item(e.ctx, id)
		if err != nil {
			return err
		}
		it.Progress, it.UpdatedBy, it.UpdatedAt = progress, agent, at
		return tx.UpdateItem(e.ctx, it)
	})
}

func testFencing(t *testing.T, open func(t *testing.T) baton.Store, c fencingCase) {
	e, id, t0 := fencingStart(t, open)
	if err := c.then(e, id, t0); err != nil {
		t.Fatalf("setting up: %v", err)
	}
	err := e.updateAs(id, "agent-alice", 42, t0.Add(c.after))
	if c.want == "" {
		if err != nil {
			t.Fatalf("alice's update: %v, want it allowed", err)
		}
		if got := e.get(id); got.Progress != 42 {
			t.Errorf("progress = %d after alice's allowed update, want 42", got.Progress)
		}
		return
	}
	be := wantCode(t, err, c.want)
	if be.Hint == "" || be.Details["item_id"] != id {
		t.Errorf("error %+v: want a hint and item_id %s", be, id)
	}
	if got := e.get(id); got.Progress == 42 {
		t.Error("the refused update was written")
	}
	// Claiming again is the way back in, while there is work left: a
	// finished item cannot be claimed, so its lapsed holders stay out.
	if e.get(id).Status.Terminal() {
		err := e.tryUpdate(func(tx baton.Tx) error {
			_, err := tx.Claim(e.ctx, id, "agent-alice", time.Minute, t0.Add(c.after))
			return err
		})
		wantCode(t, err, baton.ErrConflict)
		return
	}
	at := t0.Add(c.after)
	e.update(func(tx baton.Tx) error {
		// A holder still live blocks the re-claim; wait it out.
		if k, err := tx.ClaimOf(e.ctx, id); err == nil && k != nil && k.Holder != "agent-alice" && k.Active(at) {
			at = k.ExpiresAt
		}
		_, err := tx.Claim(e.ctx, id, "agent-alice", time.Minute, at)
		return err
	})
	if err := e.updateAs(id, "agent-alice", 43, at.Add(time.Second)); err != nil {
		t.Fatalf("alice's update after claiming again: %v", err)
	}
}

// testFencingRenew: renewing a lease that lapsed and was reaped is refused
// as a lapse (ERR_CLAIMED), as it is while the expired row is still there.
func testFencingRenew(t *testing.T, open func(t *testing.T) baton.Store) {
	e, id, t0 := fencingStart(t, open)
	e.update(func(tx baton.Tx) error { _, err := tx.ReapClaims(e.ctx, t0.Add(2*time.Minute)); return err })
	err := e.tryUpdate(func(tx baton.Tx) error {
		_, err := tx.RenewClaim(e.ctx, id, "agent-alice", t0.Add(3*time.Minute))
		return err
	})
	if be := wantCode(t, err, baton.ErrClaimed); be.Details["token"] == nil {
		t.Errorf("details %v lack the lapsed claim's token", be.Details)
	}
	// Someone who never held the item has nothing to renew.
	err = e.tryUpdate(func(tx baton.Tx) error {
		_, err := tx.RenewClaim(e.ctx, id, "agent-bob", t0.Add(3*time.Minute))
		return err
	})
	wantCode(t, err, baton.ErrNotFound)
}

// testFencingOthers: the fence is the lapsed holder's alone; the item is
// back in the queue for everyone else.
func testFencingOthers(t *testing.T, open func(t *testing.T) baton.Store) {
	e, id, t0 := fencingStart(t, open)
	e.update(func(tx baton.Tx) error { _, err := tx.ReapClaims(e.ctx, t0.Add(2*time.Minute)); return err })
	if err := e.updateAs(id, "agent-carol", 7, t0.Add(3*time.Minute)); err != nil {
		t.Fatalf("carol's update of the unclaimed item: %v", err)
	}
	if got := e.get(id); got.Status != baton.StatusTodo || got.Assignee != "" {
		t.Errorf("reaped item is %s assigned %q, want todo unassigned", got.Status, got.Assignee)
	}
	// A fence on one item says nothing about another.
	other := e.create(newItem("fence", "other")).ID
	if err := e.updateAs(other, "agent-alice", 5, t0.Add(3*time.Minute)); err != nil {
		t.Fatalf("alice's update of another item: %v", err)
	}
}

// testFencingOverAnotherLapse: alice's lease lapsed and bob took over; now
// bob's lease lapsed too. Alice's update is refused for her own lapse, and
// the refusal writes nothing: bob's lapsed claim is still there.
func testFencingOverAnotherLapse(t *testing.T, open func(t *testing.T) baton.Store) {
	e, id, t0 := fencingStart(t, open)
	e.update(func(tx baton.Tx) error {
		_, err := tx.Claim(e.ctx, id, "agent-bob", time.Minute, t0.Add(2*time.Minute))
		return err
	})
	be := wantCode(t, e.updateAs(id, "agent-alice", 9, t0.Add(4*time.Minute)), baton.ErrClaimed)
	if be.Details["holder"] != "agent-alice" || be.Details["fenced"] != true {
		t.Errorf("details %v, want alice's own lapsed claim, fenced", be.Details)
	}
	e.view(func(tx baton.Tx) error {
		c, err := tx.ClaimOf(e.ctx, id)
		if err == nil && (c == nil || c.Holder != "agent-bob") {
			t.Errorf("claim after alice's refused update = %+v, want bob's lapsed claim kept", c)
		}
		return err
	})
	// Bob is fenced by his own lapse in turn, once his row is gone.
	if err := e.updateAs(id, "agent-carol", 1, t0.Add(5*time.Minute)); err != nil {
		t.Fatalf("carol's update: %v", err)
	}
	wantCode(t, e.updateAs(id, "agent-bob", 2, t0.Add(5*time.Minute)), baton.ErrClaimed)
}

// testForceRelease: ForceReleaseClaim ends another agent's live claim as
// the holder's release would (the item it started is todo again, no longer
// assigned to the holder), returns the claim that ended, and refuses the
// holder's next update naming who released it; anyone may claim the item
// next, with a new token. No claim is ERR_NOT_FOUND; no item, the item's
// own not-found error.
func testForceRelease(t *testing.T, open func(t *testing.T) baton.Store) {
	e, id, t0 := fencingStart(t, open)
	var ended *baton.Claim
	e.update(func(tx baton.Tx) (err error) {
		ended, err = tx.ForceReleaseClaim(e.ctx, id, baton.User, t0.Add(10*time.Second))
		return err
	})
	if ended == nil || ended.Holder != "agent-alice" || ended.Token != 1 || !ended.ExpiresAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("ForceReleaseClaim = %+v, want alice's claim, token 1, as it stood", ended)
	}
	if got := e.get(id); got.Status != baton.StatusTodo || got.Assignee != "" {
		t.Errorf("after a forced release the item is %s assigned %q, want todo unassigned", got.Status, got.Assignee)
	}
	e.view(func(tx baton.Tx) error {
		c, err := tx.ClaimOf(e.ctx, id)
		if err == nil && c != nil {
			t.Errorf("claim after a forced release = %+v, want none", c)
		}
		return err
	})

	be := wantCode(t, e.updateAs(id, "agent-alice", 42, t0.Add(20*time.Second)), baton.ErrClaimed)
	if be.Details["released_by"] != baton.User || be.Details["fenced"] != true || be.Details["holder"] != "agent-alice" ||
		!strings.Contains(be.Message, "released by "+baton.User) || be.Hint == "" {
		t.Errorf("alice's update after a forced release: %+v, want it refused naming who released her claim", be)
	}
	err := e.tryUpdate(func(tx baton.Tx) error {
		_, err := tx.RenewClaim(e.ctx, id, "agent-alice", t0.Add(20*time.Second))
		return err
	})
	wantCode(t, err, baton.ErrClaimed)

	// Nothing to release now: not found, and nothing changes.
	err = e.tryUpdate(func(tx baton.Tx) error {
		_, err := tx.ForceReleaseClaim(e.ctx, id, baton.User, t0.Add(20*time.Second))
		return err
	})
	if be := wantCode(t, err, baton.ErrNotFound); be.Hint == "" || be.Details["item_id"] != id {
		t.Errorf("forced release of an unclaimed item: %+v, want a hint and item_id", be)
	}
	err = e.tryUpdate(func(tx baton.Tx) error { _, err := tx.ForceReleaseClaim(e.ctx, "FEN-404", baton.User, t0); return err })
	wantCode(t, err, baton.ErrTaskNotFound)

	// The item is free for anyone else; its next claim has a new token.
	e.update(func(tx baton.Tx) error {
		c, err := tx.Claim(e.ctx, id, "agent-bob", time.Minute, t0.Add(30*time.Second))
		if err == nil && c.Token != 2 {
			t.Errorf("bob's claim token = %d, want 2", c.Token)
		}
		return err
	})
	if err := e.updateAs(id, "agent-bob", 7, t0.Add(40*time.Second)); err != nil {
		t.Fatalf("bob's update under his claim: %v", err)
	}
}
