package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

const reservationColumns = `id, project, agent, pattern, exclusive, reason, item_id, created_at, expires_at, released_at, released_by`

// AddReservation stores r and sets its ID.
func (t *Tx) AddReservation(ctx context.Context, r *baton.FileReservation) error {
	return t.Q.QueryRowContext(ctx, `INSERT INTO file_reservations (project, agent, pattern, exclusive, reason, item_id,
		created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		r.Project, r.Agent, r.Pattern, r.Exclusive, r.Reason, r.Item, MS(r.CreatedAt), MS(r.ExpiresAt)).Scan(&r.ID)
}

// Reservations lists reservations as f says: those active at f.Now,
// oldest first, or with f.All every one, newest first.
func (t *Tx) Reservations(ctx context.Context, f baton.ReservationFilter) ([]*baton.FileReservation, error) {
	var where []string
	var args []any
	if f.Project != "" {
		where, args = append(where, "project = ?"), append(args, f.Project)
	}
	if f.Agent != "" {
		where, args = append(where, "lower(agent) = lower(?)"), append(args, f.Agent)
	}
	if f.Item != "" {
		where, args = append(where, "item_id = ?"), append(args, f.Item)
	}
	order := "id DESC"
	if !f.All {
		where, args = append(where, "released_at IS NULL", "expires_at > ?"), append(args, MS(f.Now))
		order = "id"
	}
	q := `SELECT ` + reservationColumns + ` FROM file_reservations`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY ` + order
	if f.Limit > 0 {
		q, args = q+` LIMIT `+t.D.LimitArg(), append(args, f.Limit)
	}
	rows, err := t.Q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.FileReservation{}
	for rows.Next() {
		r, err := scanReservation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Reservation returns one reservation; ERR_NOT_FOUND for an unknown id.
func (t *Tx) Reservation(ctx context.Context, id int64) (*baton.FileReservation, error) {
	r, err := scanReservation(t.Q.QueryRowContext(ctx, `SELECT `+reservationColumns+` FROM file_reservations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, baton.Errorf(baton.ErrNotFound, "there is no file reservation %d", id).
			WithDetails("file_reservation_id", id).
			WithHint("list the reservations with list_file_reservations")
	}
	return r, err
}

// RenewReservation moves an active reservation's expiry to until.
func (t *Tx) RenewReservation(ctx context.Context, id int64, until time.Time) error {
	_, err := t.Q.ExecContext(ctx, `UPDATE file_reservations SET expires_at = ? WHERE id = ? AND released_at IS NULL`, MS(until), id)
	return err
}

// ReleaseReservation ends a reservation not ended yet.
func (t *Tx) ReleaseReservation(ctx context.Context, id int64, at time.Time, by string) (bool, error) {
	res, err := t.Q.ExecContext(ctx, `UPDATE file_reservations SET released_at = ?, released_by = ?
		WHERE id = ? AND released_at IS NULL AND expires_at > ?`, MS(at), by, id, MS(at))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// releaseClaimReservations ends the reservations c's holder took for its
// item, in the transaction that ends the claim.
func (t *Tx) releaseClaimReservations(ctx context.Context, c *baton.Claim, now time.Time) error {
	_, err := t.Q.ExecContext(ctx, `UPDATE file_reservations SET released_at = ?, released_by = 'claim'
		WHERE item_id = ? AND item_id <> '' AND lower(agent) = lower(?) AND released_at IS NULL`, MS(now), c.ItemID, c.Holder)
	return err
}

func scanReservation(s scanner) (*baton.FileReservation, error) {
	var r baton.FileReservation
	var created, expires int64
	var released sql.NullInt64
	if err := s.Scan(&r.ID, &r.Project, &r.Agent, &r.Pattern, &r.Exclusive, &r.Reason, &r.Item, &created, &expires, &released,
		&r.ReleasedBy); err != nil {
		return nil, err
	}
	r.CreatedAt, r.ExpiresAt = FromMS(created), FromMS(expires)
	if released.Valid {
		r.ReleasedAt = FromMS(released.Int64)
	}
	return &r, nil
}
