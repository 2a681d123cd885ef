package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// The Files page: the file reservations agents hold (advisory leases on
// path globs of their project's repository, docs/reservations.md), with
// their holder, glob, kind, reason, the item they were taken for and
// when they lapse; a filter by agent; the ones that ended lately and who
// ended them; and the operator's force release of one
// (force_release_file_reservation, as the user: its holder is told).

// Bounds of the Files page, and of the reservations the item and agents
// pages show.
const (
	// reservationsShown bounds the active reservations listed, oldest
	// first: an agent holds at most 200 in a project (the tools' bound),
	// so more means many agents at once; the page says the list was cut.
	reservationsShown = 200
	// reservationsEndedShown is how many recently ended reservations the
	// page lists, the latest ended first.
	reservationsEndedShown = 20
	// reservationsEndedScan is how many of the newest reservations (taken
	// last, active or not) the recently ended list is picked from: one
	// taken long ago and ended just now may be past it.
	reservationsEndedScan = 200
	// itemReservationsShown bounds the active reservations an item's page
	// lists.
	itemReservationsShown = 20
	// agentReservationsRead bounds the active reservations the agents page
	// reads (of every agent); agentReservationsShown those a card lists.
	agentReservationsRead  = 500
	agentReservationsShown = 5
)

var reservationsPage = &pageDef{
	Pattern: "/reservations", Name: "reservations", Title: "Files", Nav: "reservations",
	// reservation.granted, .released, .renewed, .force_released; and the
	// end of a claim (released, forced, the item done or closed), which
	// ends the reservations taken for its item in the same transaction. A
	// lapse has no event: the page refreshes itself at the next expiry.
	Live: []string{"reservation.", "claim.", "issue.", "task.", "bead.", "item."},
	Load: loadReservations,
}

func init() { register(reservationsPage) }

// reservationRow is a reservation as the pages show it.
type reservationRow struct {
	*baton.FileReservation
	// Ended says how it ended ("released by its holder", "ended with its
	// claim", "forced by user", "expired"), at EndedAt; "" while active.
	Ended   string
	EndedAt time.Time
	// Forced marks one another agent (or the user) ended.
	Forced bool
}

func newReservationRow(r *baton.FileReservation, now time.Time) reservationRow {
	row := reservationRow{FileReservation: r}
	switch {
	case !r.ReleasedAt.IsZero():
		row.EndedAt = r.ReleasedAt
		switch by := r.ReleasedBy; {
		case by == "claim":
			row.Ended = "ended with its claim"
		case by == "" || strings.EqualFold(by, r.Agent):
			row.Ended = "released by its holder"
		default:
			row.Ended, row.Forced = "forced by "+by, true
		}
	case !now.Before(r.ExpiresAt):
		row.Ended, row.EndedAt = "expired", r.ExpiresAt
	}
	return row
}

// Kind is "exclusive" or "shared".
func (r reservationRow) Kind() string {
	if r.Exclusive {
		return "exclusive"
	}
	return "shared"
}

// ItemHref links the item it was taken for (an agent's text: one escaped
// segment); "" when it was taken for none.
func (r reservationRow) ItemHref() string {
	if r.Item == "" {
		return ""
	}
	return "/items/" + segment(r.Item)
}

// AgentHref is the Files page filtered to the holder.
func (r reservationRow) AgentHref() string {
	return "/reservations" + string(queryString("agent", r.Agent))
}

func reservationRows(rs []*baton.FileReservation, now time.Time) []reservationRow {
	out := make([]reservationRow, 0, len(rs))
	for _, r := range rs {
		out = append(out, newReservationRow(r, now))
	}
	return out
}

type reservationsData struct {
	Active     []reservationRow
	MoreActive bool // the list was cut at ActiveCap
	Ended      []reservationRow
	// Agent is the ?agent filter ("" for everyone); Choices the filter's
	// options: the agents of the reservations read, and the filter itself.
	Agent   string
	Choices []string
	// NextExpiry is when the first active one lapses (no event says so):
	// the page refreshes itself then; ExpiryInMS is that from now.
	NextExpiry time.Time
	ExpiryInMS int64
	ActiveCap  int
	EndedCap   int
	EndedScan  int
}

