// Package audit holds Colibri's decision-trail tools (thought records,
// audit sessions, chain verification, Merkle roots) and baton's inclusion
// proofs.
package audit

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "audit"

var (
	taskIDRule    = tool.Length(1, 128)
	sessionIDRule = tool.Length(1, 64)
)

// taskID resolves a task id as Colibri clients write it: exactly, or
// zero-padded (T-0042 for T-42); the item's own id comes back, or
// ERR_TASK_NOT_FOUND.
func taskID(ctx context.Context, c *tool.Call, id string) (string, error) {
	it, err := baton.ResolveItem(ctx, c.Tx, id)
	if err != nil {
		return "", err
	}
	return it.ID, nil
}

// nullable is a previous_hash as outputs show it: null for the first
// record of a chain.
func nullable(h string) *string {
	if h == "" {
		return nil
	}
	return &h
}

// orNull lets the string property at path (names descending through
// objects and array elements) of t's output be null as well, and says so
// in the schema clients see. The framework writes Go pointers as plain
// types (absent means unset), but Colibri's catalogue has previous_hash
// null on a chain's first record.
func orNull(t tool.Tool, path ...string) tool.Tool {
	// When the schemas are built (on first use), not now: building them
	// when the package initialises would cost every start of baton.
	return tool.OnSchemas(t, func(_, s *jsonschema.Schema) {
		for _, name := range path {
			for s.Items != nil {
				s = s.Items
			}
			s = s.Properties[name]
		}
		if s.Type != "string" {
			panic(fmt.Sprintf("%s: %v is a %s, not a string", t.Spec().Name, path, s.Type))
		}
		s.Type, s.Types = "", []string{"null", "string"}
	})
}

// leaves returns a session's records as Merkle leaves, optionally only
// those about one task.
func leaves(ctx context.Context, c *tool.Call, sessionID, taskID string) ([]baton.SessionRecord, []string, error) {
	recs, err := c.Tx.SessionRecords(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	var kept []baton.SessionRecord
	var hashes []string
	for _, r := range recs {
		if taskID != "" && r.TaskID != taskID {
			continue
		}
		kept = append(kept, r)
		hashes = append(hashes, r.Hash)
	}
	return kept, hashes, nil
}

// thoughtLinks turns a task's stored chain into links to verify.
func thoughtLinks(chain []*baton.ThoughtRecord) []audit.Link {
	links := make([]audit.Link, len(chain))
	for i, r := range chain {
		links[i] = audit.Link{Position: int64(r.Position), Stored: r.Hash, PreviousHash: r.PreviousHash,
			Computed: audit.ThoughtOf(r).Hash()}
	}
	return links
}

// actionLink is one stored action as a link of the action chain.
func actionLink(a *baton.Action) audit.Link {
	return audit.Link{Position: a.Position, Stored: a.Hash, PreviousHash: a.PreviousHash, Computed: audit.ActionOf(a).Hash()}
}
