package messaging

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type agentsIn struct {
	Status string `json:"status,omitempty" jsonschema:"Filter by status: active (working or blocked), idle (connected with nothing to do), all (also done and offline agents)."`
}

type agentView struct {
	AgentID     string `json:"agentId" jsonschema:"The agent's name."`
	Status      string `json:"status" jsonschema:"What it last reported (working, blocked, idle, done), or offline when not connected."`
	Connected   bool   `json:"connected" jsonschema:"A live MCP session or process, or a call within the presence window."`
	CurrentTask string `json:"currentTask,omitempty" jsonschema:"The task it last reported."`
	BeadID      string `json:"beadId,omitempty" jsonschema:"The bead it last reported."`
	Progress    int    `json:"progress" jsonschema:"Last reported progress, 0-100."`
	SessionID   string `json:"sessionId,omitempty" jsonschema:"Its live session, if any."`
	ConnectedAt string `json:"connectedAt,omitempty" jsonschema:"When its live session began."`
	LastSeen    string `json:"lastSeen,omitempty" jsonschema:"When it was last heard from."`
}

type agentsOut struct {
	Agents []agentView `json:"agents" jsonschema:"Agents, by name."`
	Count  int         `json:"count" jsonschema:"Agents returned."`
}

// roster joins reported state with live sessions: an agent is connected
// while a session of its beats, or while its last call is recent.
func roster(ctx context.Context, c *tool.Call) ([]agentView, error) {
	states, err := c.Tx.Agents(ctx)
	if err != nil {
		return nil, err
	}
	since := c.Now.Add(-baton.PresenceWindow)
	// A day of sessions: the live ones, and the agents that were here and
	// left (or vanished), to list as offline.
	sessions, err := c.Tx.AgentSessions(ctx, c.Now.Add(-24*time.Hour))
	if err != nil {
		return nil, err
	}
	// Instants stay times until the end: a roster of many sessions would
	// otherwise format each one twice only to compare it.
	type entry struct {
		view                  agentView
		seen, live            bool
		lastSeen, connectedAt time.Time // to the millisecond, as written
	}
	byName := map[string]*entry{}
	var names []string
	get := func(name string) *entry {
		key := strings.ToLower(name)
		if e, ok := byName[key]; ok {
			return e
		}
		e := &entry{view: agentView{AgentID: name}}
		byName[key] = e
		names = append(names, key)
		return e
	}
	for _, s := range states {
		e := get(s.Name)
		v := &e.view
		v.Status, v.CurrentTask, v.BeadID, v.Progress = s.Status, s.Task, s.BeadID, s.Progress
		e.seen, e.lastSeen = true, s.LastSeen.Truncate(time.Millisecond)
		v.Connected = !s.LastSeen.Before(since)
	}
	for _, s := range sessions {
		if strings.EqualFold(s.Agent, baton.User) || s.Agent == "" {
			continue
		}
		e := get(s.Agent)
		if at := s.LastSeen.Truncate(time.Millisecond); !e.seen || at.After(e.lastSeen) {
			e.seen, e.lastSeen = true, at
		}
		if !s.Closed && !s.LastSeen.Before(since) {
			e.view.Connected, e.view.SessionID, e.live, e.connectedAt = true, s.ID, true, s.ConnectedAt
		}
	}
	slices.Sort(names)
	out := make([]agentView, 0, len(names))
	for _, n := range names {
		e := byName[n]
		v := e.view
		if e.seen {
			v.LastSeen = baton.Timestamp(e.lastSeen)
		}
		if e.live {
			v.ConnectedAt = baton.Timestamp(e.connectedAt)
		}
		if !v.Connected {
			v.Status = "offline"
		} else if v.Status == "" {
			v.Status = "idle"
		}
		out = append(out, v)
	}
	return out, nil
}

// ListAgents is list_agents.
var ListAgents = tool.New(tool.Definition[agentsIn, agentsOut]{
	Name:    "list_agents",
	Toolset: Status,
	Description: "List known agents with their status, current task and session; filter by status (active: working or blocked, idle). " +
		"An agent is connected while it has a live MCP session or process, or has called within the presence window; agents that vanished show as offline.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"status": tool.Enum("active", "idle", "all").WithDefault("all")},
	Execute: func(ctx context.Context, c *tool.Call, in agentsIn) (agentsOut, error) {
		all, err := roster(ctx, c)
		if err != nil {
			return agentsOut{}, err
		}
		out := agentsOut{Agents: []agentView{}}
		for _, a := range all {
			if matchesStatus(a, in.Status) {
				out.Agents = append(out.Agents, a)
			}
		}
		out.Count = len(out.Agents)
		return out, nil
	},
})

// matchesStatus is Adjutant's list_agents filter, on the status each agent
// shows: active means at work (working or blocked; Adjutant also counts
// its "stuck", which baton's set_status has not), idle means idle, and all
// keeps everyone, done and offline agents included. An agent that is not
// connected shows offline, so neither filter lists it.
func matchesStatus(a agentView, filter string) bool {
	switch filter {
	case "active":
		return a.Status == "working" || a.Status == "blocked"
	case "idle":
		return a.Status == "idle"
	}
	return true
}

type none struct{}

type unread struct {
	AgentID string `json:"agentId" jsonschema:"A recipient (an agent, or user)."`
	Count   int    `json:"count" jsonschema:"Messages to it not yet read."`
}

type stateOut struct {
	Project         string   `json:"project" jsonschema:"The project."`
	ConnectedAgents int      `json:"connectedAgents" jsonschema:"Agents connected now."`
	OpenBeads       int      `json:"openBeads" jsonschema:"Work items not done or cancelled."`
	RecentMessages  int      `json:"recentMessages" jsonschema:"Messages in the last 24 hours."`
	UnreadCounts    []unread `json:"unreadCounts" jsonschema:"Unread messages per recipient."`
}

// GetProjectState is get_project_state.
var GetProjectState = tool.New(tool.Definition[none, stateOut]{
	Name:        "get_project_state",
	Toolset:     Status,
	Description: "Summarise the project: connected agents, open work items, messages of the last 24 hours and unread messages per recipient.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Execute: func(ctx context.Context, c *tool.Call, _ none) (stateOut, error) {
		out := stateOut{Project: project(ctx, c), UnreadCounts: []unread{}}
		agents, err := roster(ctx, c)
		if err != nil {
			return out, err
		}
		for _, a := range agents {
			if a.Connected {
				out.ConnectedAgents++
			}
		}
		open, recent, counts, err := c.Tx.ProjectCounts(ctx, out.Project, c.Now.Add(-24*time.Hour))
		if err != nil {
			return out, err
		}
		out.OpenBeads, out.RecentMessages = open, recent
		for _, who := range slices.Sorted(maps.Keys(counts)) {
			out.UnreadCounts = append(out.UnreadCounts, unread{AgentID: who, Count: counts[who]})
		}
		return out, nil
	},
})
