package baton

import (
	"context"
	"encoding/json"
	"time"
)

// EventRetention is how long events are kept for subscribers that
// reconnect (Last-Event-ID); older ones are pruned.
const EventRetention = 7 * 24 * time.Hour

// Event is one change, as subscribers see it: a typed record with a
// sequence number that grows by one per project.
type Event struct {
	Project string
	Seq     int64
	Type    string // task.created, message.sent, agent.status, ...
	Subject string // the work item, message or agent it concerns
	Agent   string // who made the change
	Data    json.RawMessage
	At      time.Time
}

// EventTx appends and reads events.
type EventTx interface {
	// AppendEvent numbers e in its project's sequence and stores it.
	AppendEvent(ctx context.Context, e *Event) error
	// Events returns up to limit events of a project after seq, in order.
	Events(ctx context.Context, project string, after int64, limit int) ([]*Event, error)
	// LastEventSeq is the seq of the project's newest event (0: none), so
	// a reader can start after it without reading the log.
	LastEventSeq(ctx context.Context, project string) (int64, error)
	// PruneEvents drops events older than before and says how many.
	PruneEvents(ctx context.Context, before time.Time) (int, error)
}
