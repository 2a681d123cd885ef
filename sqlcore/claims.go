package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/baton-dev/baton"
)

// ClaimOf returns the claim on an item, lapsed or not, or nil.
func (t *Tx) ClaimOf(ctx context.Context, itemID string) (*baton.Claim, error) {
	c, _, _, err := t.claimRow(ctx, itemID)
	return c, err
}

// claimRow returns the claim with its ttl and the status it found the item
// in. A row this transaction has read already is not read again (see
// claimMemo).
func (t *Tx) claimRow(ctx context.Context, itemID string) (*baton.Claim, time.Duration, baton.Status, error) {
	if m, ok := t.claimRows[itemID]; ok {
		if m.claim == nil {
			return nil, 0, "", nil
		}
		c := *m.claim
		return &c, m.ttl, m.prev, nil
	}
	var c baton.Claim
	var ttl, claimed, expires int64
	var prev baton.Status
	err := t.Q.QueryRowContext(ctx, `SELECT item_id, holder, token, ttl_ms, prev_status, claimed_at, expires_at FROM claims WHERE item_id = ?`, itemID).
		Scan(&c.ItemID, &c.Holder, &c.Token, &ttl, &prev, &claimed, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		t.rememberClaim(itemID, claimMemo{})
		return nil, 0, "", nil
	}
	if err != nil {
		return nil, 0, "", err
	}
	c.ClaimedAt, c.ExpiresAt = FromMS(claimed), FromMS(expires)
	m := claimMemo{claim: &c, ttl: time.Duration(ttl) * time.Millisecond, prev: prev}
	t.rememberClaim(itemID, m)
	cp := c
	return &cp, m.ttl, prev, nil
}

// claimMemo is an item's claim row as this transaction read it, with what
// it wrote there since: a call that checks a claim and then records work
// on the item (update_issue_status and the comment saying why) reads the
// row once, and on PostgreSQL each read is a round trip under the
// writers' lock. Every statement that writes claims is in this file: the
// renewal (extend) keeps the row up to date, every other write forgets it,
// and so does moving an item (MoveItem: the row follows the new id).
type claimMemo struct {
	claim *baton.Claim // nil: the item has no claim
	ttl   time.Duration
	prev  baton.Status
}

func (t *Tx) rememberClaim(itemID string, m claimMemo) {
	if t.claimRows == nil {
		t.claimRows = map[string]claimMemo{}
	}
	t.claimRows[itemID] = m
}

// forgetClaim makes the next claimRow of itemID read the database.
func (t *Tx) forgetClaim(itemID string) { delete(t.claimRows, itemID) }

func lapsed(c *baton.Claim) *baton.Error {
	return baton.Errorf(baton.ErrClaimed, "your claim on %s lapsed at %s", c.ItemID, c.ExpiresAt.UTC().Format(time.RFC3339)).
		WithDetails("item_id", c.ItemID, "holder", c.Holder, "expires_at", c.ExpiresAt.UTC().Format(time.RFC3339), "token", c.Token).
		WithHint("claim the item again (claim_item) before changing it; someone else may have worked on it meanwhile")
}

// fence remembers that holder's lease on the item ended without the
// holder giving it back, so its later updates are refused until it claims
// the item again, whatever becomes of the claim row (reaped, taken over,
// ended by someone else's update). by names who ended a live lease
// (ForceReleaseClaim), "" for one that lapsed; c.ExpiresAt is when it ended.
func (t *Tx) fence(ctx context.Context, c *baton.Claim, by string) error {
	_, err := t.Q.ExecContext(ctx, `INSERT INTO claim_fences (item_id, holder, token, expires_at, released_by) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (item_id, holder) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at,
		released_by = excluded.released_by`,
		c.ItemID, c.Holder, c.Token, MS(c.ExpiresAt), by)
	return err
}

// fenceOf returns agent's ended lease on the item as a claim, with who
// ended it ("" when it lapsed), or nil when the agent is not fenced out.
func (t *Tx) fenceOf(ctx context.Context, itemID, agent string) (*baton.Claim, string, error) {
	c := baton.Claim{ItemID: itemID, Holder: agent}
	var expires int64
	var by string
	err := t.Q.QueryRowContext(ctx, `SELECT token, expires_at, released_by FROM claim_fences WHERE item_id = ? AND holder = ?`, itemID, agent).
		Scan(&c.Token, &expires, &by)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	c.ExpiresAt = FromMS(expires)
	return &c, by, nil
}

