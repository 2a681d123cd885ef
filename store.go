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
	// AddDependency records that id cannot start before dependsOn is done;
	// a cycle gives ERR_CIRCULAR_DEPENDENCY with the cycle in details.
	AddDependency(ctx context.Context, id, dependsOn string) error
	// Dependencies returns the ids id depends on.
	Dependencies(ctx context.Context, id string) ([]string, error)
	// Queue returns the project's todo and blocked items with what holds
	// each back, ordered by priority then age.
	Queue(ctx context.Context, project string) ([]Readiness, error)
}

// Clock tells time; tests replace it.
type Clock func() time.Time
