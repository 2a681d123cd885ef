package claims

import (
	"context"

	"github.com/baton-dev/baton/tool"
)

type releaseIn struct {
	ItemID string `json:"item_id" jsonschema:"The item whose claim you hold."`
}

type releaseOut struct {
	ItemID   string `json:"item_id" jsonschema:"The item."`
	Released bool   `json:"released" jsonschema:"Always true: the claim has ended."`
	Status   string `json:"status" jsonschema:"The item's status after release (an item the claim started goes back to todo)."`
}

// ReleaseClaim is release_claim.
var ReleaseClaim = tool.New(tool.Definition[releaseIn, releaseOut]{
	Name:    "release_claim",
	Event:   "claim.released",
	Toolset: Toolset,
	Description: "End your claim on an item so others can take it. An item the claim moved from todo to in_progress goes back to todo, unassigned. " +
		"ERR_CLAIMED if someone else holds it; ERR_NOT_FOUND if it is not claimed. Finishing the item (done or cancelled) releases it without this call.",
	Profiles: tool.Profiles,
	Input:    tool.Rules{"item_id": itemIDRule},
	Output:   tool.Rules{"status": statusRule},
	Execute: func(ctx context.Context, c *tool.Call, in releaseIn) (releaseOut, error) {
		if err := c.Tx.ReleaseClaim(ctx, in.ItemID, holder(c), c.Now); err != nil {
			return releaseOut{}, err
		}
		it, err := c.Tx.Item(ctx, in.ItemID)
		if err != nil {
			return releaseOut{}, err
		}
		return releaseOut{ItemID: it.ID, Released: true, Status: string(it.Status)}, nil
	},
})
