package postgres

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
)

func (t *tx) TouchSession(ctx context.Context, s *baton.SessionPresence) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO agent_sessions (id, agent, connected_at, last_seen) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen`, s.ID, s.Agent, ms(s.ConnectedAt), ms(s.LastSeen))
	return err
}

func (t *tx) CloseSession(ctx context.Context, id string, at time.Time) error {
	_, err := t.q.ExecContext(ctx, `UPDATE agent_sessions SET closed_at = ? WHERE id = ? AND closed_at IS NULL`, ms(at), id)
	return err
}

func (t *tx) AgentSessions(ctx context.Context, since time.Time) ([]*baton.SessionPresence, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT id, agent, connected_at, last_seen, closed_at IS NOT NULL FROM agent_sessions
		WHERE last_seen >= ? ORDER BY last_seen`, ms(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.SessionPresence{}
	for rows.Next() {
		var s baton.SessionPresence
		var c, l int64
		if err := rows.Scan(&s.ID, &s.Agent, &c, &l, &s.Closed); err != nil {
			return nil, err
		}
		s.ConnectedAt, s.LastSeen = fromMS(c), fromMS(l)
		out = append(out, &s)
	}
	return out, rows.Err()
}

func (t *tx) ProjectCounts(ctx context.Context, project string, since time.Time) (int, int, map[string]int, error) {
	var open, recent int
	if err := t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM items WHERE project = ? AND status NOT IN ('done', 'cancelled')`, project).
		Scan(&open); err != nil {
		return 0, 0, nil, err
	}
	if err := t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE (project = ? OR project = '') AND created_at >= ?`, project, ms(since)).
		Scan(&recent); err != nil {
		return 0, 0, nil, err
	}
	rows, err := t.q.QueryContext(ctx, `SELECT recipient, COUNT(*) FROM messages WHERE (project = ? OR project = '')
		AND delivery_status != 'read' GROUP BY recipient ORDER BY recipient`, project)
	if err != nil {
		return 0, 0, nil, err
	}
	defer rows.Close()
	unread := map[string]int{}
	for rows.Next() {
		var who string
		var n int
		if err := rows.Scan(&who, &n); err != nil {
			return 0, 0, nil, err
		}
		unread[who] = n
	}
	return open, recent, unread, rows.Err()
}
