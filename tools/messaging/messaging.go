// Package messaging holds Adjutant's messaging, status and proposal tools:
// agents talk to each other and to the user, report what they do, and
// propose improvements. The sender is always the caller, as the server
// knows it.
package messaging

import (
	"context"
	"encoding/json"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

// Toolsets of this package.
const (
	Messages  = "messages"
	Status    = "status"
	Proposals = "proposals"
)

// project is the session's project when there is one to find; messages
// without one are visible across projects.
func project(ctx context.Context, c *tool.Call) string {
	p, err := session.Project(ctx, c, "")
	if err != nil {
		return ""
	}
	return p.Slug
}

type messageView struct {
	ID             string         `json:"id" jsonschema:"Message id."`
	AgentID        string         `json:"agentId" jsonschema:"The sender."`
	Recipient      string         `json:"recipient" jsonschema:"user or an agent name."`
	Role           string         `json:"role" jsonschema:"agent, user or announcement."`
	Body           string         `json:"body" jsonschema:"Message content."`
	DeliveryStatus string         `json:"deliveryStatus" jsonschema:"pending, delivered or read."`
	ThreadID       string         `json:"threadId,omitempty" jsonschema:"Thread, if any."`
	EventType      string         `json:"eventType,omitempty" jsonschema:"For announcements: completion, blocker or question; question for ask_owner."`
	Question       string         `json:"question,omitempty" jsonschema:"For a question to the owner: open until answered in its thread, then answered."`
	Metadata       map[string]any `json:"metadata,omitempty" jsonschema:"Metadata the sender attached."`
	CreatedAt      string         `json:"createdAt" jsonschema:"ISO-8601 UTC timestamp."`
}

func view(m *baton.Message) messageView {
	v := messageView{ID: m.ID, AgentID: m.AgentID, Recipient: m.Recipient, Role: m.Role, Body: m.Body,
		DeliveryStatus: m.DeliveryStatus, ThreadID: m.ThreadID, EventType: m.EventType, Question: m.Question,
		CreatedAt: baton.Timestamp(m.CreatedAt)}
	var meta map[string]any
	if json.Unmarshal(m.Metadata, &meta) == nil && len(meta) > 0 {
		v.Metadata = meta
	}
	return v
}

type sentOut struct {
	MessageID string `json:"messageId" jsonschema:"The new message's id."`
	Timestamp string `json:"timestamp" jsonschema:"ISO-8601 UTC timestamp."`
}

func role(c *tool.Call) string {
	if c.Principal.Agent == baton.User {
		return baton.RoleUser
	}
	return baton.RoleAgent
}

func sent(m *baton.Message) sentOut {
	return sentOut{MessageID: m.ID, Timestamp: baton.Timestamp(m.CreatedAt)}
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s) // the schema has checked the format
	return t
}