// fenced is the error for an update by an agent whose lease on the item
// lapsed, or was released by someone else (by), and has ended since: it
// must claim the item again.
func fenced(c *baton.Claim, by string) *baton.Error {
	if by == "" {
		e := lapsed(c)
		e.Message += " and has ended since"
		return e.WithDetails("fenced", true)
	}
	at := c.ExpiresAt.UTC().Format(time.RFC3339)
	return baton.Errorf(baton.ErrClaimed, "your claim on %s was released by %s at %s", c.ItemID, by, at).
		WithDetails("item_id", c.ItemID, "holder", c.Holder, "expires_at", at, "token", c.Token, "fenced", true, "released_by", by).
		WithHint("read your messages (thread %s) for why; claim the item again (claim_item) only if it is still yours to do: "+
			"someone else may be working on it now", baton.ClaimThread(c.ItemID))
}

func notClaimed(itemID string) *baton.Error {
	return baton.Errorf(baton.ErrNotFound, "%s is not claimed", itemID).
		WithDetails("item_id", itemID).WithHint("claim it first with claim_item or claim_next")
}

// Claim takes (or, for its holder, renews) the lease on an item; a todo
// item moves to in_progress. Another agent's active claim is ERR_CLAIMED.
func (t *Tx) Claim(ctx context.Context, itemID, holder string, ttl time.Duration, now time.Time) (*baton.Claim, error) {
	c, _, err := t.claim(ctx, itemID, holder, ttl, now)
	return c, err
}

// claim is Claim, which also returns the item as the claim leaves it:
// ClaimNext answers with it, and reading it again would be one more round
// trip under the writers' lock on PostgreSQL.
func (t *Tx) claim(ctx context.Context, itemID, holder string, ttl time.Duration, now time.Time) (*baton.Claim, *baton.Item, error) {
	it, err := t.Self.Item(ctx, itemID)
	if err != nil {
		return nil, nil, err
	}
	if it.Status.Terminal() {
		return nil, nil, baton.Errorf(baton.ErrConflict, "%s is %s: there is no work left to claim", it.ID, it.Status).
			WithType("terminal").WithDetails("item_id", it.ID, "status", string(it.Status)).
			WithHint("claim another item (claim_next)")
	}
	c, _, prev, err := t.claimRow(ctx, itemID)
	if err != nil {
		return nil, nil, err
	}
	if c != nil {
		switch {
		case c.Active(now) && c.Holder != holder:
			return nil, nil, baton.Claimed(c, holder)
		case c.Active(now):
			// Claiming again renews, with the lease asked for now.
			t.forgetClaim(itemID)
			if _, err := t.Q.ExecContext(ctx, `UPDATE claims SET ttl_ms = ? WHERE item_id = ?`, ttl.Milliseconds(), itemID); err != nil {
				return nil, nil, err
			}
			nc, err := t.extend(ctx, c, ttl, now)
			return nc, it, err
		default:
			if err := t.endClaim(ctx, c, prev, now); err != nil {
				return nil, nil, err
			}
			if it, err = t.Self.Item(ctx, itemID); err != nil {
				return nil, nil, err
			}
		}
	}
	var token int64
	if err := t.Q.QueryRowContext(ctx, `INSERT INTO claim_tokens (item_id, last) VALUES (?, 1)
		ON CONFLICT (item_id) DO UPDATE SET last = claim_tokens.last + 1 RETURNING last`, itemID).Scan(&token); err != nil {
		return nil, nil, err
	}
	nc := &baton.Claim{ItemID: itemID, Holder: holder, Token: token, ClaimedAt: now, ExpiresAt: now.Add(ttl)}
	t.forgetClaim(itemID)
	if _, err := t.Q.ExecContext(ctx, `INSERT INTO claims (item_id, holder, token, ttl_ms, prev_status, claimed_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, itemID, holder, token, ttl.Milliseconds(), it.Status, MS(now), MS(nc.ExpiresAt)); err != nil {
		return nil, nil, err
	}
	// Claiming again is what lifts the fence of a lease that lapsed.
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM claim_fences WHERE item_id = ? AND holder = ?`, itemID, holder); err != nil {
		return nil, nil, err
	}
	if it.Status == baton.StatusTodo {
		// Claiming work is starting it.
		if _, err := t.Q.ExecContext(ctx, `UPDATE items SET status = ?, assignee = ?, updated_by = ?, updated_at = ? WHERE id = ?`,
			baton.StatusInProgress, holder, holder, MS(now), itemID); err != nil {
			return nil, nil, err
		}
		if it.ID == itemID { // the row the UPDATE changed, not one an old id leads to
			it.Status, it.Assignee, it.UpdatedBy, it.UpdatedAt = baton.StatusInProgress, holder, holder, FromMS(MS(now))
		}
	}
	return nc, it, nil
}

