package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// The Agents page: who is connected, what each reported (status, task,
// progress), when it was first and last seen, and the latest calls that
// changed something, from the action log.

const (
	// recentCalls is how much of the action log the page reads: the
	// newest calls of everyone, from which each agent's card takes its
	// own. An agent quiet for longer shows "no recent calls".
	recentCalls = 200
	// callsPerAgent is the calls an agent's card lists.
	callsPerAgent = 10
	// callsShown is the rows of the "recent calls" table.
	callsShown = 50
	// offlineHorizon is how far back sessions are read: agents with a
	// session in this time, or with a reported state, are listed.
	offlineHorizon = 24 * time.Hour
	// maxAgentName bounds the ?agent filter (send_message's "to" bound).
	maxAgentName = 128
)

// agentRow is one agent as the page shows it.
type agentRow struct {
	Name      string
	Connected bool
	// Status is what the agent reported while connected (working,
	// blocked, idle, done; idle when it reported nothing), or "offline".
	Status   string
	Reported string // the last reported status, even when offline
	Task     string
	BeadID   string
	Progress int
	// ProgressTask and ProgressDescription are the last report_progress.
	ProgressTask, ProgressDescription string
	FirstSeen, LastSeen               time.Time
	ConnectedAt                       time.Time // the live session's start, if any
	Calls                             []callRow
	// Files are the agent's active file reservations, oldest first, at
	// most agentReservationsShown; MoreFiles counts the others.
	Files     []reservationRow
	MoreFiles int
}

// callRow is one action of the log with the link to its subject.
type callRow struct {
	*baton.Action
	// SubjectHref is the subject's item page; the subject is an agent's
	// argument, so it is escaped as one path segment.
	SubjectHref string
}

func callRows(as []*baton.Action) []callRow {
	out := make([]callRow, 0, len(as))
	for _, a := range as {
		c := callRow{Action: a}
		if a.Subject != "" {
			c.SubjectHref = "/items/" + segment(a.Subject)
		}
		out = append(out, c)
	}
	return out
}

// Badge is the CSS class of the status badge.
func (a *agentRow) Badge() string {
	switch a.Status {
	case "working":
		return "ok"
	case "blocked":
		return "blocked"
	case "done":
		return "done"
	case "offline":
		return "stale"
	}
	return ""
}

// BeadHref links the reported bead (an agent's text: one escaped segment).
func (a *agentRow) BeadHref() string { return "/items/" + segment(a.BeadID) }

type agentsData struct {
	Agents    []*agentRow
	Connected int
	// Agent is the ?agent filter of the calls table ("" for everyone);
	// Choices are the filter's options besides everyone: the user, the
	// agents, and the filter itself when it names no agent listed.
	Agent   string
	Choices []string
	Calls   []callRow
	// CallsLimit is how many rows Calls holds at most; Window is how
	// recently a session must have beaten to count as connected.
	CallsLimit int
	Window     time.Duration
}

var agentsPage = &pageDef{
	Pattern: "/agents", Name: "agents", Title: "Agents", Nav: "agents",
	// Every mutating call is a recent call (its event is "tool.NAME" when
	// the tool names none), so every change may change the page.
	Live: nil,
	Load: loadAgents,
}

func init() { register(agentsPage) }

func loadAgents(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	agent := strings.TrimSpace(r.URL.Query().Get("agent"))
	if len(agent) > maxAgentName {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the agent filter is %d bytes, over %d", len(agent), maxAgentName).
			WithDetails("field", "agent", "limit", maxAgentName).WithHint("pick an agent from the list")
	}
	now := s.now()
	d := &agentsData{Agent: agent, CallsLimit: callsShown, Window: baton.PresenceWindow}
	err := s.view(ctx, func(tx baton.Tx) error {
		var err error
		if d.Agents, err = roster(ctx, tx, now); err != nil {
			return err
		}
		if err := agentReservations(ctx, tx, d.Agents, now); err != nil {
			return err
		}
		calls, err := tx.RecentActions(ctx, "", recentCalls)
		if err != nil {
			return err
		}
		byName := map[string]*agentRow{}
		for _, a := range d.Agents {
			byName[strings.ToLower(a.Name)] = a
		}
		rows := callRows(calls)
		for _, c := range rows {
			if a := byName[strings.ToLower(c.Agent)]; a != nil && len(a.Calls) < callsPerAgent {
				a.Calls = append(a.Calls, c)
			}
		}
		if agent == "" {
			d.Calls = rows[:min(len(rows), callsShown)]
			return nil
		}
		mine, err := tx.RecentActions(ctx, agent, callsShown)
		d.Calls = callRows(mine)
		return err
	})
	if err != nil {
		return nil, err
	}
	d.Choices = []string{baton.User}
	for _, a := range d.Agents {
		if a.Connected {
			d.Connected++
		}
		d.Choices = append(d.Choices, a.Name)
	}
	if agent != "" && !slices.ContainsFunc(d.Choices, func(c string) bool { return strings.EqualFold(c, agent) }) {
		d.Choices = append(d.Choices, agent)
	}
	return d, nil
}

// roster joins what agents reported with their MCP sessions, as
// list_agents does: an agent is connected while an open session of its
// beat within baton.PresenceWindow, or while its last call is that recent.
// Connected agents come first, then by name.
func roster(ctx context.Context, tx baton.Tx, now time.Time) ([]*agentRow, error) {
	states, err := tx.Agents(ctx)
	if err != nil {
		return nil, err
	}
	sessions, err := tx.AgentSessions(ctx, now.Add(-offlineHorizon))
	if err != nil {
		return nil, err
	}
	since := now.Add(-baton.PresenceWindow)
	byName := map[string]*agentRow{}
	var out []*agentRow
	get := func(name string) *agentRow {
		k := strings.ToLower(name)
		if a := byName[k]; a != nil {
			return a
		}
		a := &agentRow{Name: name}
		byName[k] = a
		out = append(out, a)
		return a
	}
	for _, st := range states {
		a := get(st.Name)
		a.Reported, a.Task, a.BeadID, a.Progress = st.Status, st.Task, st.BeadID, st.Progress
		a.ProgressTask, a.ProgressDescription = st.ProgressTask, st.ProgressDescription
		a.FirstSeen, a.LastSeen = st.FirstSeen, st.LastSeen
		a.Connected = !st.LastSeen.Before(since)
	}
	for _, ss := range sessions {
		if ss.Agent == "" || strings.EqualFold(ss.Agent, baton.User) {
			continue
		}
		a := get(ss.Agent)
		if ss.LastSeen.After(a.LastSeen) {
			a.LastSeen = ss.LastSeen
		}
		if a.FirstSeen.IsZero() || ss.ConnectedAt.Before(a.FirstSeen) {
			a.FirstSeen = ss.ConnectedAt
		}
		if !ss.Closed && !ss.LastSeen.Before(since) {
			a.Connected = true
			if a.ConnectedAt.IsZero() || ss.ConnectedAt.Before(a.ConnectedAt) {
				a.ConnectedAt = ss.ConnectedAt
			}
		}
	}
	for _, a := range out {
		switch {
		case !a.Connected:
			a.Status = "offline"
		case a.Reported == "":
			a.Status = "idle"
		default:
			a.Status = a.Reported
		}
	}
	slices.SortFunc(out, func(a, b *agentRow) int {
		if a.Connected != b.Connected {
			if a.Connected {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return out, nil
}
