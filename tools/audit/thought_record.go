package audit

import (
	"context"
	"encoding/json"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type recordIn struct {
	TaskID    string         `json:"task_id" jsonschema:"Task this decision pertains to."`
	Type      string         `json:"type" jsonschema:"Kind of record."`
	Content   string         `json:"content" jsonschema:"Decision text."`
	Branch    string         `json:"branch,omitempty" jsonschema:"Git branch name, for context."`
	CommitSHA string         `json:"commit_sha,omitempty" jsonschema:"Git commit, for traceability: a SHA or any ref (HEAD~2, v1.2.0)."`
	TestsRun  []string       `json:"tests_run,omitempty" jsonschema:"Tests executed."`
	Blockers  []string       `json:"blockers,omitempty" jsonschema:"Blocking issues."`
	Metadata  map[string]any `json:"metadata,omitempty" jsonschema:"Arbitrary JSON."`
}

type recordOut struct {
	ThoughtID     string   `json:"thought_id" jsonschema:"Unique identifier (Θ-0001)."`
	TaskID        string   `json:"task_id" jsonschema:"The task."`
	Type          string   `json:"type" jsonschema:"The record's type."`
	Hash          string   `json:"hash" jsonschema:"SHA-256 (lowercase hex) of JSON.stringify({task_id, type, content, previous_hash, recorded_at, recorded_by}), in that order."`
	PreviousHash  *string  `json:"previous_hash" jsonschema:"Hash of the task's previous record; null for the first."`
	RecordedAt    string   `json:"recorded_at" jsonschema:"ISO-8601 UTC timestamp, exactly as hashed."`
	RecordedBy    string   `json:"recorded_by" jsonschema:"The calling agent, as the server knows it."`
	ChainPosition int      `json:"chain_position" jsonschema:"Position in this task's thought chain (1-indexed)."`
	SessionIDs    []string `json:"session_ids" jsonschema:"Open audit sessions the record joined."`
}

// ThoughtRecord is thought_record.
var ThoughtRecord = orNull(tool.New(tool.Definition[recordIn, recordOut]{
	Name:    "thought_record",
	Event:   "thought.recorded",
	Toolset: Toolset,
	Description: "Append a hash-chained decision record to a task's audit trail. Each record references the previous record's hash, " +
		"forming a tamper-evident chain; records made while an audit session covers the task belong to that session.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"task_id":    taskIDRule,
		"type":       tool.Enum(baton.ThoughtTypes...),
		"content":    tool.Length(1, 5000).NonBlank(),
		"branch":     tool.MaxLen(256),
		"commit_sha": tool.MaxLen(256).NonBlank(), // any git ref text: a SHA, HEAD~2, v1.2.0, a branch
		"tests_run":  tool.List(200, tool.Length(1, 512)),
		"blockers":   tool.List(50, tool.Length(1, 1000)),
	},
	Output: tool.Rules{"type": tool.Enum(baton.ThoughtTypes...)},
	Execute: func(ctx context.Context, c *tool.Call, in recordIn) (recordOut, error) {
		task, err := taskID(ctx, c, in.TaskID)
		if err != nil {
			return recordOut{}, err
		}
		r := &baton.ThoughtRecord{TaskID: task, Type: in.Type, Content: in.Content, Branch: in.Branch,
			CommitSHA: in.CommitSHA, TestsRun: in.TestsRun, Blockers: in.Blockers, RecordedAt: c.Now, RecordedBy: c.Principal.Agent}
		if in.Metadata != nil {
			b, err := json.Marshal(in.Metadata)
			if err != nil {
				return recordOut{}, err
			}
			r.Metadata = b
		}
		if err := c.Tx.AddThought(ctx, r); err != nil {
			return recordOut{}, err
		}
		out := recordOut{ThoughtID: r.ID, TaskID: r.TaskID, Type: r.Type, Hash: r.Hash, PreviousHash: nullable(r.PreviousHash),
			RecordedAt: baton.Timestamp(r.RecordedAt), RecordedBy: r.RecordedBy, ChainPosition: r.Position, SessionIDs: r.SessionIDs}
		if out.SessionIDs == nil {
			out.SessionIDs = []string{}
		}
		return out, nil
	},
}), "previous_hash")
