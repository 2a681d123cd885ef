package postgres

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listen tells wake about events committed by any replica on the database
// (this process included) until ctx ends: PostgreSQL's NOTIFY carries the
// project slug, and wake (the in-process bus) lets subscribers read the new
// rows from the store. It holds one connection of its own, reconnects after
// losing it, and then wakes every project, since notifications sent while
// it was away are gone (the events themselves are not).
func (s *Store) Listen(ctx context.Context, wake func(project string), log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, wake, func() { backoff = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return
		}
		log.Warn("lost the event listener's connection to PostgreSQL; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (s *Store) listenOnce(ctx context.Context, wake func(string), connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return err
	}
	connected()
	// Whatever happened before LISTEN took effect is caught up with by a
	// wake-up of every project: subscribers read from their own cursor.
	rows, err := conn.Query(ctx, `SELECT slug FROM projects`)
	if err != nil {
		return err
	}
	slugs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, p := range slugs {
		wake(p)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil
			}
			return err
		}
		wake(n.Payload)
	}
}
