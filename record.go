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

// Run statuses. A run is running until it ends in one of the others.
const (
	RunRunning   = "running"
	RunSucceeded = "succeeded"
	RunFailed    = "failed"
	RunTimedOut  = "timed_out"
	RunCancelled = "cancelled"
)

// Run is one agent run on an item: ingested from an agent's stream
// (baton runs ingest), or started by baton dispatch, which records it from
// its start (status running) to its end.
type Run struct {
	ID         string
	ItemID     string
	Agent      string
	Status     string // RunRunning, RunSucceeded, RunFailed, RunTimedOut, RunCancelled
	Error      string
	CostUSD    float64
	DurationMS int64
	NumTurns   int
	Model      string
	StartedAt  time.Time
	EndedAt    time.Time
	EventCount int
	// What a dispatched run also knows; empty for an ingested run.
	Profile    string // the agent profile that ran (worker, judge, ...)
	Attempt    int    // 1 for the item's first run since it last succeeded, then 2, 3, ...
	Worktree   string // where the agent ran
	Host       string // the dispatcher's host
	PID        int    // the agent process's id on Host
	ExitCode   *int   // nil while running, or when the process was never started
	Dispatcher string // the dispatcher that started it: host:pid:random
	// HeartbeatAt is when the dispatcher last said it still looks after
	// the running run (zero before the process started).
	HeartbeatAt time.Time
}

// RunOutput is what a dispatched agent wrote besides its event stream:
// the tail of its stdout and stderr, each capped; the Dropped counts say
// how many bytes were cut from the front.
type RunOutput struct {
	Stdout        string
	Stderr        string
	StdoutDropped int64
	StderrDropped int64
}

// RunFilter selects runs for ListRuns, newest first.
type RunFilter struct {
	Project string
	ItemID  string
	Status  string
	Profile string
	Limit   int // <= 0: 50; at most 500
}

// DispatchRetry is where an item stands with baton dispatch after failed
// runs: how many have failed in a row, and when it may be tried again.
// Dispatchers on several hosts share it through the database.
type DispatchRetry struct {
	ItemID    string
	Attempts  int
	NextAt    time.Time
	LastError string
	UpdatedAt time.Time
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
