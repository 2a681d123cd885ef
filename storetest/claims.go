package storetest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The claims conformance group: listing the claims of a project, as the
// operator's dashboard shows them (baton.ClaimTx.Claims). Claiming itself
// and fencing are the Fencing group's.

var claimCases = []testCase{
	{"ListByProject", testClaimsByProject},
	{"ListFollowsReleaseAndReap", testClaimsFollowChanges},
	{"ClaimNextAnswersTheItemAsStored", testClaimNextAnswersTheItemAsStored},
	{"OneTransactionReadsItsOwnClaimWrites", testClaimWritesReadInOneTransaction},
}

// testClaimWritesReadInOneTransaction: within one write transaction, each
// read of an item's claim shows the transaction's own writes before it
// (a store may keep a claim row it has read): a renewal, a release, a new
// holder's claim, a move of the item to another id.
func testClaimWritesReadInOneTransaction(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	it := e.create(newItem("alpha", "claimed"))
	t0 := time.Now().Truncate(time.Millisecond)
	e.update(func(tx baton.Tx) error {
		check := func(step, id, holder string, expires time.Time) error {
			c, err := tx.ClaimOf(e.ctx, id)
			switch {
			case err != nil:
				return err
			case holder == "" && c != nil:
				return fmt.Errorf("%s: ClaimOf(%s) = %+v, want none", step, id, c)
			case holder != "" && (c == nil || c.Holder != holder || !c.ExpiresAt.Equal(expires)):
				return fmt.Errorf("%s: ClaimOf(%s) = %+v, want %s's until %v", step, id, c, holder, expires)
			}
			return nil
		}
		if err := check("before", it.ID, "", time.Time{}); err != nil {
			return err
		}
		if _, err := tx.Claim(e.ctx, it.ID, "agent-bob", time.Minute, t0); err != nil {
			return err
		}
		if err := check("claimed", it.ID, "agent-bob", t0.Add(time.Minute)); err != nil {
			return err
		}
		if _, err := tx.RenewClaim(e.ctx, it.ID, "agent-bob", t0.Add(30*time.Second)); err != nil {
			return err
		}
		if err := check("renewed", it.ID, "agent-bob", t0.Add(90*time.Second)); err != nil {
			return err
		}
		// Work recorded on the item renews the claim too.
		if err := tx.AddComment(e.ctx, &baton.Comment{ItemID: it.ID, Body: "progress", CreatedBy: "agent-bob",
			CreatedAt: t0.Add(40 * time.Second)}); err != nil {
			return err
		}
		if err := check("commented", it.ID, "agent-bob", t0.Add(100*time.Second)); err != nil {
			return err
		}
		if err := tx.ReleaseClaim(e.ctx, it.ID, "agent-bob", t0.Add(50*time.Second)); err != nil {
			return err
		}
		if err := check("released", it.ID, "", time.Time{}); err != nil {
			return err
		}
		if _, err := tx.Claim(e.ctx, it.ID, "agent-carol", 2*time.Minute, t0.Add(time.Minute)); err != nil {
			return err
		}
		if err := check("claimed again", it.ID, "agent-carol", t0.Add(3*time.Minute)); err != nil {
			return err
		}
		moved, err := tx.MoveItem(e.ctx, it.ID, "beta")
		if err != nil {
			return err
		}
		if err := check("moved, old id", it.ID, "", time.Time{}); err != nil {
			return err
		}
		return check("moved, new id", moved.ID, "agent-carol", t0.Add(3*time.Minute))
	})
}

