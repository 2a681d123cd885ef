package audit

import (
	"context"
	"encoding/json"
	"time"

	"github.com/baton-dev/baton"
)

// Change is a change made outside a tool call (a CLI command of its own,
// the orchestrator's tick, the dispatcher) that goes into the action log,
// and to subscribers, as a tool call's would.
type Change struct {
	Agent, Source, Tool string
	Subject             string // the work item it is about, if any
	In, Out             any    // digested into the action; Out is the event's data
	At                  time.Time
	// Event, when set, is the type of the event published with the
	// change, in Project's stream.
	Event, Project string
}

// Record appends c's action to the action log and, with an Event, its
// event, in tx: in the same transaction as the change itself.
func Record(ctx context.Context, tx baton.Tx, c Change) error {
	inDigest, err := Digest(c.In)
	if err != nil {
		return err
	}
	// Out is marshalled once: its digest and the event's data come from
	// the same bytes.
	data, err := json.Marshal(c.Out)
	if err != nil {
		return err
	}
	outDigest, err := DigestJSON(data)
	if err != nil {
		return err
	}
	a := &baton.Action{Agent: c.Agent, Source: c.Source, Tool: c.Tool, Subject: c.Subject,
		InputDigest: inDigest, ResultDigest: outDigest, At: c.At}
	if c.Event == "" {
		return tx.AppendAction(ctx, a)
	}
	return tx.AppendActionEvent(ctx, a, &baton.Event{Project: c.Project, Type: c.Event, Subject: c.Subject, Agent: c.Agent, Data: data, At: c.At})
}
