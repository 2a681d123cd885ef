package claims

import (
	"context"
	"fmt"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type forceReleaseIn struct {
	ItemID string `json:"item_id" jsonschema:"The item whose claim to end, whoever holds it."`
	Reason string `json:"reason" jsonschema:"Why you end the claim: the holder reads it in its messages."`
}

type forceReleaseOut struct {
	ItemID         string `json:"item_id" jsonschema:"The item."`
	Released       bool   `json:"released" jsonschema:"Always true: the claim has ended."`
	PreviousHolder string `json:"previous_holder" jsonschema:"The agent whose claim ended."`
	Status         string `json:"status" jsonschema:"The item's status after release (an item the claim started goes back to todo)."`
	MessageID      string `json:"message_id" jsonschema:"The message that told the previous holder."`
}

// ForceReleaseClaim is force_release_claim.
var ForceReleaseClaim = tool.New(tool.Definition[forceReleaseIn, forceReleaseOut]{
	Name:    "force_release_claim",
	Event:   "claim.force_released",
	Toolset: Toolset,
	Description: "End another agent's claim on an item, active or lapsed (one left by an agent that died), as its holder's release_claim would: " +
		"an item the claim started goes back to todo. The holder gets a message with your reason (thread claim-ITEM) and is fenced: " +
		"its changes under the old claim are ERR_CLAIMED until it claims the item again. ERR_NOT_FOUND if nobody holds a claim on it.",
	// Taking work away from an agent is the operator's call: an agent
	// could otherwise end its rivals' claims and take their work.
	Annotations: tool.Annotations{Privileged: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"item_id": itemIDRule,
		"reason":  tool.Length(1, 1000).NonBlank(),
	},
	Output: tool.Rules{"status": statusRule},
	Execute: func(ctx context.Context, c *tool.Call, in forceReleaseIn) (forceReleaseOut, error) {
		by := c.Principal.Agent
		ended, err := c.Tx.ForceReleaseClaim(ctx, in.ItemID, by, c.Now)
		if err != nil {
			return forceReleaseOut{}, err
		}
		if ended.Holder == by {
			// Fencing oneself out is never what was meant; the call's
			// transaction rolls the release back.
			return forceReleaseOut{}, baton.Errorf(baton.ErrInvalidInput, "the claim on %s is your own", ended.ItemID).
				WithDetails("field", "item_id", "constraint", "not_own_claim", "holder", ended.Holder).
				WithHint("end your own claim with release_claim")
		}
		it, err := c.Tx.Item(ctx, in.ItemID)
		if err != nil {
			return forceReleaseOut{}, err
		}
		m := &baton.Message{Project: it.Project, AgentID: by, Recipient: ended.Holder, Role: baton.RoleAgent,
			Body: releaseNotice(by, it, ended, in.Reason, c.Now), ThreadID: baton.ClaimThread(it.ID), CreatedAt: c.Now}
		if by == baton.User {
			m.Role = baton.RoleUser
		}
		if err := c.Tx.SendMessage(ctx, m); err != nil {
			return forceReleaseOut{}, err
		}
		return forceReleaseOut{ItemID: it.ID, Released: true, PreviousHolder: ended.Holder, Status: string(it.Status),
			MessageID: m.ID}, nil
	},
})

// releaseNotice is what the previous holder reads: who ended its claim and
// why, and that it must not carry on under it.
func releaseNotice(by string, it *baton.Item, ended *baton.Claim, reason string, now time.Time) string {
	lapse := ""
	if !ended.Active(now) {
		lapse = fmt.Sprintf(" (it had lapsed at %s)", baton.Timestamp(ended.ExpiresAt))
	}
	return fmt.Sprintf("%s released your claim on %s %q%s. Reason: %s\n\n"+
		"%s is %s and unclaimed now. Further changes you make to it under the old claim will get ERR_CLAIMED; "+
		"claim it again (claim_item) only if it is still yours to do.", by, it.ID, it.Title, lapse, reason, it.ID, it.Status)
}
