package messaging

import (
	"context"
	"encoding/json"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
)

type statusIn struct {
	Status string `json:"status" jsonschema:"One of working, blocked, idle, done."`
	Task   string `json:"task,omitempty" jsonschema:"Human-readable description of current task."`
	BeadID string `json:"beadId,omitempty" jsonschema:"Bead ID being worked on."`
}

type statusOut struct {
	Acknowledged bool   `json:"acknowledged" jsonschema:"Always true on success."`
	Status       string `json:"status" jsonschema:"The status recorded."`
}

// SetStatus is set_status.
var SetStatus = tool.New(tool.Definition[statusIn, statusOut]{
	Name:        "set_status",
	Event:       "agent.status",
	Toolset:     Status,
	Description: "Update your current status (working, blocked, idle, done), what you work on, and the bead.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{Idempotent: true},
	Input: tool.Rules{
		"status": tool.Enum("working", "blocked", "idle", "done"),
		"task":   tool.MaxLen(500),
		"beadId": tool.Length(1, 128),
	},
	Execute: func(ctx context.Context, c *tool.Call, in statusIn) (statusOut, error) {
		err := c.Tx.SetAgentStatus(ctx, &baton.AgentState{Name: c.Principal.Agent, Status: in.Status, Task: in.Task,
			BeadID: in.BeadID, LastSeen: c.Now})
		return statusOut{Acknowledged: true, Status: in.Status}, err
	},
})

type progressIn struct {
	Task        string  `json:"task" jsonschema:"Task being worked on."`
	Percentage  float64 `json:"percentage" jsonschema:"Completion percentage (0-100); fractions such as 42.5 are fine."`
	Description string  `json:"description,omitempty" jsonschema:"Human-readable progress description."`
}

type progressOut struct {
	Acknowledged bool    `json:"acknowledged" jsonschema:"Always true on success."`
	Percentage   float64 `json:"percentage" jsonschema:"The percentage as reported; list_agents shows it rounded to a whole percent."`
}

// ReportProgress is report_progress.
var ReportProgress = tool.New(tool.Definition[progressIn, progressOut]{
	Name:        "report_progress",
	Event:       "agent.progress",
	Toolset:     Status,
	Description: "Report incremental progress on a task with a percentage (0-100).",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{Idempotent: true},
	Input: tool.Rules{
		"task":        tool.Length(1, 500).NonBlank(),
		"percentage":  tool.Range(0, 100),
		"description": tool.MaxLen(2000),
	},
	Execute: func(ctx context.Context, c *tool.Call, in progressIn) (progressOut, error) {
		err := c.Tx.SetAgentProgress(ctx, &baton.AgentState{Name: c.Principal.Agent, Progress: number.Whole(in.Percentage),
			ProgressTask: in.Task, ProgressDescription: in.Description, LastSeen: c.Now})
		return progressOut{Acknowledged: true, Percentage: in.Percentage}, err
	},
})

type announceIn struct {
	Type   string `json:"type" jsonschema:"One of completion, blocker, question."`
	Title  string `json:"title" jsonschema:"Announcement title."`
	Body   string `json:"body" jsonschema:"Announcement body."`
	BeadID string `json:"beadId,omitempty" jsonschema:"Related bead ID."`
}

// Announce is announce.
var Announce = tool.New(tool.Definition[announceIn, sentOut]{
	Name:        "announce",
	Event:       "announcement",
	Toolset:     Status,
	Description: "Broadcast an announcement (completion, blocker or question) to the user; it is stored as a message with role announcement.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{SchedulerBlocked: true},
	Input: tool.Rules{
		"type":   tool.Enum("completion", "blocker", "question"),
		"title":  tool.Length(1, 256).NonBlank(),
		"body":   tool.Length(1, 20000).NonBlank(),
		"beadId": tool.Length(1, 128),
	},
	Execute: func(ctx context.Context, c *tool.Call, in announceIn) (sentOut, error) {
		meta, _ := json.Marshal(map[string]any{"title": in.Title, "beadId": in.BeadID})
		m := &baton.Message{Project: project(ctx, c), AgentID: c.Principal.Agent, Recipient: baton.User,
			Role: baton.RoleAnnouncement, Body: in.Title + "\n\n" + in.Body, EventType: in.Type, Metadata: meta, CreatedAt: c.Now}
		if err := c.Tx.SendMessage(ctx, m); err != nil {
			return sentOut{}, err
		}
		return sent(m), nil
	},
})