func (t *Tx) extend(ctx context.Context, c *baton.Claim, ttl time.Duration, now time.Time) (*baton.Claim, error) {
	until := now.Add(ttl)
	// A claim renewed to this instant already, in this transaction (a
	// call that changes an item and records why, update_issue_status and
	// its comment, renews twice at one time), is not written again.
	var err error
	if MS(until) != MS(c.ExpiresAt) {
		_, err = t.Q.ExecContext(ctx, `UPDATE claims SET expires_at = ? WHERE item_id = ?`, MS(until), c.ItemID)
	}
	if m, ok := t.claimRows[c.ItemID]; ok && m.claim != nil && err == nil {
		renewed := *m.claim
		renewed.ExpiresAt = FromMS(MS(until)) // as the row holds it
		m.claim = &renewed
		t.claimRows[c.ItemID] = m
	} else {
		t.forgetClaim(c.ItemID)
	}
	c.ExpiresAt = until
	return c, err
}

// endClaim removes a claim; an item the claim moved from todo to
// in_progress goes back to the queue. A claim that ends lapsed fences its
// holder out of the item until it claims it again.
func (t *Tx) endClaim(ctx context.Context, c *baton.Claim, prev baton.Status, now time.Time) error {
	if err := t.dropClaim(ctx, c, now); err != nil {
		return err
	}
	if prev != baton.StatusTodo {
		return nil
	}
	_, err := t.Q.ExecContext(ctx, `UPDATE items SET status = 'todo',
		assignee = CASE WHEN assignee = ? THEN '' ELSE assignee END, updated_at = ?
		WHERE id = ? AND status = 'in_progress'`, c.Holder, MS(now), c.ItemID)
	return err
}

// dropClaim deletes a claim row, fencing its holder when the lease lapsed.
func (t *Tx) dropClaim(ctx context.Context, c *baton.Claim, now time.Time) error {
	t.forgetClaim(c.ItemID)
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM claims WHERE item_id = ?`, c.ItemID); err != nil {
		return err
	}
	// The file reservations taken for the item end with its claim.
	if err := t.releaseClaimReservations(ctx, c, now); err != nil {
		return err
	}
	if c.Active(now) {
		return nil
	}
	return t.fence(ctx, c, "")
}

// RenewClaim extends the holder's active claim by its lease.
func (t *Tx) RenewClaim(ctx context.Context, itemID, holder string, now time.Time) (*baton.Claim, error) {
	if _, err := t.Self.Item(ctx, itemID); err != nil {
		return nil, err
	}
	c, ttl, _, err := t.claimRow(ctx, itemID)
	switch {
	case err != nil:
		return nil, err
	case c != nil && c.Holder != holder && c.Active(now):
		return nil, baton.Claimed(c, holder)
	case c == nil || c.Holder != holder:
		// A lease of the caller's that lapsed and has ended since cannot
		// be renewed either: the caller has to claim again.
		if f, by, err := t.fenceOf(ctx, itemID, holder); err != nil || f != nil {
			if err != nil {
				return nil, err
			}
			return nil, fenced(f, by)
		}
		return nil, notClaimed(itemID)
	case !c.Active(now):
		return nil, lapsed(c)
	}
	return t.extend(ctx, c, ttl, now)
}

// ReleaseClaim ends the holder's claim; the item goes back to the queue
// when the claim had started it.
func (t *Tx) ReleaseClaim(ctx context.Context, itemID, holder string, now time.Time) error {
	if _, err := t.Self.Item(ctx, itemID); err != nil {
		return err
	}
	c, _, prev, err := t.claimRow(ctx, itemID)
	switch {
	case err != nil:
		return err
	case c == nil:
		return notClaimed(itemID)
	case c.Holder != holder && c.Active(now):
		return baton.Claimed(c, holder)
	case c.Holder != holder:
		if err := t.endClaim(ctx, c, prev, now); err != nil {
			return err
		}
		return notClaimed(itemID)
	}
	return t.endClaim(ctx, c, prev, now)
}

// ForceReleaseClaim ends the item's claim whoever holds it, as the
// holder's own release would, and fences the holder: unlike a holder that
// gives its claim back, this one may still be working from what it read,
// and must not write over what happens to the item next.
func (t *Tx) ForceReleaseClaim(ctx context.Context, itemID, by string, now time.Time) (*baton.Claim, error) {
	if _, err := t.Self.Item(ctx, itemID); err != nil {
		return nil, err
	}
	c, _, prev, err := t.claimRow(ctx, itemID)
	switch {
	case err != nil:
		return nil, err
	case c == nil:
		return nil, baton.Errorf(baton.ErrNotFound, "%s is not claimed: there is no claim to release", itemID).
			WithDetails("item_id", itemID).
			WithHint("nobody holds %s; its status and assignee (get_issue) say who last worked on it", itemID)
	}
	if err := t.endClaim(ctx, c, prev, now); err != nil {
		return nil, err
	}
	ended := *c
	if ended.Active(now) {
		ended.ExpiresAt = now // the lease ends here, not when it would have lapsed
	}
	if err := t.fence(ctx, &ended, by); err != nil {
		return nil, err
	}
	return c, nil
}

// Claims lists the claims on a project's items ("" for all), active and
// lapsed alike (the reaper has not ended them yet), oldest claimed first.
func (t *Tx) Claims(ctx context.Context, project string) ([]*baton.Claim, error) {
	q := `SELECT c.item_id, c.holder, c.token, c.claimed_at, c.expires_at FROM claims c`
	var args []any
	if project != "" {
		q, args = q+` JOIN items i ON i.id = c.item_id WHERE i.project = ?`, append(args, project)
	}
	rows, err := t.Q.QueryContext(ctx, q+` ORDER BY c.claimed_at ASC, `+t.D.ByteOrder("c.item_id")+` ASC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Claim{}
	for rows.Next() {
		var c baton.Claim
		var claimed, expires int64
		if err := rows.Scan(&c.ItemID, &c.Holder, &c.Token, &claimed, &expires); err != nil {
			return nil, err
		}
		c.ClaimedAt, c.ExpiresAt = FromMS(claimed), FromMS(expires)
		out = append(out, &c)
	}
	return out, rows.Err()
}

