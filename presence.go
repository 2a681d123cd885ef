package baton

import (
	"context"
	"time"
)

// PresenceWindow is how recently an agent must have been heard from (a
// heartbeat of its session, or a call) to count as connected. Sessions beat
// every PresenceWindow/3, so an agent that vanished without a goodbye drops
// out within the window.
const PresenceWindow = 30 * time.Second

// SessionPresence is one MCP session as presence sees it.
type SessionPresence struct {
	ID          string
	Agent       string
	ConnectedAt time.Time
	LastSeen    time.Time
	Closed      bool
}

// PresenceTx records which agents are connected.
type PresenceTx interface {
	// TouchSession records that a session is alive now (creating it).
	TouchSession(ctx context.Context, s *SessionPresence) error
	CloseSession(ctx context.Context, id string, at time.Time) error
	// AgentSessions are the MCP sessions seen at or after since, open or closed, newest
	// last; an open one seen within PresenceWindow is live.
	AgentSessions(ctx context.Context, since time.Time) ([]*SessionPresence, error)
	// ProjectCounts counts a project's unfinished items and its messages
	// since a time, and unread messages per recipient.
	ProjectCounts(ctx context.Context, project string, messagesSince time.Time) (open, recent int, unread map[string]int, err error)
}
