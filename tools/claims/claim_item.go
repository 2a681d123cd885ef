package claims

import (
	"context"
	"github.com/baton-dev/baton"

	"github.com/baton-dev/baton/tool"
)

type claimIn struct {
	ItemID     string `json:"item_id" jsonschema:"The work item to claim."`
	TTLSeconds int    `json:"ttl_seconds,omitempty" jsonschema:"Lease length in seconds; defaults to the server's claim TTL. Your activity on the item renews it."`
}

type claimOut struct {
	ItemID    string `json:"item_id" jsonschema:"The claimed item."`
	Holder    string `json:"holder" jsonschema:"Who holds the claim: always the calling agent."`
	Token     int64  `json:"token" jsonschema:"Fencing token; grows with every new claim of the item, so a later holder always has a larger one."`
	ClaimedAt string `json:"claimed_at" jsonschema:"ISO-8601 UTC time the claim began."`
	ExpiresAt string `json:"expires_at" jsonschema:"ISO-8601 UTC time the lease lapses unless renewed."`
	Status    string `json:"status" jsonschema:"The item's status after claiming (a todo item moves to in_progress)."`
}

// ClaimItem is claim_item.
var ClaimItem = tool.New(tool.Definition[claimIn, claimOut]{
	Name:    "claim_item",
	Event:   "claim.taken",
	Toolset: Toolset,
	Description: "Claim a work item for yourself: a lease that lets only you change it until it expires. " +
		"Exactly one of several agents racing for an item wins; the others get ERR_CLAIMED naming the holder and expires_at. " +
		"A todo item moves to in_progress and is assigned to you. Claiming again while you hold it renews the lease (same token). " +
		"Your task updates renew it too; release it with release_claim when you stop.",
	Profiles: tool.Profiles,
	Input:    tool.Rules{"item_id": itemIDRule, "ttl_seconds": ttlRule},
	Output: tool.Rules{
		"status":     statusRule,
		"claimed_at": tool.DateTime(),
		"expires_at": tool.DateTime(),
	},
	Execute: func(ctx context.Context, c *tool.Call, in claimIn) (claimOut, error) {
		cl, err := c.Tx.Claim(ctx, in.ItemID, holder(c), ttl(c, in.TTLSeconds), c.Now)
		if err != nil {
			return claimOut{}, err
		}
		// Read the item after claiming: the claim itself may have moved it.
		it, err := c.Tx.Item(ctx, cl.ItemID)
		if err != nil {
			return claimOut{}, err
		}
		return claimOut{
			ItemID: cl.ItemID, Holder: cl.Holder, Token: cl.Token,
			ClaimedAt: baton.Timestamp(cl.ClaimedAt), ExpiresAt: baton.Timestamp(cl.ExpiresAt), Status: string(it.Status),
		}, nil
	},
})
