package baton

import (
	"context"
	"time"
)

// Bounds of file reservations.
const (
	// MinReservationTTL is the shortest lease a reservation gets: shorter
	// ones would lapse between an agent's edits.
	MinReservationTTL = 60 * time.Second
	// DefaultReservationTTL is the lease when the caller names none.
	DefaultReservationTTL = time.Hour
	// MaxReservationTTL bounds a lease; renew for longer.
	MaxReservationTTL = 24 * time.Hour
)

// FileReservation is an advisory lease an agent takes on a path glob of
// its project's repository before editing there, as mcp_agent_mail's are:
// exclusive (nobody else may hold an overlapping one) or shared (others
// may share it, but nobody may hold it exclusively). Reservations taken
// while the agent holds a claim on Item end with that claim.
type FileReservation struct {
	ID        int64
	Project   string
	Agent     string
	Pattern   string // a repository-relative glob (pathglob)
	Exclusive bool
	Reason    string
	Item      string // the claimed item it was taken for; "" for none
	CreatedAt time.Time
	ExpiresAt time.Time
	// ReleasedAt is when it ended before its expiry (zero while held);
	// ReleasedBy who ended it: its holder, "claim" when its item's claim
	// ended, or the agent that forced it.
	ReleasedAt time.Time
	ReleasedBy string
}

// Active reports whether the reservation holds at now.
func (r *FileReservation) Active(now time.Time) bool {
	return r.ReleasedAt.IsZero() && now.Before(r.ExpiresAt)
}

// ReservationFilter narrows the reservations listed.
type ReservationFilter struct {
	Project string // "" for every project
	Agent   string // "" for every agent (ASCII case-insensitive)
	Item    string // "" for any
	// All lists released and expired ones too, newest first, at most
	// Limit; otherwise only those active at Now, oldest first.
	All   bool
	Now   time.Time
	Limit int
}

// ReservationTx keeps file reservations. Writes of a project's
// reservations are serialized by the store's writer, so a conflict check
// and the insert it allows see the same reservations.
type ReservationTx interface {
	// AddReservation stores r, setting its ID.
	AddReservation(ctx context.Context, r *FileReservation) error
	// Reservations lists reservations as f says.
	Reservations(ctx context.Context, f ReservationFilter) ([]*FileReservation, error)
	// Reservation returns one; ERR_NOT_FOUND for an unknown id.
	Reservation(ctx context.Context, id int64) (*FileReservation, error)
	// RenewReservation moves an active reservation's expiry to until.
	RenewReservation(ctx context.Context, id int64, until time.Time) error
	// ReleaseReservation ends an active reservation at at, by by; false
	// when it had ended already.
	ReleaseReservation(ctx context.Context, id int64, at time.Time, by string) (bool, error)
}