// testClaimNextAnswersTheItemAsStored: the item ClaimNext returns is the
// item as the claim left it in the store, field for field (a store may
// answer without reading it again), at an instant with a fraction of a
// millisecond, also when the item was taken back from a lapsed claim.
func testClaimNextAnswersTheItemAsStored(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	est := 2.5
	it := newItem("alpha", "labelled")
	it.Description, it.Labels, it.EstimateHours, it.Progress = "with more to it", []string{"area:store", "phase:ready"}, &est, 10
	e.create(it)
	// Reads show a lapsed claim's item as the lapse leaves it, by the
	// store's clock: the claims are taken now, so that they stand.
	now := time.Now().Truncate(time.Millisecond).Add(1234567 * time.Nanosecond)
	claimNext := func(agent string, at time.Time) *baton.Item {
		t.Helper()
		var got *baton.Item
		e.update(func(tx baton.Tx) error {
			c, item, err := tx.ClaimNext(e.ctx, agent, baton.ClaimNextFilter{Project: "alpha"}, time.Minute, at)
			if err == nil && (c == nil || item == nil || c.ItemID != it.ID) {
				err = fmt.Errorf("ClaimNext(%s) = %+v, %+v, want a claim on %s", agent, c, item, it.ID)
			}
			got = item
			return err
		})
		return got
	}
	for _, step := range []struct {
		agent string
		at    time.Time
	}{
		{"agent-bob", now},
		// Bob's claim lapsed: the item is back in todo, for Carol.
		{"agent-carol", now.Add(5 * time.Minute)},
	} {
		got := claimNext(step.agent, step.at)
		stored := e.get(it.ID)
		if !reflect.DeepEqual(got, stored) {
			t.Errorf("%s's ClaimNext answered\n%+v\nthe store holds\n%+v", step.agent, got, stored)
		}
		if got.Status != baton.StatusInProgress || got.Assignee != step.agent || !got.UpdatedAt.Equal(step.at.Truncate(time.Millisecond)) {
			t.Errorf("%s's ClaimNext answered status %s, assignee %q, updated %v; want in_progress, assigned to %[1]s, updated %[5]v",
				step.agent, got.Status, got.Assignee, got.UpdatedAt, step.at.Truncate(time.Millisecond))
		}
	}
}

// claimAs has agent claim item id for ttl at at.
func (e *env) claimAs(id, agent string, ttl time.Duration, at time.Time) *baton.Claim {
	e.t.Helper()
	var c *baton.Claim
	e.update(func(tx baton.Tx) (err error) {
		c, err = tx.Claim(e.ctx, id, agent, ttl, at)
		return err
	})
	return c
}

func (e *env) claims(project string) []*baton.Claim {
	e.t.Helper()
	var cs []*baton.Claim
	e.view(func(tx baton.Tx) (err error) { cs, err = tx.Claims(e.ctx, project); return err })
	return cs
}

// claimList renders claims as "item holder token claimed expires" lines.
func claimList(cs []*baton.Claim) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %d %s %s\n", c.ItemID, c.Holder, c.Token,
			c.ClaimedAt.Format(time.RFC3339Nano), c.ExpiresAt.Format(time.RFC3339Nano))
	}
	return b.String()
}

