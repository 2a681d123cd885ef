package sqlcore

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
)

// AppendEvent stores e as its project's next event (setting Seq, and At
// and Data when unset).
func (t *Tx) AppendEvent(ctx context.Context, e *baton.Event) error {
	return t.appendEvent(ctx, e, "", nil)
}

// appendEvent appends e, after prior (a statement without results, with
// its arguments), in one statement where the dialect can.
func (t *Tx) appendEvent(ctx context.Context, e *baton.Event, prior string, priorArgs []any) error {
	if e.At.IsZero() {
		e.At = t.Now()
	}
	if len(e.Data) == 0 {
		e.Data = []byte("{}")
	}
	// Writers run one at a time (SQLite's single writer, PostgreSQL's
	// advisory lock), so MAX+1 is safe; the primary key would refuse a
	// duplicate anyway.
	query, extra, withPrior := t.D.EventInsert(insertEvent, e, prior)
	var args []any
	switch {
	case withPrior:
		args = priorArgs
	case prior != "":
		if _, err := t.Q.ExecContext(ctx, prior, priorArgs...); err != nil {
			return err
		}
	}
	args = append(append(args, e.Project, e.Project, e.Type, e.Subject, e.Agent, string(e.Data), MS(e.At)), extra...)
	return t.Q.QueryRowContext(ctx, query, args...).Scan(&e.Seq)
}

const insertEvent = `INSERT INTO events (project, seq, type, subject, agent, data, at)
		VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE project = ?), ?, ?, ?, ?, ?) RETURNING seq`

// Events returns up to limit events of a project after seq after (1000
// when limit <= 0), oldest first.
func (t *Tx) Events(ctx context.Context, project string, after int64, limit int) ([]*baton.Event, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT project, seq, type, subject, agent, data, at FROM events
		WHERE project = ? AND seq > ? ORDER BY seq LIMIT `+t.D.LimitArg(), project, after, limit)
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
		e.Data, e.At = []byte(data), FromMS(at)
		out = append(out, &e)
	}
	return out, rows.Err()
}

// LastEventSeq returns the seq of the project's newest event, 0 when it
// has none: where a reader that wants only what comes next starts.
func (t *Tx) LastEventSeq(ctx context.Context, project string) (int64, error) {
	var seq int64
	err := t.Q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE project = ?`, project).Scan(&seq)
	return seq, err
}

// PruneEvents deletes the events older than before and reports how many.
func (t *Tx) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	res, err := t.Q.ExecContext(ctx, `DELETE FROM events WHERE at < ?`, MS(before))
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
