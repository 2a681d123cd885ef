package reservations

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type renewIn struct {
	ExtendSeconds int      `json:"extend_seconds,omitempty" jsonschema:"Seconds to add to each expiry (at most 24 hours from now)."`
	Paths         []string `json:"paths,omitempty" jsonschema:"Only these globs."`
	IDs           []int64  `json:"file_reservation_ids,omitempty" jsonschema:"Only these ids."`
}

type renewedView struct {
	ID           int64  `json:"file_reservation_id" jsonschema:"The reservation."`
	PathPattern  string `json:"path_pattern" jsonschema:"Its glob."`
	OldExpiresAt string `json:"old_expires_at" jsonschema:"ISO-8601 UTC time it would have lapsed."`
	NewExpiresAt string `json:"new_expires_at" jsonschema:"ISO-8601 UTC time it lapses now unless renewed again."`
}

type renewOut struct {
	Renewed          int           `json:"renewed" jsonschema:"How many reservations were renewed; 0 when none of yours is active (reserve again with file_reservation_paths)."`
	FileReservations []renewedView `json:"file_reservations" jsonschema:"The renewed reservations."`
}

// RenewFileReservations is renew_file_reservations.
var RenewFileReservations = tool.New(tool.Definition[renewIn, renewOut]{
	Name:        "renew_file_reservations",
	Event:       "reservation.renewed",
	Toolset:     Toolset,
	Description: "Extend your active file reservations (all, or those of the paths or ids given). A lapsed one cannot be renewed: reserve again.",
	Profiles:    tool.Profiles,
	Verbs:       []string{"renew"},
	Input: tool.Rules{
		"extend_seconds":       secondsRule.WithDefault(int(DefaultExtend.Seconds())),
		"paths":                pathsFilter,
		"file_reservation_ids": idsFilter,
	},
	Output: tool.Rules{
		"file_reservations.old_expires_at": tool.DateTime(),
		"file_reservations.new_expires_at": tool.DateTime(),
	},
	Execute: func(ctx context.Context, c *tool.Call, in renewIn) (renewOut, error) {
		globs, err := checkGlobs("paths", in.Paths)
		if err != nil {
			return renewOut{}, err
		}
		rs, err := mine(ctx, c, c.Principal.Project)
		if err != nil {
			return renewOut{}, err
		}
		extend := time.Duration(in.ExtendSeconds) * time.Second
		limit := c.Now.Add(baton.MaxReservationTTL)
		out := renewOut{FileReservations: []renewedView{}}
		for _, r := range pick(rs, globs, in.IDs) {
			until := r.ExpiresAt
			if until.Before(c.Now) {
				until = c.Now
			}
			until = until.Add(extend)
			if until.After(limit) {
				until = limit
			}
			if until.After(r.ExpiresAt) {
				if err := c.Tx.RenewReservation(ctx, r.ID, until); err != nil {
					return renewOut{}, err
				}
			} else {
				until = r.ExpiresAt // already past the cap: left as it is
			}
			out.FileReservations = append(out.FileReservations, renewedView{ID: r.ID, PathPattern: r.Pattern,
				OldExpiresAt: baton.Timestamp(r.ExpiresAt), NewExpiresAt: baton.Timestamp(until)})
		}
		out.Renewed = len(out.FileReservations)
		return out, nil
	},
})