// ReapClaims ends every claim lapsed by now and reports how many.
func (t *Tx) ReapClaims(ctx context.Context, now time.Time) (int, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT item_id FROM claims WHERE expires_at <= ?`, MS(now))
	if err != nil {
		return 0, err
	}
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, id := range ids {
		c, _, prev, err := t.claimRow(ctx, id)
		if err != nil {
			return 0, err
		}
		if err := t.endClaim(ctx, c, prev, now); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// ClaimNext claims the first ready item matching f, the holder's own
// assignments before unassigned work, or returns nil when there is none.
// Items named in f.Exclude are passed over.
func (t *Tx) ClaimNext(ctx context.Context, holder string, f baton.ClaimNextFilter, ttl time.Duration, now time.Time) (*baton.Claim, *baton.Item, error) {
	if _, err := t.ReapClaims(ctx, now); err != nil {
		return nil, nil, err
	}
	where, args := []string{readyCondition}, []any{}
	if !baton.IsPhaseLabel(f.Label) || baton.PhaseOf([]string{f.Label}) == baton.PhaseReady {
		// Ready work is in phase ready; a caller that names another
		// phase's label asks for that phase's work (a researcher taking
		// phase:research items), which the label filter below selects.
		where = append(where, notPreReady)
	}
	if f.Project != "" {
		where, args = append(where, "i.project = ?"), append(args, f.Project)
	}
	if f.Label != "" {
		where, args = append(where, "i.id IN (SELECT item_id FROM item_labels WHERE label = ?)"), append(args, f.Label)
	}
	if f.Kind != "" {
		where, args = append(where, "i.kind = ?"), append(args, f.Kind)
	}
	if len(f.Exclude) > 0 {
		where = append(where, "i.id NOT IN ("+Placeholders(len(f.Exclude))+")")
		for _, id := range f.Exclude {
			args = append(args, id)
		}
	}
	// The caller's own assignments first, then unassigned work; items
	// assigned to someone else are theirs to take. Two branches in that
	// order, each walking an index in queue order (assignee, status,
	// priority, created_at) and stopping at the first ready item (one query ordered
	// by "is it mine" would test every todo item of the project and sort),
	// in one statement: on PostgreSQL each statement is a round trip under
	// the writers' lock.
	one := `SELECT i.id FROM items i WHERE ` + JoinAnd(where) + `
		AND i.assignee = ? ORDER BY i.priority ASC, i.created_at ASC, i.rid ASC LIMIT 1`
	var id string
	err := t.Q.QueryRowContext(ctx, `SELECT id FROM (SELECT 0 AS choice, id FROM (`+one+`) mine
		UNION ALL SELECT 1, id FROM (`+one+`) unassigned) q ORDER BY choice LIMIT 1`,
		slices.Concat(args, []any{holder}, args, []any{""})...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return t.claim(ctx, id, holder, ttl, now)
}

// readyCondition is DESIGN.md's ready work: todo, unblocked (no unfinished
// dependency or subtask) and unclaimed. It reads items as i.
const readyCondition = `i.status = 'todo'
	AND NOT EXISTS (SELECT 1 FROM item_deps d JOIN items x ON x.id = d.depends_on
		WHERE d.item_id = i.id AND x.status NOT IN ('done', 'cancelled'))
	AND NOT EXISTS (SELECT 1 FROM items c WHERE c.parent_id = i.id AND c.status NOT IN ('done', 'cancelled'))
	AND NOT EXISTS (SELECT 1 FROM claims k WHERE k.item_id = i.id)`

// notPreReady keeps out items in a phase before ready: any phase label but
// phase:ready (an item without one is ready, Symphony's migration mode).
// It reads items as i.
const notPreReady = `NOT EXISTS (SELECT 1 FROM item_labels pl WHERE pl.item_id = i.id
		AND substr(pl.label, 1, 6) = 'phase:' AND pl.label <> 'phase:ready')`

// Lapse shows items as a lapsed claim leaves them: one the claim moved from
// todo to in_progress is back in todo, no longer assigned to the holder.
// Reads see this before the reaper writes it, so a caller that reads,
// changes and writes an item does not write the lapsed state back.
func (t *Tx) Lapse(ctx context.Context, items []*baton.Item) error {
	var ids []any
	byID := map[string]*baton.Item{}
	for _, it := range items {
		if it.Status == baton.StatusInProgress {
			ids, byID[it.ID] = append(ids, it.ID), it
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT item_id, holder FROM claims WHERE prev_status = 'todo' AND expires_at <= ?
		AND item_id IN (`+Placeholders(len(ids))+`)`, append([]any{MS(t.Now())}, ids...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, holder string
		if err := rows.Scan(&id, &holder); err != nil {
			return err
		}
		lapse(byID[id], holder)
	}
	return rows.Err()
}

