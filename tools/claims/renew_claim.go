package claims

import (
	"context"
	"github.com/baton-dev/baton"

	"github.com/baton-dev/baton/tool"
)

type renewIn struct {
	ItemID string `json:"item_id" jsonschema:"The item whose claim you hold."`
}

type renewOut struct {
	ItemID    string `json:"item_id" jsonschema:"The item."`
	Holder    string `json:"holder" jsonschema:"The holder: the calling agent."`
	Token     int64  `json:"token" jsonschema:"The claim's fencing token, unchanged by renewal."`
	ExpiresAt string `json:"expires_at" jsonschema:"ISO-8601 UTC time the renewed lease lapses."`
}

// RenewClaim is renew_claim.
var RenewClaim = tool.New(tool.Definition[renewIn, renewOut]{
	Name:    "renew_claim",
	Event:   "claim.renewed",
	Toolset: Toolset,
	Description: "Extend your active claim on an item by its TTL, e.g. during long work that does not update the item. " +
		"ERR_CLAIMED if someone else holds it or your lease already lapsed (claim it again); ERR_NOT_FOUND if it is not claimed.",
	Profiles: tool.Profiles,
	Input:    tool.Rules{"item_id": itemIDRule},
	Output:   tool.Rules{"expires_at": tool.DateTime()},
	Execute: func(ctx context.Context, c *tool.Call, in renewIn) (renewOut, error) {
		cl, err := c.Tx.RenewClaim(ctx, in.ItemID, holder(c), c.Now)
		if err != nil {
			return renewOut{}, err
		}
		return renewOut{ItemID: cl.ItemID, Holder: cl.Holder, Token: cl.Token, ExpiresAt: baton.Timestamp(cl.ExpiresAt)}, nil
	},
})
