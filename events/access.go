package events

import (
	"context"
	"encoding/json"
	"time"

	"github.com/baton-dev/baton"
)

// AccessChanged is the type of the event written whenever what decides
// agents' tools changes outside a tool call: a profile's stored settings
// (baton profile create|allow|disallow|set|reset|delete), a project's
// tool bundle (baton project tools --set) or a token (baton agent
// revoke). It goes to the global stream (project ""), which every server
// on the database reads, so each one, in whatever process, recomputes the
// scopes of its live sessions and tells the sessions whose tools changed
// (notifications/tools/list_changed).
const AccessChanged = "access.changed"

// Access is the data of an AccessChanged event: what changed, for people
// reading the stream; servers recompute every live scope whatever it
// names.
type Access struct {
	// Change names the command: profile.allow, project.tools,
	// token.revoke, ...
	Change string `json:"change"`
	// Profile, Project and Tokens say what it touched.
	Profile string   `json:"profile,omitempty"`
	Project string   `json:"project,omitempty"`
	Tokens  []string `json:"tokens,omitempty"`
}

// RecordAccess appends an AccessChanged event about a to tx's global
// stream, in the transaction of the change itself, so the event exists
// exactly when the change does. at zero means the store's clock.
func RecordAccess(ctx context.Context, tx baton.EventTx, agent string, a Access, at time.Time) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return tx.AppendEvent(ctx, &baton.Event{Type: AccessChanged, Agent: agent, Data: data, At: at})
}
