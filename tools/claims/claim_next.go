package claims

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type nextIn struct {
	Project    string `json:"project,omitempty" jsonschema:"Project slug; defaults to the session's project, else the only project."`
	Label      string `json:"label,omitempty" jsonschema:"Only items with this label."`
	Kind       string `json:"kind,omitempty" jsonschema:"Only items of this kind."`
	TTLSeconds int    `json:"ttl_seconds,omitempty" jsonschema:"Lease length in seconds; defaults to the server's claim TTL."`
}

// nextOut has two shapes, told apart by claimed: a claim (the item fields
// set) or nothing ready (only message). Only claimed is required, so the
// one schema admits both.
type nextOut struct {
	Claimed   bool   `json:"claimed" jsonschema:"Whether an item was claimed; false when no ready work matched."`
	ItemID    string `json:"item_id,omitempty" jsonschema:"The claimed item."`
	Title     string `json:"title,omitempty" jsonschema:"Its title."`
	Priority  *int   `json:"priority,omitempty" jsonschema:"Its canonical priority: 0 critical, 1 high, 2 normal, 3 low, 4 backlog."`
	Holder    string `json:"holder,omitempty" jsonschema:"Who holds the claim: always the calling agent."`
	Token     int64  `json:"token,omitempty" jsonschema:"Fencing token; grows with every new claim of the item."`
	ClaimedAt string `json:"claimed_at,omitempty" jsonschema:"ISO-8601 UTC time the claim began."`
	ExpiresAt string `json:"expires_at,omitempty" jsonschema:"ISO-8601 UTC time the lease lapses unless renewed."`
	Status    string `json:"status,omitempty" jsonschema:"The item's status after claiming."`
	Message   string `json:"message,omitempty" jsonschema:"Why nothing was claimed."`
}

// ClaimNext is claim_next.
var ClaimNext = tool.New(tool.Definition[nextIn, nextOut]{
	Name:    "claim_next",
	Event:   "claim.taken",
	Toolset: Toolset,
	Description: "Claim the most urgent, oldest ready work item (todo, in phase ready, no unfinished dependencies or subtasks, unclaimed, " +
		"unassigned or assigned to you), optionally only with a label or of a kind; label phase:research (or another phase) " +
		"claims that phase's work instead. Racing agents each get a different item. " +
		"Returns claimed false with a message when nothing is ready.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"project":     projectRule,
		"label":       labelRule,
		"kind":        kindRule,
		"ttl_seconds": ttlRule,
	},
	Output: tool.Rules{
		"priority":   tool.Range(0, 4),
		"status":     statusRule,
		"claimed_at": tool.DateTime(),
		"expires_at": tool.DateTime(),
	},
	Execute: func(ctx context.Context, c *tool.Call, in nextIn) (nextOut, error) {
		p, err := session.Project(ctx, c, in.Project)
		if err != nil {
			return nextOut{}, err
		}
		f := baton.ClaimNextFilter{Project: p.Slug, Label: in.Label, Kind: baton.Kind(in.Kind)}
		cl, it, err := c.Tx.ClaimNext(ctx, holder(c), f, ttl(c, in.TTLSeconds), c.Now)
		if err != nil {
			return nextOut{}, err
		}
		if cl == nil {
			// Nothing ready is an answer, not a failure: an agent polling
			// for work must not see an error every time the queue is empty.
			return nextOut{Message: noneReady(p.Slug, in)}, nil
		}
		prio := int(it.Priority)
		return nextOut{
			Claimed: true, ItemID: it.ID, Title: it.Title, Priority: &prio,
			Holder: cl.Holder, Token: cl.Token, ClaimedAt: baton.Timestamp(cl.ClaimedAt), ExpiresAt: baton.Timestamp(cl.ExpiresAt),
			Status: string(it.Status),
		}, nil
	},
})

func noneReady(project string, in nextIn) string {
	msg := "no ready work in project " + project
	if in.Label != "" {
		msg += " with label " + in.Label
	}
	if in.Kind != "" {
		msg += " of kind " + in.Kind
	}
	return msg + ": every todo item is claimed, assigned to someone else, or waiting on dependencies or subtasks"
}
