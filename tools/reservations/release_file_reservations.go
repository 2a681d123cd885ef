package reservations

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type releaseIn struct {
	Paths []string `json:"paths,omitempty" jsonschema:"Only these globs."`
	IDs   []int64  `json:"file_reservation_ids,omitempty" jsonschema:"Only these ids."`
}

type releaseOut struct {
	Released   int     `json:"released" jsonschema:"How many reservations ended; 0 when none of yours matched (already released or lapsed)."`
	IDs        []int64 `json:"file_reservation_ids" jsonschema:"The ids of those that ended."`
	ReleasedAt string  `json:"released_at" jsonschema:"ISO-8601 UTC time they ended."`
}

// ReleaseFileReservations is release_file_reservations.
var ReleaseFileReservations = tool.New(tool.Definition[releaseIn, releaseOut]{
	Name:        "release_file_reservations",
	Event:       "reservation.released",
	Toolset:     Toolset,
	Description: "End your active file reservations (all, or those of the paths or ids given) when done editing. Your claim's end releases those taken for its item.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{Idempotent: true},
	Verbs:       []string{"release"},
	Args:        []string{"paths"},
	Input: tool.Rules{
		"paths":                pathsFilter,
		"file_reservation_ids": idsFilter,
	},
	Output: tool.Rules{"released_at": tool.DateTime()},
	Execute: func(ctx context.Context, c *tool.Call, in releaseIn) (releaseOut, error) {
		globs, err := checkGlobs("paths", in.Paths)
		if err != nil {
			return releaseOut{}, err
		}
		rs, err := mine(ctx, c, c.Principal.Project)
		if err != nil {
			return releaseOut{}, err
		}
		out := releaseOut{IDs: []int64{}, ReleasedAt: baton.Timestamp(c.Now)}
		for _, r := range pick(rs, globs, in.IDs) {
			ended, err := c.Tx.ReleaseReservation(ctx, r.ID, c.Now, me(c))
			if err != nil {
				return releaseOut{}, err
			}
			if ended {
				out.IDs = append(out.IDs, r.ID)
			}
		}
		out.Released = len(out.IDs)
		return out, nil
	},
})
