package messaging

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
)

type sendIn struct {
	To       string         `json:"to" jsonschema:"Recipient: \"user\" or an agent name (case-insensitive)."`
	Body     string         `json:"body" jsonschema:"Message content."`
	ThreadID string         `json:"threadId,omitempty" jsonschema:"Thread ID for conversation grouping."`
	Metadata map[string]any `json:"metadata,omitempty" jsonschema:"Arbitrary key-value metadata."`
}

// SendMessage is send_message.
var SendMessage = tool.New(tool.Definition[sendIn, sentOut]{
	Name:         "send_message",
	Event:        "message.sent",
	Toolset:      Messages,
	Description:  "Send a message to the user or to another agent. The sender is who you are to the server; an unknown recipient is refused with the known names. Scheduler sessions may message agents only (3 per session).",
	Profiles:     tool.Profiles,
	SchedulerCap: tool.CapMessages,
	Input: tool.Rules{
		"to":       tool.Length(1, 128).NonBlank(),
		"body":     tool.Length(1, 20000).NonBlank(),
		"threadId": tool.Length(1, 128),
	},
	Execute: func(ctx context.Context, c *tool.Call, in sendIn) (sentOut, error) {
		to := strings.TrimSpace(in.To)
		if !strings.EqualFold(to, baton.User) {
			a, err := c.Tx.Agent(ctx, to)
			if err != nil {
				return sentOut{}, err
			}
			to = a.Name
		} else {
			if c.Principal.SchedulerMode {
				// Scheduled work talks to agents; only people decide to
				// interrupt the user.
				return sentOut{}, baton.Errorf(baton.ErrPermissionDenied, "a scheduler session cannot message the user").
					WithType("scheduler_blocked").WithDetails("to", baton.User).
					WithHint("record what the user should see with add_finding or add_comment, or message an agent")
			}
			to = baton.User
		}
		m := &baton.Message{Project: project(ctx, c), AgentID: c.Principal.Agent, Recipient: to, Role: role(c),
			Body: in.Body, ThreadID: in.ThreadID, CreatedAt: c.Now}
		if in.Metadata != nil {
			m.Metadata, _ = json.Marshal(in.Metadata)
		}
		if err := c.Tx.SendMessage(ctx, m); err != nil {
			return sentOut{}, err
		}
		return sent(m), nil
	},
})

type readIn struct {
	ThreadID string  `json:"threadId,omitempty" jsonschema:"Filter by thread ID."`
	AgentID  string  `json:"agentId,omitempty" jsonschema:"Filter by agent ID: messages from or to it."`
	Limit    float64 `json:"limit,omitempty" jsonschema:"Max messages to return (default: 50)."`
	Before   string  `json:"before,omitempty" jsonschema:"Cursor: return messages before this ISO timestamp."`
	BeforeID string  `json:"beforeId,omitempty" jsonschema:"Cursor: with before, also messages at that instant with a lower id (same-second ties)."`
}

type readOut struct {
	Messages []messageView `json:"messages" jsonschema:"Messages, oldest first: the newest page before the cursor."`
}

// ReadMessages is read_messages.
var ReadMessages = tool.New(tool.Definition[readIn, readOut]{
	Name:    "read_messages",
	Event:   "message.delivered",
	Toolset: Messages,
	Description: "Read messages, oldest first, with thread and agent filters and a cursor (before, plus beforeId for same-second ties) " +
		"to page back. Messages to you move from pending to delivered; a read message stays read.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"threadId": tool.Length(1, 128),
		"agentId":  tool.Length(1, 128),
		"limit":    tool.Range(1, 500).WithDefault(50),
		"before":   tool.DateTime(),
		"beforeId": tool.Length(1, 64),
	},
	Execute: func(ctx context.Context, c *tool.Call, in readIn) (readOut, error) {
		f := baton.MessageFilter{Project: project(ctx, c), ThreadID: in.ThreadID, AgentID: in.AgentID, Limit: number.AtMost(in.Limit), BeforeID: in.BeforeID}
		if in.Before != "" {
			t := parseTime(in.Before)
			f.Before = &t
		} else if in.BeforeID != "" {
			return readOut{}, baton.Errorf(baton.ErrInvalidInput, "beforeId needs before").
				WithDetails("field", "beforeId", "constraint", "requires_before").
				WithHint("pass the createdAt of the oldest message you have as before, and its id as beforeId")
		}
		msgs, err := c.Tx.ReadMessages(ctx, c.Principal.Agent, f)
		if err != nil {
			return readOut{}, err
		}
		out := readOut{Messages: make([]messageView, 0, len(msgs))}
		for _, m := range msgs {
			out.Messages = append(out.Messages, view(m))
		}
		return out, nil
	},
})

type threadsIn struct {
	AgentID string `json:"agentId,omitempty" jsonschema:"Filter threads by agent ID."`
}

type threadView struct {
	ThreadID        string `json:"threadId" jsonschema:"Thread id."`
	MessageCount    int    `json:"messageCount" jsonschema:"Messages in the thread."`
	LatestBody      string `json:"latestBody" jsonschema:"Body of the latest message."`
	LatestCreatedAt string `json:"latestCreatedAt" jsonschema:"When the latest message was sent."`
	AgentID         string `json:"agentId" jsonschema:"Sender of the latest message."`
}

