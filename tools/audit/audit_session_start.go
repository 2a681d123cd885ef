package audit

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type startIn struct {
	TaskID    string `json:"task_id" jsonschema:"Task being audited."`
	AuditorID string `json:"auditor_id" jsonschema:"Who is conducting the audit."`
	Reason    string `json:"reason,omitempty" jsonschema:"Audit reason (e.g., proof review, compliance check)."`
	Scope     string `json:"scope,omitempty" jsonschema:"shallow = task only, deep = task + dependents."`
}

type startOut struct {
	SessionID string `json:"session_id" jsonschema:"Unique session identifier (A-0001)."`
	TaskID    string `json:"task_id" jsonschema:"The task."`
	AuditorID string `json:"auditor_id" jsonschema:"The auditor."`
	StartedAt string `json:"started_at" jsonschema:"ISO-8601 UTC timestamp."`
	Scope     string `json:"scope" jsonschema:"shallow or deep."`
}

// AuditSessionStart is audit_session_start.
var AuditSessionStart = tool.New(tool.Definition[startIn, startOut]{
	Name:    "audit_session_start",
	Event:   "audit.session_started",
	Toolset: Toolset,
	Description: "Begin an audit session on a task. Every thought record and tool call about the task (and, with scope deep, " +
		"its sub-tasks) joins the session until audit_verify_chain verifies the session (or merkle_finalize freezes its root).",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"task_id":    taskIDRule,
		"auditor_id": tool.Length(1, 128).NonBlank(),
		"reason":     tool.MaxLen(1000),
		"scope":      tool.Enum("shallow", "deep").WithDefault("shallow"),
	},
	Output: tool.Rules{"scope": tool.Enum("shallow", "deep")},
	Execute: func(ctx context.Context, c *tool.Call, in startIn) (startOut, error) {
		task, err := taskID(ctx, c, in.TaskID)
		if err != nil {
			return startOut{}, err
		}
		s := &baton.AuditSession{TaskID: task, AuditorID: in.AuditorID, Reason: in.Reason, Scope: in.Scope,
			StartedBy: c.Principal.Agent, StartedAt: c.Now}
		if err := c.Tx.StartSession(ctx, s); err != nil {
			return startOut{}, err
		}
		return startOut{SessionID: s.ID, TaskID: s.TaskID, AuditorID: s.AuditorID, StartedAt: baton.Timestamp(s.StartedAt), Scope: s.Scope}, nil
	},
})
