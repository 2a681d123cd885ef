package baton

import (
	"slices"
	"strings"
	"time"
)

// Status is the lifecycle state of a work item, shared by every vocabulary.
type Status string

// The seven statuses of DESIGN.md.
const (
	StatusBacklog    Status = "backlog"
	StatusTodo       Status = "todo"
	StatusInProgress Status = "in_progress"
	StatusBlocked    Status = "blocked"
	StatusReview     Status = "review"
	StatusDone       Status = "done"
	StatusCancelled  Status = "cancelled"
)

// Statuses lists every status in lifecycle order.
var Statuses = []Status{StatusBacklog, StatusTodo, StatusInProgress, StatusBlocked, StatusReview, StatusDone, StatusCancelled}

// transitions is Colibri's table plus Symphony's in_progress -> todo (give up).
var transitions = map[Status][]Status{
	StatusBacklog:    {StatusTodo, StatusCancelled},
	StatusTodo:       {StatusInProgress, StatusBlocked, StatusCancelled},
	StatusInProgress: {StatusReview, StatusBlocked, StatusCancelled, StatusTodo},
	StatusBlocked:    {StatusTodo, StatusInProgress, StatusCancelled},
	StatusReview:     {StatusDone, StatusBacklog, StatusBlocked, StatusCancelled},
	StatusDone:       nil,
	StatusCancelled:  nil,
}

// Valid reports whether s is one of the seven statuses.
func (s Status) Valid() bool { _, ok := transitions[s]; return ok }

// Terminal reports whether no transition leaves s.
func (s Status) Terminal() bool { return s == StatusDone || s == StatusCancelled }

// Next lists the statuses s may move to.
func (s Status) Next() []Status { return slices.Clone(transitions[s]) }

// CanTransition reports whether an item may move from s to to. Staying in
// the same status is not a transition and is always allowed for a
// non-terminal status.
func (s Status) CanTransition(to Status) bool {
	return slices.Contains(transitions[s], to)
}

// Transition checks a move and returns ERR_INVALID_TRANSITION naming both
// ends and the allowed targets when it is not allowed.
func Transition(id string, from, to Status) error {
	if from.CanTransition(to) {
		return nil
	}
	allowed := make([]string, 0, len(transitions[from]))
	for _, s := range transitions[from] {
		allowed = append(allowed, string(s))
	}
	e := Errorf(ErrInvalidTransition, "cannot move %s from %s to %s", id, from, to).
		WithDetails("task_id", id, "from", string(from), "to", string(to), "allowed", allowed)
	if len(allowed) == 0 {
		return e.WithHint("%s is terminal: nothing leaves it; create a new task instead", from)
	}
	return e.WithHint("from %s the allowed statuses are: %s", from, strings.Join(allowed, ", "))
}

// Priority is the canonical 0-4 scale: 0 critical ... 4 backlog.
type Priority int

// The canonical priorities.
const (
	PriorityCritical Priority = 0
	PriorityHigh     Priority = 1
	PriorityNormal   Priority = 2
	PriorityLow      Priority = 3
	PriorityBacklog  Priority = 4
)

// Valid reports whether p is on the 0-4 scale.
func (p Priority) Valid() bool { return p >= PriorityCritical && p <= PriorityBacklog }

// Kind classifies a work item.
type Kind string

// The kinds of DESIGN.md.
const (
	KindTask    Kind = "task"
	KindBug     Kind = "bug"
	KindEpic    Kind = "epic"
	KindFeature Kind = "feature"
	KindChore   Kind = "chore"
)

// Item is one work item: a Symphony issue, a Colibri task and an Adjutant
// bead are the same row, read through different vocabularies.
type Item struct {
	ID            string
	Project       string // project slug
	Sequence      int64  // monotonic per project
	Title         string
	Description   string
	Kind          Kind
	Status        Status
	Priority      Priority
	Labels        []string
	Assignee      string // "" when unassigned
	ParentID      string
	Progress      int
	EstimateHours *float64
	BlockedReason string
	CloseReason   string
	// ResumeStatus is where a parent blocked by its subtasks returns when
	// the last of them is done; empty otherwise.
	ResumeStatus Status
	CreatedBy    string
	UpdatedBy    string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// ItemSort names a sort key of ListItems.
type ItemSort string

// Sort keys of ItemFilter.
const (
	SortCreated  ItemSort = "created"
	SortUpdated  ItemSort = "updated"
	SortPriority ItemSort = "priority"
	SortProgress ItemSort = "progress"
)

// ItemFilter selects items for ListItems. Zero values do not filter.
type ItemFilter struct {
	Project       string
	Statuses      []Status
	Priorities    []Priority
	Assignee      *string // "" selects unassigned items
	Label         string
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	Search        string // full-text over title and description
	Sort          ItemSort
	Descending    bool
	Limit         int
	Offset        int
}

// ItemPage is one page of ListItems with the total number of matches.
type ItemPage struct {
	Items []*Item
	Total int
}

// Readiness is an item's place in the work queue: whether it can be started
// now and, if not, why.
type Readiness struct {
	Item              *Item
	DependenciesUnmet int      // unfinished items this one depends on
	OpenSubtasks      []string // unfinished children
	WaitingOn         []string // ids of unfinished dependencies
	Claim             *Claim   // the active claim, if any
}

// Ready reports whether nothing holds the item back. An item in a phase
// before ready (phase:research, ...) is never ready work, whatever its
// status: the pipeline has not released it to workers yet.
func (r Readiness) Ready() bool {
	return r.Item.Status == StatusTodo && r.DependenciesUnmet == 0 && len(r.OpenSubtasks) == 0 && r.Claim == nil &&
		!r.Item.Phase().PreReady()
}

// TimeFormat is how baton writes every timestamp: ISO-8601, UTC,
// milliseconds. Audit hashes cover these exact strings.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Timestamp writes t in TimeFormat.
func Timestamp(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ItemHolds says which of an item's lists are not empty (ItemTx.ItemHolds).
type ItemHolds struct {
	Dependencies, Children, Findings, Learnings, Comments, PRs, Reservations bool
}