// lapse shows it as its lapsed claim by holder leaves it, when that claim
// had moved it from todo to in_progress: back in todo, no longer assigned
// to the holder.
func lapse(it *baton.Item, holder string) {
	if it.Status != baton.StatusInProgress {
		return
	}
	it.Status = baton.StatusTodo
	if it.Assignee == holder {
		it.Assignee = ""
	}
}

// Activity checks an item exists and renews agent's active claim on it:
// recording findings, comments, learnings, runs and test health is work on
// the item as much as changing it is.
func (t *Tx) Activity(ctx context.Context, itemID, agent string, at time.Time) error {
	if !t.found[itemID] {
		if _, err := t.Self.Item(ctx, itemID); err != nil {
			return err
		}
	}
	if at.IsZero() {
		at = t.Now()
	}
	c, ttl, _, err := t.claimRow(ctx, itemID)
	if err != nil || c == nil || c.Holder != agent || !c.Active(at) {
		return err
	}
	_, err = t.extend(ctx, c, ttl, at)
	return err
}

// CheckClaim enforces claims on an item update by it.UpdatedBy at
// it.UpdatedAt: another agent's active claim refuses it, the holder's own
// lapsed claim refuses it, the holder's active claim is renewed by it, and
// a finished item is released.
func (t *Tx) CheckClaim(ctx context.Context, it *baton.Item) error {
	c, ttl, _, err := t.claimRow(ctx, it.ID)
	if err != nil {
		return err
	}
	now := it.UpdatedAt
	if c != nil && c.Holder != it.UpdatedBy && c.Active(now) {
		return baton.Claimed(c, it.UpdatedBy)
	}
	if c == nil || c.Holder != it.UpdatedBy {
		// The updater holds no claim row here. If it held a lease that
		// lapsed and ended (reaped, taken over, ended by another update),
		// it is fenced out until it claims again: it may still be acting
		// on what it read while it held the item.
		if f, by, err := t.fenceOf(ctx, it.ID, it.UpdatedBy); err != nil || f != nil {
			if err != nil {
				return err
			}
			return fenced(f, by)
		}
	}
	switch {
	case c == nil:
		return nil
	case c.Holder == it.UpdatedBy && !c.Active(now):
		return lapsed(c)
	case c.Holder != it.UpdatedBy:
		// Someone else's lapsed claim: reap it (fencing its holder); this
		// update then decides the item's status.
		return t.dropClaim(ctx, c, now)
	case it.Status.Terminal():
		t.forgetClaim(c.ItemID)
		if _, err := t.Q.ExecContext(ctx, `DELETE FROM claims WHERE item_id = ?`, c.ItemID); err != nil {
			return err
		}
		return t.releaseClaimReservations(ctx, c, now)
	}
	_, err = t.extend(ctx, c, ttl, now)
	return err
}
