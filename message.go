package baton

import (
	"context"
	"encoding/json"
	"time"
)

// User is the recipient name of the human who runs the agents.
const User = "user"

// Delivery states of a message, in the only order they move.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryRead      = "read"
)

// Message roles: who speaks.
const (
	RoleAgent        = "agent"
	RoleUser         = "user"
	RoleAnnouncement = "announcement"
)

// Message is one message between agents and the user; announcements are
// messages too, with role announcement.
type Message struct {
	ID             string
	Project        string
	AgentID        string // the sender, as the server knows it
	Recipient      string // "user" or an agent name
	Role           string
	Body           string
	ThreadID       string
	Metadata       json.RawMessage
	EventType      string // announcement type: completion, blocker, question
	DeliveryStatus string
	// Question is "open" for a question to the user (ask_owner) until the
	// user replies in its thread, then "answered"; "" for other messages.
	Question  string
	CreatedAt time.Time
}

// MessageFilter selects messages for a reader. Before/BeforeID page
// backwards: messages older than Before, or as old with an id below
// BeforeID (same-second ties).
type MessageFilter struct {
	Project  string
	ThreadID string
	AgentID  string // messages from or to this agent
	Limit    int
	Before   *time.Time
	BeforeID string
	// PendingTo keeps only messages to this reader not yet delivered.
	PendingTo string
	// To keeps only messages to this recipient.
	To string
	// Question keeps only questions in this state ("open": asked with
	// ask_owner and not yet answered).
	Question string
}

// Thread summarises one conversation.
type Thread struct {
	ThreadID        string
	MessageCount    int
	LatestBody      string
	LatestCreatedAt time.Time
	AgentID         string
}

// Proposal is an improvement idea an agent submits for the human.
type Proposal struct {
	ID          string
	Project     string
	Author      string
	Title       string
	Description string
	Type        string // product, engineering
	Status      string // pending, accepted, dismissed
	CreatedAt   time.Time
}

// AgentState is what an agent last reported about itself.
type AgentState struct {
	Name                string
	Status              string // working, blocked, idle, done
	Task                string
	BeadID              string
	Progress            int
	ProgressTask        string
	ProgressDescription string
	LastSeen            time.Time
	FirstSeen           time.Time
}

// MessageTx keeps messages, proposals and agents' reported state.
type MessageTx interface {
	// SendMessage stores m (pending), assigning its id.
	SendMessage(ctx context.Context, m *Message) error
	// ReadMessages returns matching messages oldest first (the newest page
	// when no cursor is given) and marks those addressed to reader as
	// delivered; a read message stays read. An empty reader only looks.
	ReadMessages(ctx context.Context, reader string, f MessageFilter) ([]*Message, error)
	Threads(ctx context.Context, project, agentID string) ([]Thread, error)
	// MarkRead marks one message, or every message from agentID, addressed
	// to reader as read; it returns how many changed.
	MarkRead(ctx context.Context, reader, messageID, agentID string) (int, error)
	SearchMessages(ctx context.Context, project, text, agentID string, limit int) ([]*Message, error)
	CreateProposal(ctx context.Context, p *Proposal) error
	Proposals(ctx context.Context, project, status, typ string) ([]*Proposal, error)
	// DecideProposal moves a pending proposal to accepted or dismissed; a
	// decided one is ERR_CONFLICT, an unknown one ERR_NOT_FOUND.
	DecideProposal(ctx context.Context, id, status string) (*Proposal, error)
	// SeeAgent records that an agent acted now (first and last seen).
	SeeAgent(ctx context.Context, name string, at time.Time) error
	// Agent finds an agent by name, case-insensitively: ERR_AGENT_NOT_FOUND
	// with the known names otherwise.
	Agent(ctx context.Context, name string) (*AgentState, error)
	Agents(ctx context.Context) ([]*AgentState, error)
	SetAgentStatus(ctx context.Context, s *AgentState) error
	SetAgentProgress(ctx context.Context, s *AgentState) error
}
