// Package reservations holds the advisory file reservation tools, named
// and shaped as mcp_agent_mail names them: before editing, an agent
// reserves the paths it will touch (globs of its project's repository),
// exclusively or shared, for a while. Nothing stops an edit: the
// reservations tell the others where not to work, and a conflict names who
// holds what until when, so agents can pick other work or talk.
//
// A reservation taken while its agent holds a claim on an item is linked
// to that item and ends with the claim (the store releases them in the
// transaction that ends the claim). The store serializes writes, so the
// conflict check and the insert of one call see the same reservations:
// of several agents racing for overlapping paths, one wins.
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
	"github.com/baton-dev/baton/tools/session"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "reservations"

// Bounds of the tools.
const (
	// MaxPaths is the most globs one call names.
	MaxPaths = 50
	// MaxActive is the most active reservations an agent holds in a
	// project: enough for any real edit, small enough that the conflict
	// check every reservation runs in the write transaction stays cheap.
	MaxActive = 200
	// DefaultExtend is how far renew_file_reservations moves an expiry
	// when the caller names no extension.
	DefaultExtend = 30 * time.Minute
	// StaleAfter is how long a holder may go unheard before others may
	// force its reservations released.
	StaleAfter = 30 * time.Minute
	// maxHolders is how many holders an error lists per requested path;
	// the count says how many more there were.
	maxHolders = 20
	// maxIDs is the most file_reservation_ids one call names.
	maxIDs = 200
)

// Field rules shared by several tools.
var (
	one         = 1
	globRule    = tool.Length(1, pathglob.MaxLen)
	pathsRule   = tool.Field{MinItems: &one, MaxItems: tool.List(MaxPaths, globRule).MaxItems, Items: &globRule}
	pathsFilter = tool.List(MaxPaths, globRule) // renew and release: optional
	idRule      = tool.Min(1)
	idsFilter   = tool.List(maxIDs, idRule)
	itemIDRule  = tool.Length(1, 128)
	projectRule = tool.Length(1, 63)
	agentRule   = tool.Length(1, 128)
	reasonRule  = tool.MaxLen(500)
	secondsRule = tool.Range(baton.MinReservationTTL.Seconds(), baton.MaxReservationTTL.Seconds())
)

// me is who a call reserves for: always the caller, never an argument.
func me(c *tool.Call) string { return c.Principal.Agent }

// same reports whether two agent names are one agent: the store compares
// them ASCII case-insensitively, as it does claim holders.
func same(a, b string) bool { return strings.EqualFold(a, b) }

// checkGlobs validates and cleans the globs of the array field, dropping
// repeats (after cleaning), in the order given.
func checkGlobs(field string, globs []string) ([]string, error) {
	out := make([]string, 0, len(globs))
	for i, g := range globs {
		c, err := checkGlob(fmt.Sprintf("%s[%d]", field, i), g)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// checkGlob validates the glob of field and returns its normal form.
func checkGlob(field, glob string) (string, error) {
	if err := pathglob.Validate(glob); err != nil {
		return "", baton.Errorf(baton.ErrInvalidInput, "%s is not a reservation glob: %v", field, err).
			WithDetails("field", field, "constraint", "glob", "value", echo(glob)).
			WithHint("name repository-relative paths or globs, as in src/main.go, src/** or **/*_test.go")
	}
	return pathglob.Clean(glob), nil
}

// echo is a refused value as an error quotes it: at most 64 characters.
func echo(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}

// overlap reports whether two clean, valid globs can match one path. The
// leading literal segments decide most pairs without the exact check: two
// patterns whose i-th segments are both plain names, after equal plain
// names before, match disjoint paths when those names differ.
func overlap(a, b string) bool {
	if a == b {
		return true
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if !literal(as[i]) || !literal(bs[i]) {
			break
		}
		if as[i] != bs[i] {
			return false
		}
	}
	return pathglob.Overlap(a, b)
}

// literal reports whether a segment is a plain name, with no wildcard,
// class or escape in it.
func literal(seg string) bool { return !strings.ContainsAny(seg, `*?[\`) }

// callerProject is the project a call that names no issue works in: the
// one named (or the session's, which the framework fills in), else the
// only one.
func callerProject(ctx context.Context, c *tool.Call, named string) (string, error) {
	p, err := session.Project(ctx, c, named)
	if err != nil {
		return "", err
	}
	return p.Slug, nil
}

// activeClaims are the caller's active claims on the project's items.
func activeClaims(ctx context.Context, c *tool.Call, project string) ([]*baton.Claim, error) {
	all, err := c.Tx.Claims(ctx, project)
	if err != nil {
		return nil, err
	}
	var out []*baton.Claim
	for _, cl := range all {
		if same(cl.Holder, me(c)) && cl.Active(c.Now) {
			out = append(out, cl)
		}
	}
	return out, nil
}

// mine are the caller's active reservations, in every project when
// project is "", oldest first.
func mine(ctx context.Context, c *tool.Call, project string) ([]*baton.FileReservation, error) {
	return c.Tx.Reservations(ctx, baton.ReservationFilter{Project: project, Agent: me(c), Now: c.Now})
}

// pick narrows rs to those whose pattern is one of globs (cleaned) or
// whose id is one of ids; all of them when neither is given.
func pick(rs []*baton.FileReservation, globs []string, ids []int64) []*baton.FileReservation {
	if len(globs) == 0 && len(ids) == 0 {
		return rs
	}
	var out []*baton.FileReservation
	for _, r := range rs {
		if slices.Contains(globs, r.Pattern) || slices.Contains(ids, r.ID) {
			out = append(out, r)
		}
	}
	return out
}

// lastSeen is when the agent was last heard from: a change it made, its
// reported status, or a heartbeat of one of its MCP sessions; at least
// since, when it is known to have been there then.
func lastSeen(ctx context.Context, tx baton.Tx, agent string, since, now time.Time) (time.Time, error) {
	last := since
	states, err := tx.Agents(ctx)
	if err != nil {
		return last, err
	}
	for _, s := range states {
		if same(s.Name, agent) && s.LastSeen.After(last) {
			last = s.LastSeen
		}
	}
	sessions, err := tx.AgentSessions(ctx, now.Add(-StaleAfter))
	if err != nil {
		return last, err
	}
	for _, s := range sessions {
		if same(s.Agent, agent) && s.LastSeen.After(last) {
			last = s.LastSeen
		}
	}
	return last, nil
}

// ago writes a duration the way the errors and messages say it: 3m ago.
func ago(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm ago", int(d.Hours()), int(d.Minutes())%60)
}

// kind names a reservation's mode.
func kind(exclusive bool) string {
	if exclusive {
		return "exclusive"
	}
	return "shared"
}