// testClaimsByProject: every claim of the project, active or lapsed, oldest
// claimed first (ties by item id, byte order), with its holder, token and
// times as claimed; "" lists every project's; a project with no claims, or
// none of that name, lists none (an empty, non-nil list).
func testClaimsByProject(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	e.project("idle", "IDL")
	var alpha []string
	for range 10 {
		alpha = append(alpha, e.create(newItem("alpha", "a")).ID)
	}
	beta := e.create(newItem("beta", "b")).ID
	e.create(newItem("idle", "i"))
	t0 := base.Add(time.Hour)

	// ALP-9 and ALP-10 are claimed at the same instant: ALP-10 first by
	// bytes. ALP-1's lease has lapsed by the time of listing but nothing
	// reaped it.
	e.claimAs(alpha[0], "agent-alice", time.Minute, t0)
	e.claimAs(beta, "agent-bob", time.Hour, t0.Add(time.Minute))
	e.claimAs(alpha[8], "agent-carol", time.Hour, t0.Add(2*time.Minute))
	e.claimAs(alpha[9], "agent-dave", time.Hour, t0.Add(2*time.Minute))
	// Claimed twice: the second claim is a renewal, the list shows one.
	e.claimAs(alpha[2], "agent-erin", time.Hour, t0.Add(3*time.Minute))
	e.claimAs(alpha[2], "agent-erin", 2*time.Hour, t0.Add(4*time.Minute))

	stamp := func(d time.Duration) string { return t0.Add(d).UTC().Format(time.RFC3339Nano) }
	line := func(id, holder string, token int, claimed, expires time.Duration) string {
		return fmt.Sprintf("%s %s %d %s %s\n", id, holder, token, stamp(claimed), stamp(expires))
	}
	wantAlpha := line("ALP-1", "agent-alice", 1, 0, time.Minute) +
		line("ALP-10", "agent-dave", 1, 2*time.Minute, 62*time.Minute) +
		line("ALP-9", "agent-carol", 1, 2*time.Minute, 62*time.Minute) +
		line("ALP-3", "agent-erin", 1, 3*time.Minute, 124*time.Minute)
	if got := claimList(e.claims("alpha")); got != wantAlpha {
		t.Errorf("Claims(alpha) =\n%swant\n%s", got, wantAlpha)
	}
	wantAll := line("ALP-1", "agent-alice", 1, 0, time.Minute) +
		line("BET-1", "agent-bob", 1, time.Minute, 61*time.Minute) +
		line("ALP-10", "agent-dave", 1, 2*time.Minute, 62*time.Minute) +
		line("ALP-9", "agent-carol", 1, 2*time.Minute, 62*time.Minute) +
		line("ALP-3", "agent-erin", 1, 3*time.Minute, 124*time.Minute)
	all := e.claims("")
	if got := claimList(all); got != wantAll {
		t.Errorf(`Claims("") =`+"\n%swant\n%s", got, wantAll)
	}
	for _, c := range all {
		if c.ClaimedAt.Location() != time.UTC || c.ExpiresAt.Location() != time.UTC {
			t.Errorf("claim on %s: times in %v/%v, want UTC", c.ItemID, c.ClaimedAt.Location(), c.ExpiresAt.Location())
		}
	}
	for _, p := range []string{"idle", "nope"} {
		if got := e.claims(p); got == nil || len(got) != 0 {
			t.Errorf("Claims(%q) = %#v, want an empty, non-nil list", p, got)
		}
	}
}

// testClaimsFollowChanges: a released, force-released, finished or reaped
// claim leaves the list; a claim taken over after its lapse shows its new
// holder and token.
func testClaimsFollowChanges(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	var ids []string
	for range 5 {
		ids = append(ids, e.create(newItem("alpha", "a")).ID)
	}
	t0 := base.Add(time.Hour)
	for i, id := range ids {
		e.claimAs(id, "agent-"+string(rune('a'+i)), time.Minute, t0.Add(time.Duration(i)*time.Second))
	}
	at := t0.Add(10 * time.Second)
	e.update(func(tx baton.Tx) error { return tx.ReleaseClaim(e.ctx, ids[0], "agent-a", at) })
	e.update(func(tx baton.Tx) error { _, err := tx.ForceReleaseClaim(e.ctx, ids[1], baton.User, at); return err })
	e.update(func(tx baton.Tx) error {
		it, err := tx.Item(e.ctx, ids[2])
		if err != nil {
			return err
		}
		it.Status, it.UpdatedBy, it.UpdatedAt = baton.StatusDone, "agent-c", at
		return tx.UpdateItem(e.ctx, it)
	})
	var holders []string
	for _, c := range e.claims("alpha") {
		holders = append(holders, c.ItemID+"="+c.Holder)
	}
	if got, want := strings.Join(holders, " "), ids[3]+"=agent-d "+ids[4]+"=agent-e"; got != want {
		t.Errorf("after release, forced release and done: claims %s, want %s", got, want)
	}

	// ALP-4's lease lapses and bob takes the item over; ALP-5's lapses and
	// is reaped.
	later := t0.Add(2 * time.Minute)
	e.claimAs(ids[3], "agent-bob", time.Hour, later)
	e.update(func(tx baton.Tx) error { _, err := tx.ReapClaims(e.ctx, later); return err })
	cs := e.claims("")
	if len(cs) != 1 || cs[0].ItemID != ids[3] || cs[0].Holder != "agent-bob" || cs[0].Token != 2 || !cs[0].ClaimedAt.Equal(later) {
		t.Errorf("after a takeover and a reap: claims\n%swant only bob's on %s, token 2, claimed at %s", claimList(cs), ids[3], later)
	}
}
