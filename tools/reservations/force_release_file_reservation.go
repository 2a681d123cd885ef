package reservations

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type forceIn struct {
	ID             int64  `json:"file_reservation_id" jsonschema:"The other agent's reservation to end."`
	Note           string `json:"note,omitempty" jsonschema:"Why you end it: its holder reads it in the message it gets."`
	NotifyPrevious bool   `json:"notify_previous,omitempty" jsonschema:"Whether to message the holder (thread reservation-ID) that its reservation ended."`
}

type forceOut struct {
	ID             int64  `json:"file_reservation_id" jsonschema:"The reservation."`
	PathPattern    string `json:"path_pattern" jsonschema:"Its glob."`
	PreviousHolder string `json:"previous_holder" jsonschema:"The agent whose reservation ended."`
	ReleasedAt     string `json:"released_at" jsonschema:"ISO-8601 UTC time it ended."`
	Notified       bool   `json:"notified" jsonschema:"Whether the holder was messaged."`
	MessageID      string `json:"message_id,omitempty" jsonschema:"The message that told the holder, when notified."`
}

// ForceReleaseFileReservation is force_release_file_reservation.
var ForceReleaseFileReservation = tool.New(tool.Definition[forceIn, forceOut]{
	Name:    "force_release_file_reservation",
	Event:   "reservation.force_released",
	Toolset: Toolset,
	Description: "End another agent's stale file reservation, one left by an agent that stopped: its holder has not been heard from for 30 minutes, " +
		"or the item it was taken for is no longer claimed by the holder (the human may end any). " +
		"ERR_CONFLICT when the holder looks active: message it instead. The holder is messaged with your note unless notify_previous is false.",
	Profiles: tool.Profiles,
	Verbs:    []string{"force-release"},
	Args:     []string{"file_reservation_id"},
	Input: tool.Rules{
		"file_reservation_id": idRule,
		"note":                tool.MaxLen(1000),
		"notify_previous":     tool.Field{}.WithDefault(true),
	},
	Output: tool.Rules{"released_at": tool.DateTime()},
	Execute: func(ctx context.Context, c *tool.Call, in forceIn) (forceOut, error) {
		r, err := c.Tx.Reservation(ctx, in.ID)
		if err != nil {
			return forceOut{}, err
		}
		by := me(c)
		switch {
		case same(r.Agent, by):
			return forceOut{}, baton.Errorf(baton.ErrInvalidInput, "file_reservation_id %d (%s) is your own reservation", r.ID, r.Pattern).
				WithDetails("field", "file_reservation_id", "constraint", "not_own_reservation", "holder", r.Agent).
				WithHint("end your own reservations with release_file_reservations")
		case !r.Active(c.Now):
			ended := "it lapsed at " + baton.Timestamp(r.ExpiresAt)
			if !r.ReleasedAt.IsZero() {
				ended = fmt.Sprintf("%s released it at %s", r.ReleasedBy, baton.Timestamp(r.ReleasedAt))
			}
			return forceOut{}, baton.Errorf(baton.ErrInvalidInput, "file_reservation_id %d (%s of %s) has ended already: %s", r.ID, r.Pattern, r.Agent, ended).
				WithDetails("field", "file_reservation_id", "constraint", "active", "holder", r.Agent).
				WithHint("nothing holds those paths now: reserve them with file_reservation_paths")
		}
		why, err := staleness(ctx, c, r)
		if err != nil {
			return forceOut{}, err
		}
		if _, err := c.Tx.ReleaseReservation(ctx, r.ID, c.Now, by); err != nil {
			return forceOut{}, err
		}
		out := forceOut{ID: r.ID, PathPattern: r.Pattern, PreviousHolder: r.Agent, ReleasedAt: baton.Timestamp(c.Now)}
		if in.NotifyPrevious {
			m := &baton.Message{Project: r.Project, AgentID: by, Recipient: r.Agent, Role: baton.RoleAgent,
				Body: forceNotice(by, r, why, in.Note), ThreadID: Thread(r.ID), CreatedAt: c.Now}
			if by == baton.User {
				m.Role = baton.RoleUser
			}
			if err := c.Tx.SendMessage(ctx, m); err != nil {
				return forceOut{}, err
			}
			out.Notified, out.MessageID = true, m.ID
		}
		return out, nil
	},
})

// Thread is the message thread about a reservation.
func Thread(id int64) string { return fmt.Sprintf("reservation-%d", id) }

// staleness says why r may be forced by the caller, or refuses with what
// shows its holder is still at work: the human may force any reservation;
// an agent one whose holder has been silent for StaleAfter or whose item
// the holder no longer claims.
func staleness(ctx context.Context, c *tool.Call, r *baton.FileReservation) (string, error) {
	if me(c) == baton.User {
		return "", nil
	}
	last, err := lastSeen(ctx, c.Tx, r.Agent, r.CreatedAt, c.Now)
	if err != nil {
		return "", err
	}
	if silent := c.Now.Sub(last); silent >= StaleAfter {
		return fmt.Sprintf("you were last heard from %s (%s)", ago(silent), baton.Timestamp(last)), nil
	}
	claimed := false
	if r.Item != "" {
		cl, err := c.Tx.ClaimOf(ctx, r.Item)
		if err != nil {
			return "", err
		}
		if cl == nil || !same(cl.Holder, r.Agent) || !cl.Active(c.Now) {
			return fmt.Sprintf("you no longer hold a claim on %s, which it was taken for", r.Item), nil
		}
		claimed = true
	}
	active := []string{fmt.Sprintf("%s was last heard from %s (%s)", r.Agent, ago(c.Now.Sub(last)), baton.Timestamp(last))}
	if claimed {
		active = append(active, "still holds its claim on "+r.Item)
	}
	return "", baton.Errorf(baton.ErrConflict, "file reservation %d (%s %s until %s) looks active: %s",
		r.ID, kind(r.Exclusive), r.Pattern, baton.Timestamp(r.ExpiresAt), strings.Join(active, " and ")).
		WithDetails("file_reservation_id", r.ID, "holder", r.Agent, "path_pattern", r.Pattern, "last_seen", baton.Timestamp(last),
			"item_id", r.Item, "item_claimed", claimed, "expires_at", baton.Timestamp(r.ExpiresAt),
			"stale_after_seconds", int(StaleAfter.Seconds()), "stale_at", baton.Timestamp(last.Add(StaleAfter))).
		WithHint("message %s (send_message, thread %s) to ask it to release the paths, or wait: it lapses at %s and becomes stale at %s if %s stays silent",
			r.Agent, Thread(r.ID), baton.Timestamp(r.ExpiresAt), baton.Timestamp(last.Add(StaleAfter)), r.Agent)
}

// forceNotice is what the previous holder reads.
func forceNotice(by string, r *baton.FileReservation, why, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s released your %s file reservation %d on %s (taken %s, due to lapse at %s)",
		by, kind(r.Exclusive), r.ID, r.Pattern, baton.Timestamp(r.CreatedAt), baton.Timestamp(r.ExpiresAt))
	if why != "" {
		fmt.Fprintf(&b, ": %s", why)
	}
	b.WriteString(".")
	if note != "" {
		fmt.Fprintf(&b, " Note: %s", note)
	}
	b.WriteString("\n\nOthers may reserve and edit those paths now. Reserve them again (file_reservation_paths) before you edit there.")
	return b.String()
}