func loadReservations(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	agent := strings.TrimSpace(r.URL.Query().Get("agent"))
	if len(agent) > maxAgentName {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the agent filter is %d bytes, over %d", len(agent), maxAgentName).
			WithDetails("field", "agent", "limit", maxAgentName).WithHint("pick an agent from the list")
	}
	project := projectParam(r)
	now := s.now()
	d := &reservationsData{Agent: agent, ActiveCap: reservationsShown, EndedCap: reservationsEndedShown, EndedScan: reservationsEndedScan}
	var everyone []*baton.FileReservation // the active ones of every agent, for the filter's choices
	err := s.view(ctx, func(tx baton.Tx) error {
		active, err := tx.Reservations(ctx, baton.ReservationFilter{Project: project, Agent: agent, Now: now, Limit: reservationsShown + 1})
		if err != nil {
			return err
		}
		if len(active) > reservationsShown {
			active, d.MoreActive = active[:reservationsShown], true
		}
		d.Active = reservationRows(active, now)
		everyone = active
		if agent != "" {
			if everyone, err = tx.Reservations(ctx, baton.ReservationFilter{Project: project, Now: now, Limit: reservationsShown}); err != nil {
				return err
			}
		}
		recent, err := tx.Reservations(ctx, baton.ReservationFilter{Project: project, Agent: agent, All: true, Limit: reservationsEndedScan})
		if err != nil {
			return err
		}
		for _, res := range recent {
			if row := newReservationRow(res, now); row.Ended != "" {
				d.Ended = append(d.Ended, row)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The latest ended first; an id breaks ties the same way each time.
	slices.SortStableFunc(d.Ended, func(a, b reservationRow) int {
		if c := b.EndedAt.Compare(a.EndedAt); c != 0 {
			return c
		}
		return int(b.ID - a.ID)
	})
	d.Ended = d.Ended[:min(len(d.Ended), reservationsEndedShown)]
	d.NextExpiry, d.ExpiryInMS = nextExpiry(d.Active, now)
	d.Choices = reservationChoices(everyone, d.Ended, agent)
	return d, nil
}

// nextExpiry is when the first of rows lapses, and that in milliseconds
// from now (the browser's clock need not agree with ours); zero for none.
func nextExpiry(rows []reservationRow, now time.Time) (time.Time, int64) {
	var next time.Time
	for _, row := range rows {
		if next.IsZero() || row.ExpiresAt.Before(next) {
			next = row.ExpiresAt
		}
	}
	if next.IsZero() {
		return next, 0
	}
	return next, max(next.Sub(now).Milliseconds(), 0)
}

// reservationChoices are the agents of the reservations read, by name,
// each once (ASCII case-insensitively), with the filter itself when it
// names none of them.
func reservationChoices(active []*baton.FileReservation, ended []reservationRow, agent string) []string {
	var out []string
	add := func(name string) {
		if name != "" && !slices.ContainsFunc(out, func(c string) bool { return strings.EqualFold(c, name) }) {
			out = append(out, name)
		}
	}
	for _, r := range active {
		add(r.Agent)
	}
	for _, r := range ended {
		add(r.Agent)
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	add(agent)
	return out
}

// activeReservationsOf reads the active reservations taken for an item,
// oldest first, at most itemReservationsShown; more says there were more.
func activeReservationsOf(ctx context.Context, tx baton.Tx, item string, now time.Time) (rows []reservationRow, more bool, err error) {
	rs, err := tx.Reservations(ctx, baton.ReservationFilter{Item: item, Now: now, Limit: itemReservationsShown + 1})
	if err != nil {
		return nil, false, err
	}
	if len(rs) > itemReservationsShown {
		rs, more = rs[:itemReservationsShown], true
	}
	return reservationRows(rs, now), more, nil
}

// agentReservations reads the active reservations of every agent (at
// most agentReservationsRead, oldest first) and hands each agent's row
// its first agentReservationsShown, counting the rest in MoreFiles.
func agentReservations(ctx context.Context, tx baton.Tx, agents []*agentRow, now time.Time) error {
	rs, err := tx.Reservations(ctx, baton.ReservationFilter{Now: now, Limit: agentReservationsRead})
	if err != nil {
		return err
	}
	byName := map[string]*agentRow{}
	for _, a := range agents {
		byName[strings.ToLower(a.Name)] = a
	}
	for _, res := range rs {
		a := byName[strings.ToLower(res.Agent)]
		switch {
		case a == nil:
		case len(a.Files) < agentReservationsShown:
			a.Files = append(a.Files, newReservationRow(res, now))
		default:
			a.MoreFiles++
		}
	}
	return nil
}

// FilesHref is the Files page filtered to the agent.
func (a *agentRow) FilesHref() string { return "/reservations" + string(queryString("agent", a.Name)) }
