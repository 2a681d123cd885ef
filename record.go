package baton

import (
	"encoding/json"
	"time"
)

// Finding categories of Symphony's add_finding.
var FindingCategories = []string{"test_result", "code_pattern", "architecture", "bug", "gap"}

// Finding is an append-only, immutable observation recorded on an item.
type Finding struct {
	ID        string
	ItemID    string
	Category  string
	Summary   string
	Details   string
	Files     []string
	CreatedBy string
	CreatedAt time.Time
}

// Comment is a note on an item.
type Comment struct {
	ID        string
	ItemID    string
	Body      string
	CreatedBy string
	CreatedAt time.Time
}

// Run is one agent run on an item, as ingested from the agent's stream.
type Run struct {
	ID         string
	ItemID     string
	Agent      string
	Status     string // succeeded, failed, running
	Error      string
	CostUSD    float64
	DurationMS int64
	NumTurns   int
	Model      string
	StartedAt  time.Time
	EndedAt    time.Time
	EventCount int
}

// RunEvent is one line of an agent's stream-json output.
type RunEvent struct {
	RunID     string
	Seq       int    // 1-based position in the run
	Type      string // system, assistant, user, result, rate_limit_event
	Subtype   string // init, thinking, text, tool_use, tool_result, success, ...
	Data      json.RawMessage
	CreatedAt time.Time
}

// RunEventFilter selects run events; RunID or ItemID is required.
type RunEventFilter struct {
	RunID   string
	ItemID  string
	Type    string
	Subtype string
	Limit   int
	Offset  int
}

// TestHealth is one record_test_health report.
type TestHealth struct {
	ItemID           string
	Agent            string
	TestCount        int
	TestFilesChanged *int
	TestsAdded       *int
	TestsRemoved     *int
	ExecutionTimeMS  *int64
	CreatedAt        time.Time
}

// Coverage records that a file was examined for a concept (record_coverage).
type Coverage struct {
	Project   string
	FilePath  string
	Concept   string
	Status    string // covered, has_issues
	TicketID  string
	Notes     string
	Agent     string
	UpdatedAt time.Time
}