type threadsOut struct {
	Threads []threadView `json:"threads" jsonschema:"Threads, most recently active first."`
}

// ListThreads is list_threads.
var ListThreads = tool.New(tool.Definition[threadsIn, threadsOut]{
	Name:        "list_threads",
	Toolset:     Messages,
	Description: "List conversation threads with message counts and the latest message; optionally only threads an agent takes part in.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"agentId": tool.Length(1, 128)},
	Execute: func(ctx context.Context, c *tool.Call, in threadsIn) (threadsOut, error) {
		ths, err := c.Tx.Threads(ctx, project(ctx, c), in.AgentID)
		if err != nil {
			return threadsOut{}, err
		}
		out := threadsOut{Threads: make([]threadView, 0, len(ths))}
		for _, th := range ths {
			out.Threads = append(out.Threads, threadView{ThreadID: th.ThreadID, MessageCount: th.MessageCount,
				LatestBody: th.LatestBody, LatestCreatedAt: baton.Timestamp(th.LatestCreatedAt), AgentID: th.AgentID})
		}
		return out, nil
	},
})

type markIn struct {
	MessageID string `json:"messageId,omitempty" jsonschema:"Mark a single message as read."`
	AgentID   string `json:"agentId,omitempty" jsonschema:"Mark all messages from this agent as read."`
}

type markOut struct {
	Success bool `json:"success" jsonschema:"Always true on success."`
	Marked  int  `json:"marked" jsonschema:"Messages that became read."`
}

// MarkRead is mark_read.
var MarkRead = tool.New(tool.Definition[markIn, markOut]{
	Name:        "mark_read",
	Event:       "message.read",
	Toolset:     Messages,
	Description: "Mark messages to you as read: one (messageId) or all from an agent (agentId). At least one is required.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{Idempotent: true},
	Input:       tool.Rules{"messageId": tool.Length(1, 64), "agentId": tool.Length(1, 128)},
	Execute: func(ctx context.Context, c *tool.Call, in markIn) (markOut, error) {
		if in.MessageID == "" && in.AgentID == "" {
			return markOut{}, baton.Errorf(baton.ErrInvalidInput, "Either messageId or agentId is required").
				WithDetails("field", "messageId", "constraint", "one_of").
				WithHint("pass messageId for one message, or agentId for every message from that agent")
		}
		n, err := c.Tx.MarkRead(ctx, c.Principal.Agent, in.MessageID, in.AgentID)
		if err != nil {
			return markOut{}, err
		}
		return markOut{Success: true, Marked: n}, nil
	},
})

type searchIn struct {
	Query   string  `json:"query" jsonschema:"Search query (FTS5 syntax): every word must match, as a prefix of a written word; a OR b, a AND b, a NOT b, \"exact phrase\", prefix*, NEAR(a b, 10) and parentheses, operators in capitals. A malformed query is ERR_INVALID_INPUT with its position."`
	AgentID string  `json:"agentId,omitempty" jsonschema:"Filter results to messages sent by this agent."`
	Limit   float64 `json:"limit,omitempty" jsonschema:"Max results to return (default: 20)."`
}

type hitView struct {
	ID        string `json:"id" jsonschema:"Message id."`
	AgentID   string `json:"agentId" jsonschema:"The sender."`
	Role      string `json:"role" jsonschema:"agent, user or announcement."`
	Body      string `json:"body" jsonschema:"Message content."`
	EventType string `json:"eventType" jsonschema:"Announcement type, or message."`
	ThreadID  string `json:"threadId,omitempty" jsonschema:"Thread, if any."`
	CreatedAt string `json:"createdAt" jsonschema:"ISO-8601 UTC timestamp."`
}

type searchOut struct {
	Results []hitView `json:"results" jsonschema:"Matching messages, best first."`
	Count   int       `json:"count" jsonschema:"Results returned."`
}

// SearchMessages is search_messages.
var SearchMessages = tool.New(tool.Definition[searchIn, searchOut]{
	Name:        "search_messages",
	Toolset:     Messages,
	Description: "Full-text search across messages and announcements (FTS5, bm25), optionally from one agent.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"query":   tool.Length(1, 500).NonBlank(),
		"agentId": tool.Length(1, 128),
		"limit":   tool.Range(1, 100).WithDefault(20),
	},
	Execute: func(ctx context.Context, c *tool.Call, in searchIn) (searchOut, error) {
		msgs, err := c.Tx.SearchMessages(ctx, project(ctx, c), in.Query, in.AgentID, number.AtMost(in.Limit))
		if err != nil {
			return searchOut{}, err
		}
		out := searchOut{Results: make([]hitView, 0, len(msgs))}
		for _, m := range msgs {
			kind := m.EventType
			if m.Role == baton.RoleAnnouncement {
				kind = "announcement"
			} else if kind == "" {
				kind = "message"
			}
			out.Results = append(out.Results, hitView{ID: m.ID, AgentID: m.AgentID, Role: m.Role, Body: m.Body,
				EventType: kind, ThreadID: m.ThreadID, CreatedAt: baton.Timestamp(m.CreatedAt)})
		}
		out.Count = len(out.Results)
		return out, nil
	},
})
