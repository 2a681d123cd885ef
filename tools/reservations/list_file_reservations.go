package reservations

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type listIn struct {
	Agent           string `json:"agent,omitempty" jsonschema:"Only this agent's."`
	Path            string `json:"path,omitempty" jsonschema:"Only those overlapping this path or glob."`
	IssueID         string `json:"issue_id,omitempty" jsonschema:"Only those taken for this item."`
	IncludeReleased bool   `json:"include_released,omitempty" jsonschema:"Also released and lapsed ones, newest first."`
	Limit           int    `json:"limit,omitempty" jsonschema:"At most this many."`
	Project         string `json:"project,omitempty" jsonschema:"Project slug; defaults to the session's, else all."`
}

type reservationView struct {
	ID          int64  `json:"file_reservation_id" jsonschema:"The reservation's id."`
	Project     string `json:"project" jsonschema:"Its project."`
	Agent       string `json:"agent" jsonschema:"Who holds (or held) it."`
	PathPattern string `json:"path_pattern" jsonschema:"The glob reserved."`
	Exclusive   bool   `json:"exclusive" jsonschema:"Whether it is exclusive."`
	Reason      string `json:"reason" jsonschema:"Why it was taken."`
	IssueID     string `json:"issue_id,omitempty" jsonschema:"The claimed item it was taken for; it ends with that claim."`
	CreatedAt   string `json:"created_at" jsonschema:"ISO-8601 UTC time it was taken."`
	ExpiresAt   string `json:"expires_at" jsonschema:"ISO-8601 UTC time it lapses (or lapsed) unless renewed."`
	Active      bool   `json:"active" jsonschema:"Whether it holds now: neither released nor lapsed."`
	ReleasedAt  string `json:"released_at,omitempty" jsonschema:"ISO-8601 UTC time it was released, if it was."`
	ReleasedBy  string `json:"released_by,omitempty" jsonschema:"Who released it: its holder, claim (its item's claim ended) or the agent that forced it."`
}

type listOut struct {
	FileReservations []reservationView `json:"file_reservations" jsonschema:"The reservations."`
}

// ListFileReservations is list_file_reservations.
var ListFileReservations = tool.New(tool.Definition[listIn, listOut]{
	Name:        "list_file_reservations",
	Toolset:     Toolset,
	Description: "List active file reservations: who holds which globs, how, why and until when.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Verbs:       []string{"list", "ls"},
	Input: tool.Rules{
		"agent":    agentRule,
		"path":     globRule,
		"issue_id": itemIDRule,
		"limit":    tool.Range(1, 1000).WithDefault(100),
		"project":  projectRule,
	},
	Output: tool.Rules{
		"file_reservations.created_at":  tool.DateTime(),
		"file_reservations.expires_at":  tool.DateTime(),
		"file_reservations.released_at": tool.DateTime(),
	},
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		var glob string
		if in.Path != "" {
			var err error
			if glob, err = checkGlob("path", in.Path); err != nil {
				return listOut{}, err
			}
		}
		f := baton.ReservationFilter{Project: in.Project, Agent: in.Agent, Item: in.IssueID, All: in.IncludeReleased, Now: c.Now,
			Limit: in.Limit}
		if glob != "" {
			f.Limit = 0 // the overlap is decided here, after the store's filters
		}
		rs, err := c.Tx.Reservations(ctx, f)
		if err != nil {
			return listOut{}, err
		}
		out := listOut{FileReservations: []reservationView{}}
		for _, r := range rs {
			if len(out.FileReservations) == in.Limit {
				break
			}
			if glob != "" && !overlap(glob, r.Pattern) {
				continue
			}
			v := reservationView{ID: r.ID, Project: r.Project, Agent: r.Agent, PathPattern: r.Pattern, Exclusive: r.Exclusive,
				Reason: r.Reason, IssueID: r.Item, CreatedAt: baton.Timestamp(r.CreatedAt), ExpiresAt: baton.Timestamp(r.ExpiresAt),
				Active: r.Active(c.Now), ReleasedBy: r.ReleasedBy}
			if !r.ReleasedAt.IsZero() {
				v.ReleasedAt = baton.Timestamp(r.ReleasedAt)
			}
			out.FileReservations = append(out.FileReservations, v)
		}
		return out, nil
	},
})
