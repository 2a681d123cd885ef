package baton

import "time"

// DefaultClaimTTL is how long a claim lasts without renewal.
const DefaultClaimTTL = 15 * time.Minute

// Claim is a lease on a work item. Only the holder may change the item
// while it lasts; the fencing token grows with every new claim of the item,
// so a holder whose lease lapsed and was taken over can be told apart.
type Claim struct {
	ItemID    string
	Holder    string
	Token     int64
	ClaimedAt time.Time
	ExpiresAt time.Time
}

// Active reports whether the lease still holds at now.
func (c *Claim) Active(now time.Time) bool { return c != nil && now.Before(c.ExpiresAt) }

// ClaimThread is the message thread about the claim on an item: where the
// holder of a claim someone else released learns who did it and why.
func ClaimThread(itemID string) string { return "claim-" + itemID }

// ClaimNextFilter narrows claim-next to some ready items.
type ClaimNextFilter struct {
	Project string
	Label   string
	Kind    Kind
	// Exclude names items not to claim (baton dispatch leaves out items
	// waiting out a retry backoff).
	Exclude []string
}

// Claimed is the error for a mutation under someone else's (or a lapsed)
// claim.
func Claimed(c *Claim, by string) *Error {
	return Errorf(ErrClaimed, "%s is claimed by %s until %s", c.ItemID, c.Holder, c.ExpiresAt.UTC().Format(time.RFC3339)).
		WithDetails("item_id", c.ItemID, "holder", c.Holder, "expires_at", c.ExpiresAt.UTC().Format(time.RFC3339), "caller", by).
		WithHint("wait for the claim to end or be released, or work on another item (claim_next)")
}
