package audit

import (
	"context"
	"maps"
	"slices"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tool"
)

type listIn struct {
	TaskID      string `json:"task_id,omitempty" jsonschema:"Only this task's records."`
	SessionID   string `json:"session_id,omitempty" jsonschema:"Only this audit session's records."`
	Type        string `json:"type,omitempty" jsonschema:"Only records of this type."`
	Limit       int    `json:"limit,omitempty" jsonschema:"Most records to return."`
	VerifyChain bool   `json:"verify_chain,omitempty" jsonschema:"Verify hash integrity of the chains the records belong to."`
}

type thoughtView struct {
	ThoughtID     string  `json:"thought_id" jsonschema:"Record id."`
	TaskID        string  `json:"task_id" jsonschema:"The task."`
	Type          string  `json:"type" jsonschema:"Record type."`
	Content       string  `json:"content" jsonschema:"Decision text."`
	Hash          string  `json:"hash" jsonschema:"Stored hash."`
	PreviousHash  *string `json:"previous_hash" jsonschema:"Hash of the record before it in its task's chain; null for the first."`
	RecordedAt    string  `json:"recorded_at" jsonschema:"ISO-8601 UTC timestamp."`
	RecordedBy    string  `json:"recorded_by" jsonschema:"Who recorded it."`
	ChainPosition int     `json:"chain_position" jsonschema:"Position in its task's chain (1-indexed)."`
}

type listOut struct {
	TaskID       string        `json:"task_id,omitempty" jsonschema:"The task filtered on."`
	SessionID    string        `json:"session_id,omitempty" jsonschema:"The session filtered on."`
	ThoughtCount int           `json:"thought_count" jsonschema:"Records returned."`
	Thoughts     []thoughtView `json:"thoughts" jsonschema:"Records, in chain order (session order for a session)."`
	ChainValid   *bool         `json:"chain_valid,omitempty" jsonschema:"When verify_chain: whether every chain involved verifies."`
	InvalidLinks []int         `json:"invalid_links,omitzero" jsonschema:"When verify_chain: chain positions of broken links."`
}

// ThoughtRecordList is thought_record_list.
var ThoughtRecordList = orNull(tool.New(tool.Definition[listIn, listOut]{
	Name:        "thought_record_list",
	Toolset:     Toolset,
	Description: "Retrieve the thought chain of a task or an audit session, in order; optionally verify hash integrity.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"task_id":    taskIDRule,
		"session_id": sessionIDRule,
		"type":       tool.Enum(baton.ThoughtTypes...),
		"limit":      tool.Range(1, 500).WithDefault(100),
	},
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		if in.TaskID != "" {
			var err error
			if in.TaskID, err = taskID(ctx, c, in.TaskID); err != nil {
				return listOut{}, err
			}
		}
		if in.SessionID != "" {
			if _, err := c.Tx.Session(ctx, in.SessionID); err != nil {
				return listOut{}, err
			}
		}
		recs, err := c.Tx.Thoughts(ctx, baton.ThoughtFilter{TaskID: in.TaskID, SessionID: in.SessionID, Type: in.Type, Limit: in.Limit})
		if err != nil {
			return listOut{}, err
		}
		out := listOut{TaskID: in.TaskID, SessionID: in.SessionID, Thoughts: make([]thoughtView, 0, len(recs))}
		tasks := map[string]bool{}
		for _, r := range recs {
			tasks[r.TaskID] = true
			out.Thoughts = append(out.Thoughts, thoughtView{ThoughtID: r.ID, TaskID: r.TaskID, Type: r.Type, Content: r.Content,
				Hash: r.Hash, PreviousHash: nullable(r.PreviousHash), RecordedAt: baton.Timestamp(r.RecordedAt), RecordedBy: r.RecordedBy,
				ChainPosition: r.Position})
		}
		out.ThoughtCount = len(out.Thoughts)
		if in.VerifyChain {
			// A record is only as sound as the chain it hangs in, so the
			// whole chain of every task involved is checked.
			valid := true
			out.InvalidLinks = []int{}
			for _, task := range slices.Sorted(maps.Keys(tasks)) {
				chain, err := c.Tx.Thoughts(ctx, baton.ThoughtFilter{TaskID: task})
				if err != nil {
					return listOut{}, err
				}
				for _, b := range audit.VerifyThoughts(thoughtLinks(chain)) {
					valid = false
					out.InvalidLinks = append(out.InvalidLinks, int(b.Position))
				}
			}
			out.ChainValid = &valid
		}
		return out, nil
	},
}), "thoughts", "previous_hash")
