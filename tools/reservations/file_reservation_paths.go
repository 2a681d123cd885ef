package reservations

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/pathglob"
	"github.com/baton-dev/baton/tool"
)

type reserveIn struct {
	Paths      []string `json:"paths" jsonschema:"Repository-relative paths or globs: src/main.go, src/** (or src/), **/*_test.go."`
	Exclusive  bool     `json:"exclusive,omitempty" jsonschema:"false: shared with other shared reservations."`
	TTLSeconds int      `json:"ttl_seconds,omitempty" jsonschema:"Lease length in seconds."`
	Reason     string   `json:"reason,omitempty" jsonschema:"What you are doing there."`
	IssueID    string   `json:"issue_id,omitempty" jsonschema:"An item you claimed; its claim's end releases these. Defaults to your only claimed item."`
	Project    string   `json:"project,omitempty" jsonschema:"Project slug; defaults to issue_id's, else the session's."`
}

type grantView struct {
	ID          int64  `json:"file_reservation_id" jsonschema:"The reservation's id, for renew, release and force-release."`
	PathPattern string `json:"path_pattern" jsonschema:"The glob reserved, in normal form (src/ reads src/**)."`
	Exclusive   bool   `json:"exclusive" jsonschema:"Whether it is exclusive."`
	Reason      string `json:"reason" jsonschema:"Why it was taken."`
	IssueID     string `json:"issue_id,omitempty" jsonschema:"The claimed item it is linked to: it ends with that claim."`
	ExpiresAt   string `json:"expires_at" jsonschema:"ISO-8601 UTC time it lapses unless renewed."`
}

// holderView is one reservation in another agent's way.
type holderView struct {
	Agent       string `json:"agent" jsonschema:"Who holds it."`
	PathPattern string `json:"path_pattern" jsonschema:"The glob it holds."`
	Exclusive   bool   `json:"exclusive" jsonschema:"Whether it is exclusive."`
	ExpiresAt   string `json:"expires_at" jsonschema:"ISO-8601 UTC time it lapses unless renewed."`
	Reason      string `json:"reason" jsonschema:"Why its holder took it."`
	ID          int64  `json:"file_reservation_id" jsonschema:"Its id."`
	Example     string `json:"example_path,omitempty" jsonschema:"A path both globs match."`

	expires time.Time
}

// conflictView is a requested path and the reservations in its way.
type conflictView struct {
	Path    string       `json:"path" jsonschema:"The requested glob."`
	Holders []holderView `json:"holders" jsonschema:"The other agents' active reservations it collides with."`
	More    int          `json:"more_holders,omitempty" jsonschema:"How many more reservations collide with it than holders lists."`
}

type reserveOut struct {
	Granted   []grantView    `json:"granted" jsonschema:"The reservations you hold on the requested paths, one per path."`
	Conflicts []conflictView `json:"conflicts" jsonschema:"Always empty: a conflict fails the whole call with ERR_CONFLICT, whose details list the conflicts in this shape (kept for mcp_agent_mail clients)."`
}

