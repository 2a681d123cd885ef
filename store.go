package baton

import (
	"context"
	"time"
)

// Store is a transactional backend. Every tool call runs inside exactly one
// Update or View, so a failed call changes nothing.
type Store interface {
	// Update runs fn in a write transaction, committed only when fn
	// returns nil.
	Update(ctx context.Context, fn func(Tx) error) error
	// View runs fn in a read-only transaction over one consistent snapshot.
	View(ctx context.Context, fn func(Tx) error) error
	// Info describes the backend for health reports.
	Info(ctx context.Context) StoreInfo
	Close() error
}

// StoreInfo is what server_health reports about the store.
type StoreInfo struct {
	Driver        string // "sqlite" or "postgres"
	Path          string // file path or redacted URL
	Open          bool
	SchemaVersion int64 // latest applied migration (SQLite: PRAGMA user_version)
}

// Tx is one transaction. Methods return *Error values for the failures a
// caller can act on (not found, conflict, cycle).
type Tx interface {
	ProjectTx
	ItemTx
	RecordTx
	LearningTx
	ClaimTx
	AuditTx
	MessageTx
	EventTx
	PresenceTx
	AccessTx
	ProjectConfigTx
	PRTx
	PhaseTx
	KnowledgeTx
	ReservationTx
}

// ProjectTx reads and writes projects.
type ProjectTx interface {
	CreateProject(ctx context.Context, p *Project) error
	// Project returns ERR_PROJECT_NOT_FOUND for an unknown slug.
	Project(ctx context.Context, slug string) (*Project, error)
	Projects(ctx context.Context) ([]*Project, error)
}

// ItemTx reads and writes work items.
type ItemTx interface {
	// CreateItem stores it, assigning Sequence (monotonic per project) and,
	// when ID is empty, ID = PREFIX-SEQUENCE.
	CreateItem(ctx context.Context, it *Item) error
	// Item returns ERR_TASK_NOT_FOUND for an unknown id.
	Item(ctx context.Context, id string) (*Item, error)
	// UpdateItem replaces every mutable field of the stored item.
	UpdateItem(ctx context.Context, it *Item) error
	ListItems(ctx context.Context, f ItemFilter) (ItemPage, error)
	// Children returns the ids of items whose parent is id, oldest first.
	Children(ctx context.Context, id string) ([]string, error)
	// ItemHolds reports which of the lists of the item id (its current id)
	// hold anything, so that a reader of the whole item skips the empty
	// ones. A list it reports may still read empty (its reservations may
	// all have lapsed); one it does not report is empty.
	ItemHolds(ctx context.Context, id string) (ItemHolds, error)
	// AddDependency records that id cannot start before dependsOn is done;
	// a cycle gives ERR_CIRCULAR_DEPENDENCY with the cycle in details.
	AddDependency(ctx context.Context, id, dependsOn string) error
	// RemoveDependency drops the dependency; an absent one is ERR_NOT_FOUND.
	RemoveDependency(ctx context.Context, id, dependsOn string) error
	// Dependencies returns the ids id depends on.
	Dependencies(ctx context.Context, id string) ([]string, error)
	// Dependents returns the ids of the items that depend on id.
	Dependents(ctx context.Context, id string) ([]string, error)
	// Queue returns the project's todo and blocked items with what holds
	// each back (dependencies, subtasks, an active claim), ordered by
	// priority then age.
	Queue(ctx context.Context, project string) ([]Readiness, error)
	// ReadinessOf is what holds back each of the items named, whatever
	// their status (a board shows a page of them); unknown ids are left
	// out and the order is not defined.
	ReadinessOf(ctx context.Context, ids []string) ([]Readiness, error)
	// MoveItem moves an item to another project under a new id
	// (PREFIX-SEQUENCE of the target); everything that refers to it follows.
	MoveItem(ctx context.Context, id, toProject string) (*Item, error)
}

