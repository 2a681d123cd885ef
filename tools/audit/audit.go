// Package audit holds Colibri's decision-trail tools (thought records,
// audit sessions, chain verification, Merkle roots) and baton's inclusion
// proofs.
package audit

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "audit"

var (
	taskIDRule    = tool.Length(1, 128)
	sessionIDRule = tool.Length(1, 64)
)

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