// FileReservationPaths is file_reservation_paths.
var FileReservationPaths = tool.New(tool.Definition[reserveIn, reserveOut]{
	Name:    "file_reservation_paths",
	Event:   "reservation.granted",
	Toolset: Toolset,
	Description: "Reserve paths or globs before editing them (advisory), exclusive or shared, all or nothing: " +
		"if any overlaps another agent's conflicting reservation, nothing is reserved and ERR_CONFLICT names the holders, globs and expiries. " +
		"Reserving a glob you hold updates it. Reservations taken for a claimed item end with the claim.",
	Profiles: tool.Profiles,
	Verbs:    []string{"reserve"},
	Args:     []string{"paths"},
	Input: tool.Rules{
		"paths":       pathsRule,
		"exclusive":   tool.Field{}.WithDefault(true),
		"ttl_seconds": secondsRule.WithDefault(int(baton.DefaultReservationTTL.Seconds())),
		"reason":      reasonRule,
		"issue_id":    itemIDRule,
		"project":     projectRule,
	},
	Output: tool.Rules{
		"granted.expires_at":           tool.DateTime(),
		"conflicts.holders.expires_at": tool.DateTime(),
	},
	Execute: func(ctx context.Context, c *tool.Call, in reserveIn) (reserveOut, error) {
		globs, err := checkGlobs("paths", in.Paths)
		if err != nil {
			return reserveOut{}, err
		}
		project, item, err := reservingFor(ctx, c, in.IssueID, in.Project)
		if err != nil {
			return reserveOut{}, err
		}
		active, err := c.Tx.Reservations(ctx, baton.ReservationFilter{Project: project, Now: c.Now})
		if err != nil {
			return reserveOut{}, err
		}
		expires := c.Now.Add(time.Duration(in.TTLSeconds) * time.Second)

		// What each path becomes: an update of the caller's reservation of
		// the same glob, or a new one; and what is in its way.
		var own []*baton.FileReservation
		for _, r := range active {
			if same(r.Agent, me(c)) {
				own = append(own, r)
			}
		}
		plans := make([]plan, 0, len(globs))
		var conflicts []conflictView
		added := 0
		for _, g := range globs {
			p := plan{glob: g, exclusive: in.Exclusive}
			if i := slices.IndexFunc(own, func(r *baton.FileReservation) bool { return r.Pattern == g }); i >= 0 {
				p.old = own[i]
				p.exclusive = p.exclusive || p.old.Exclusive
			} else {
				added++
			}
			if cv := conflictsOf(c, g, p.exclusive, active); len(cv.Holders) > 0 {
				conflicts = append(conflicts, cv)
			}
			plans = append(plans, p)
		}
		if len(conflicts) > 0 {
			return reserveOut{}, conflictError(conflicts)
		}
		if n := len(own) + added; n > MaxActive {
			return reserveOut{}, baton.Errorf(baton.ErrInvalidInput,
				"paths: %d new reservations would give you %d active ones in %s, over the limit of %d", added, n, project, MaxActive).
				WithDetails("field", "paths", "constraint", "max_active_reservations", "limit", MaxActive, "active", len(own), "project", project).
				WithHint("release what you no longer edit (release_file_reservations), or reserve a parent directory (dir/**) instead of many files")
		}

		out := reserveOut{Granted: make([]grantView, 0, len(plans)), Conflicts: []conflictView{}}
		for _, p := range plans {
			r, err := p.apply(ctx, c, project, item, in.Reason, expires)
			if err != nil {
				return reserveOut{}, err
			}
			out.Granted = append(out.Granted, grantView{ID: r.ID, PathPattern: r.Pattern, Exclusive: r.Exclusive, Reason: r.Reason,
				IssueID: r.Item, ExpiresAt: baton.Timestamp(r.ExpiresAt)})
		}
		return out, nil
	},
})

// plan is what one requested glob becomes.
type plan struct {
	glob      string
	exclusive bool
	old       *baton.FileReservation // the caller's active reservation of the same glob, if any
}

// apply grants the plan: a new reservation, or the caller's one of the
// same glob updated to the stronger of both (exclusive if either is, the
// later expiry, the new reason and item when given).
func (p plan) apply(ctx context.Context, c *tool.Call, project, item, reason string, expires time.Time) (*baton.FileReservation, error) {
	if p.old == nil {
		r := &baton.FileReservation{Project: project, Agent: me(c), Pattern: p.glob, Exclusive: p.exclusive, Reason: reason,
			Item: item, CreatedAt: c.Now, ExpiresAt: expires}
		return r, c.Tx.AddReservation(ctx, r)
	}
	r := *p.old
	if expires.After(r.ExpiresAt) {
		r.ExpiresAt = expires
	}
	if reason != "" {
		r.Reason = reason
	}
	if item != "" {
		r.Item = item
	}
	if r.Exclusive == p.exclusive && r.Reason == p.old.Reason && r.Item == p.old.Item {
		if r.ExpiresAt.Equal(p.old.ExpiresAt) {
			return &r, nil
		}
		return &r, c.Tx.RenewReservation(ctx, r.ID, r.ExpiresAt)
	}
	// The store renews a reservation but changes nothing else of it: a
	// reservation whose mode, reason or item changes is replaced, in this
	// transaction, by one under a new id.
	if _, err := c.Tx.ReleaseReservation(ctx, r.ID, c.Now, me(c)); err != nil {
		return nil, err
	}
	r.ID, r.Exclusive, r.CreatedAt = 0, p.exclusive, c.Now
	return &r, c.Tx.AddReservation(ctx, &r)
}

// conflictsOf lists the other agents' active reservations that a
// reservation of glob (exclusive or not) would conflict with: those whose
// globs overlap it, when either of the two is exclusive.
func conflictsOf(c *tool.Call, glob string, exclusive bool, active []*baton.FileReservation) conflictView {
	cv := conflictView{Path: glob, Holders: []holderView{}}
	for _, r := range active {
		if same(r.Agent, me(c)) || !(exclusive || r.Exclusive) || !overlap(glob, r.Pattern) {
			continue
		}
		h := holderView{Agent: r.Agent, PathPattern: r.Pattern, Exclusive: r.Exclusive, ExpiresAt: baton.Timestamp(r.ExpiresAt),
			Reason: r.Reason, ID: r.ID, expires: r.ExpiresAt}
		if len(cv.Holders) < maxHolders { // the error lists no more
			h.Example, _ = pathglob.Witness(glob, r.Pattern)
		}
		cv.Holders = append(cv.Holders, h)
	}
	return cv
}