// RecordTx appends what agents record about items. Findings are immutable:
// there is no way to change or delete one.
type RecordTx interface {
	AddFinding(ctx context.Context, f *Finding) error
	// Findings returns an item's findings oldest first, or, when limit > 0,
	// its latest limit findings newest first.
	Findings(ctx context.Context, itemID string, limit int) ([]*Finding, error)
	AddComment(ctx context.Context, c *Comment) error
	Comments(ctx context.Context, itemID string) ([]*Comment, error)
	// CreateRun stores a run with its events, numbering them from 1.
	CreateRun(ctx context.Context, r *Run, events []RunEvent) error
	// Runs returns an item's latest runs, newest first (all when limit <= 0).
	Runs(ctx context.Context, itemID string, limit int) ([]*Run, error)
	// RunEvents returns one page of matching events in run then stream
	// order, and how many match in all.
	RunEvents(ctx context.Context, f RunEventFilter) ([]RunEvent, int, error)
	// Run returns one run: ERR_NOT_FOUND for an unknown id.
	Run(ctx context.Context, id string) (*Run, error)
	// ListRuns returns the runs matching f, newest first.
	ListRuns(ctx context.Context, f RunFilter) ([]*Run, error)
	// FinishRun records the end of a running run (status, error, cost,
	// duration, turns, model, ended_at, exit code); a run that has ended
	// already is ERR_CONFLICT (type run_finished).
	FinishRun(ctx context.Context, r *Run) error
	// SetRunProcess records where a dispatched run's agent runs: its
	// worktree and process id, once the process has started.
	SetRunProcess(ctx context.Context, runID, worktree string, pid int) error
	// BeatRun records that a running run's dispatcher is alive; dispatchers
	// end other dispatchers' runs only when their heartbeat is stale.
	BeatRun(ctx context.Context, runID string, at time.Time) error
	// AppendRunEvents adds events to a run, numbering them after the ones
	// it has.
	AppendRunEvents(ctx context.Context, runID string, events []RunEvent) error
	// SetRunOutput replaces a run's kept output; RunOutput reads it (empty
	// for a run without any).
	SetRunOutput(ctx context.Context, runID string, out RunOutput) error
	RunOutput(ctx context.Context, runID string) (*RunOutput, error)
	// DispatchRetries returns the items of project ("" for all) waiting to
	// be tried again; SetDispatchRetry stores an item's retry state and
	// ClearDispatchRetry forgets it (no error when there is none).
	DispatchRetries(ctx context.Context, project string) ([]*DispatchRetry, error)
	SetDispatchRetry(ctx context.Context, r *DispatchRetry) error
	ClearDispatchRetry(ctx context.Context, itemID string) error
	RecordTestHealth(ctx context.Context, h *TestHealth) error
	// RecordCoverage stores the latest word on a file and concept.
	RecordCoverage(ctx context.Context, c *Coverage) error
}

// LearningTx stores and searches learnings.
type LearningTx interface {
	// AddLearning stores l; a pattern that normalises like one already on
	// the item is ERR_CONFLICT (type duplicate).
	AddLearning(ctx context.Context, l *Learning) error
	Learnings(ctx context.Context, itemID string) ([]*Learning, error)
	SearchLearnings(ctx context.Context, q LearningQuery) ([]LearningHit, error)
}

// ClaimTx leases work items to agents.
type ClaimTx interface {
	// Claim leases an item to holder for ttl: ERR_CLAIMED if another agent
	// holds an active claim; claiming again as the holder renews it. A todo
	// item moves to in_progress and is assigned to the holder.
	Claim(ctx context.Context, itemID, holder string, ttl time.Duration, now time.Time) (*Claim, error)
	// ClaimNext claims the most urgent, oldest ready item matching f, or
	// returns nil, nil when none is ready.
	ClaimNext(ctx context.Context, holder string, f ClaimNextFilter, ttl time.Duration, now time.Time) (*Claim, *Item, error)
	// RenewClaim extends the holder's active claim by its ttl.
	RenewClaim(ctx context.Context, itemID, holder string, now time.Time) (*Claim, error)
	// ReleaseClaim ends the holder's claim; an item the claim moved to
	// in_progress goes back to todo.
	ReleaseClaim(ctx context.Context, itemID, holder string, now time.Time) error
	// ForceReleaseClaim ends the item's claim whoever holds it, active or
	// lapsed, as its holder's release would, and fences the holder out of
	// the item until it claims it again: its changes under the old claim
	// are ERR_CLAIMED, naming by, who ended it. It returns the claim that
	// ended; ERR_NOT_FOUND when the item is not claimed.
	ForceReleaseClaim(ctx context.Context, itemID, by string, now time.Time) (*Claim, error)
	// ClaimOf returns the item's claim, active or lapsed, or nil.
	ClaimOf(ctx context.Context, itemID string) (*Claim, error)
	// Claims returns every claim on the project's items ("" for every
	// project), active or lapsed but not yet reaped, oldest claimed first.
	Claims(ctx context.Context, project string) ([]*Claim, error)
	// ReapClaims ends every claim lapsed at now, returning their items to
	// the queue, and reports how many it ended.
	ReapClaims(ctx context.Context, now time.Time) (int, error)
}

// Clock tells time; tests replace it.
type Clock func() time.Time
