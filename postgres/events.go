package postgres

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
)

func (t *tx) AppendEvent(ctx context.Context, e *baton.Event) error {
	if e.At.IsZero() {
		e.At = t.now()
	}
	if len(e.Data) == 0 {
		e.Data = []byte("{}")
	}
	// Writers are serialised by the store's advisory lock, so MAX+1 is
	// safe; the primary key would refuse a duplicate anyway.
	if err := t.q.QueryRowContext(ctx, `INSERT INTO events (project, seq, type, subject, agent, data, at)
		VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE project = ?), ?, ?, ?, ?, ?) RETURNING seq`,
		e.Project, e.Project, e.Type, e.Subject, e.Agent, string(e.Data), ms(e.At)).Scan(&e.Seq); err != nil {
		return err
	}
	// NOTIFY is transactional: listeners hear it only if the call commits,
	// and PostgreSQL folds identical payloads of one transaction into one.
	// The payload is the project alone (far below the 8000-byte limit);
	// listeners read the rows themselves.
	_, err := t.q.ExecContext(ctx, `SELECT pg_notify(?, ?)`, t.channel, e.Project)
	return err
}

func (t *tx) Events(ctx context.Context, project string, after int64, limit int) ([]*baton.Event, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := t.q.QueryContext(ctx, `SELECT project, seq, type, subject, agent, data, at FROM events
		WHERE project = ? AND seq > ? ORDER BY seq LIMIT ?`, project, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Event{}
	for rows.Next() {
		var e baton.Event
		var data string
		var at int64
		if err := rows.Scan(&e.Project, &e.Seq, &e.Type, &e.Subject, &e.Agent, &data, &at); err != nil {
			return nil, err
		}
		e.Data, e.At = []byte(data), fromMS(at)
		out = append(out, &e)
	}
	return out, rows.Err()
}

func (t *tx) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	res, err := t.q.ExecContext(ctx, `DELETE FROM events WHERE at < ?`, ms(before))
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