// conflictError is the refusal of a reservation in others' way: the
// message names, per path, the holders, their globs and expiries; the
// details hold them all in file_reservation_paths' conflicts shape.
func conflictError(conflicts []conflictView) error {
	var parts []string
	holders := map[string]bool{}
	var names []string
	var soonest time.Time
	anyExclusive := false
	for i := range conflicts {
		cv := &conflicts[i]
		var hs []string
		for _, h := range cv.Holders {
			s := fmt.Sprintf("%s's %s %s until %s", h.Agent, kind(h.Exclusive), h.PathPattern, h.ExpiresAt)
			if h.Reason != "" {
				s += fmt.Sprintf(" (%q)", h.Reason)
			}
			hs = append(hs, s)
			if k := strings.ToLower(h.Agent); !holders[k] {
				holders[k] = true
				names = append(names, h.Agent)
			}
			if soonest.IsZero() || h.expires.Before(soonest) {
				soonest = h.expires
			}
			anyExclusive = anyExclusive || h.Exclusive
		}
		if len(hs) > 3 {
			hs = append(hs[:3], fmt.Sprintf("%d more", len(hs)-3))
		}
		parts = append(parts, fmt.Sprintf("%s conflicts with %s", cv.Path, strings.Join(hs, ", ")))
		if n := len(cv.Holders); n > maxHolders {
			cv.Holders, cv.More = cv.Holders[:maxHolders], n-maxHolders
		}
	}
	more := ""
	if len(parts) > 5 {
		more = fmt.Sprintf("; and %d more paths", len(parts)-5)
		parts = parts[:5]
	}
	hint := fmt.Sprintf("nothing was reserved; work elsewhere meanwhile, or message %s (send_message) to agree on the paths, "+
		"or wait: the first of these reservations lapses at %s", strings.Join(names, ", "), baton.Timestamp(soonest))
	if !anyExclusive {
		hint += "; they are shared, so reserving with exclusive false would succeed"
	}
	return baton.Errorf(baton.ErrConflict, "paths reserved by another agent: %s%s", strings.Join(parts, "; "), more).
		WithType(baton.ErrorTypePathConflict).
		WithDetails("conflicts", conflicts, "holders", names, "granted", []grantView{}).
		WithHint("%s", hint)
}

// reservingFor is the project and item a reservation call is for: the
// named issue's, which the caller must hold an active claim on; else the
// caller's project and the one item it holds an active claim on there
// (the session's bound issue among several), or none.
func reservingFor(ctx context.Context, c *tool.Call, issueID, named string) (project, item string, err error) {
	if issueID != "" {
		it, err := c.Tx.Item(ctx, issueID)
		if err != nil {
			return "", "", err
		}
		cl, err := c.Tx.ClaimOf(ctx, it.ID)
		if err != nil {
			return "", "", err
		}
		switch {
		case cl != nil && cl.Active(c.Now) && same(cl.Holder, me(c)):
			return it.Project, it.ID, nil
		case cl != nil && cl.Active(c.Now):
			return "", "", baton.Errorf(baton.ErrClaimed, "%s is claimed by %s until %s: reserve files only for your own work",
				it.ID, cl.Holder, baton.Timestamp(cl.ExpiresAt)).
				WithDetails("field", "issue_id", "item_id", it.ID, "holder", cl.Holder, "expires_at", baton.Timestamp(cl.ExpiresAt)).
				WithHint("reserve for an item you claimed (claim_item or claim_next), or leave issue_id out")
		}
		why := "nobody holds a claim on it"
		if cl != nil && same(cl.Holder, me(c)) {
			why = "your claim on it lapsed at " + baton.Timestamp(cl.ExpiresAt)
		}
		return "", "", baton.Errorf(baton.ErrInvalidInput, "issue_id %s is not claimed by you: %s", it.ID, why).
			WithDetails("field", "issue_id", "constraint", "claimed_by_you", "item_id", it.ID).
			WithHint("claim it first (claim_item with item_id %s), then reserve; or leave issue_id out to reserve unlinked", it.ID)
	}
	if project, err = callerProject(ctx, c, named); err != nil {
		return "", "", err
	}
	claims, err := activeClaims(ctx, c, project)
	if err != nil {
		return "", "", err
	}
	switch {
	case len(claims) == 1:
		item = claims[0].ItemID
	case c.Principal.IssueID != "":
		if i := slices.IndexFunc(claims, func(cl *baton.Claim) bool { return cl.ItemID == c.Principal.IssueID }); i >= 0 {
			item = claims[i].ItemID
		}
	}
	return project, item, nil
}
