package sqlcore

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
)

// TouchSession records an agent session, or that it was seen again.
func (t *Tx) TouchSession(ctx context.Context, s *baton.SessionPresence) error {
	_, err := t.Q.ExecContext(ctx, `INSERT INTO agent_sessions (id, agent, connected_at, last_seen) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen`, s.ID, s.Agent, MS(s.ConnectedAt), MS(s.LastSeen))
	return err
}

// CloseSession marks an open agent session closed at at.
func (t *Tx) CloseSession(ctx context.Context, id string, at time.Time) error {
	_, err := t.Q.ExecContext(ctx, `UPDATE agent_sessions SET closed_at = ? WHERE id = ? AND closed_at IS NULL`, MS(at), id)
	return err
}

// AgentSessions returns the agent sessions seen since since, least
// recently seen first.
func (t *Tx) AgentSessions(ctx context.Context, since time.Time) ([]*baton.SessionPresence, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT id, agent, connected_at, last_seen, closed_at IS NOT NULL FROM agent_sessions
		WHERE last_seen >= ? ORDER BY last_seen`, MS(since))
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
		s.ConnectedAt, s.LastSeen = FromMS(c), FromMS(l)
		out = append(out, &s)
	}
	return out, rows.Err()
}

// ProjectCounts returns a project's open items, its messages since since
// and its unread messages by recipient.
func (t *Tx) ProjectCounts(ctx context.Context, project string, since time.Time) (int, int, map[string]int, error) {
	var open, recent int
	if err := t.Q.QueryRowContext(ctx, `SELECT COUNT(*) FROM items WHERE project = ? AND status NOT IN ('done', 'cancelled')`, project).
		Scan(&open); err != nil {
		return 0, 0, nil, err
	}
	if err := t.Q.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE (project = ? OR project = '') AND created_at >= ?`, project, MS(since)).
		Scan(&recent); err != nil {
		return 0, 0, nil, err
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT recipient, COUNT(*) FROM messages WHERE (project = ? OR project = '')
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
