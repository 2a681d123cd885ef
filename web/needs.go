package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// "Needs you" is the front page: everything waiting on the human, each
// with its action in place.

// StaleAfter is how long a claim's holder may go unheard before the claim
// counts as stale (besides a lease that lapsed and was not yet reaped): an
// agent that stopped calling for this long has likely died.
const StaleAfter = 5 * time.Minute

// needsLimit bounds each list of the page; the counts say when more wait.
const needsLimit = 100

type staleClaim struct {
	Claim    *baton.Claim
	Item     *baton.Item
	LastSeen time.Time // the holder's last call or heartbeat; zero if never seen
	Lapsed   bool
}

type needsData struct {
	Questions []*baton.Message
	Blocked   []*baton.Item // blocked on a person
	Escalated []*baton.Item // phase rejections past the limit
	PRs       []*baton.PR   // open (to review) or approved (to merge)
	Proposals []*baton.Proposal
	Stale     []staleClaim
	// NextStale is when the next claim turns stale by time alone (no
	// event says so): the page refreshes itself then. Zero: none will.
	NextStale  time.Time
	StaleInMS  int64 // NextStale from now, in ms: the browser's clock need not agree with ours
	Total      int
	StaleAfter time.Duration
}

var needsPage = &pageDef{
	Pattern: "/{$}", Name: "needs", Title: "Needs you", Nav: "needs",
	Live: []string{"question.", "message.", "issue.", "task.", "bead.", "item.", "claim.", "pr.", "proposal.", "phase.", "agent."},
	Load: loadNeeds,
}

func init() { register(needsPage) }

func loadNeeds(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	project := projectParam(r)
	now := s.now()
	d := &needsData{StaleAfter: StaleAfter}
	err := s.view(ctx, func(tx baton.Tx) error {
		msgs, err := tx.ReadMessages(ctx, "", baton.MessageFilter{Project: project, To: baton.User, Question: "open", Limit: needsLimit})
		if err != nil {
			return err
		}
		d.Questions = msgs
		page, err := tx.ListItems(ctx, baton.ItemFilter{Project: project, Statuses: []baton.Status{baton.StatusBlocked},
			Sort: baton.SortPriority, Limit: needsLimit})
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			if escalated(it) {
				d.Escalated = append(d.Escalated, it)
			} else {
				d.Blocked = append(d.Blocked, it)
			}
		}
		if d.PRs, err = tx.PRs(ctx, baton.PRFilter{Project: project, Statuses: []baton.PRStatus{baton.PROpen, baton.PRApproved},
			Limit: needsLimit}); err != nil {
			return err
		}
		if d.Proposals, err = tx.Proposals(ctx, project, "pending", ""); err != nil {
			return err
		}
		d.Proposals = d.Proposals[:min(len(d.Proposals), needsLimit)]
		d.Stale, d.NextStale, err = staleClaims(ctx, tx, project, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !d.NextStale.IsZero() {
		d.StaleInMS = max(d.NextStale.Sub(now).Milliseconds(), 0)
	}
	d.Total = len(d.Questions) + len(d.Blocked) + len(d.Escalated) + len(d.PRs) + len(d.Proposals) + len(d.Stale)
	return d, nil
}

// escalated reports whether the orchestrator blocked the item for phase
// rejections past the limit (orchestrator/phases.go writes the reason).
func escalated(it *baton.Item) bool {
	return strings.HasPrefix(it.BlockedReason, "phase ") && strings.Contains(it.BlockedReason, " rejected ")
}

// staleClaims are the claims whose lease lapsed unreaped or whose holder
// has been silent for StaleAfter, and when the next of the others will be.
func staleClaims(ctx context.Context, tx baton.Tx, project string, now time.Time) ([]staleClaim, time.Time, error) {
	var next time.Time
	claims, err := tx.Claims(ctx, project)
	if err != nil || len(claims) == 0 {
		return nil, next, err
	}
	agents, err := tx.Agents(ctx)
	if err != nil {
		return nil, next, err
	}
	seen := map[string]time.Time{}
	for _, a := range agents {
		seen[strings.ToLower(a.Name)] = a.LastSeen
	}
	sessions, err := tx.AgentSessions(ctx, now.Add(-StaleAfter))
	if err != nil {
		return nil, next, err
	}
	for _, ss := range sessions {
		if k := strings.ToLower(ss.Agent); ss.LastSeen.After(seen[k]) {
			seen[k] = ss.LastSeen
		}
	}
	var out []staleClaim
	for _, c := range claims {
		last := seen[strings.ToLower(c.Holder)]
		if last.Before(c.ClaimedAt) {
			// Claiming is a call: the holder was there then at least.
			last = c.ClaimedAt
		}
		lapsed := !c.Active(now)
		if !lapsed && now.Sub(last) < StaleAfter {
			at := last.Add(StaleAfter)
			if c.ExpiresAt.Before(at) {
				at = c.ExpiresAt
			}
			if next.IsZero() || at.Before(next) {
				next = at
			}
			continue
		}
		it, err := tx.Item(ctx, c.ItemID)
		if err != nil {
			return nil, next, err
		}
		out = append(out, staleClaim{Claim: c, Item: it, LastSeen: last, Lapsed: lapsed})
		if len(out) == needsLimit {
			break
		}
	}
	slices.SortFunc(out, func(a, b staleClaim) int { return a.LastSeen.Compare(b.LastSeen) })
	return out, next, nil
}

// projectParam is the ?project filter ("" for every project).
func projectParam(r *http.Request) string {
	p := r.URL.Query().Get("project")
	if len(p) > 64 {
		return ""
	}
	return p
}
