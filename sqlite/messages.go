package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
)

// The messages, proposals and agents SQL both stores share is in
// sqlcore/messages.go; here is what SQLite says its own way: full-text
// search, and the agents' order (the name column's NOCASE).

// Nocase is SQLite's own case-folding collation, the one the recipient
// and agents.name columns have.
func (dialect) Nocase() string { return "NOCASE" }

func (t *tx) SearchMessages(ctx context.Context, project, text, agentID string, limit int) ([]*baton.Message, error) {
	if strings.TrimSpace(text) == "" {
		return []*baton.Message{}, nil
	}
	// messages_fts is the only index (unstemmed), so the whole query is
	// one MATCH and bm25 ranks by all of it.
	q, err := searchQuery(text, "query", false)
	if err != nil {
		return nil, err
	}
	cond, args := "messages_fts MATCH ?", []any{q.Root.FTS5()}
	if project != "" {
		cond, args = cond+" AND m.project = ?", append(args, project)
	}
	if agentID != "" {
		cond, args = cond+" AND m.agent_id = ? COLLATE NOCASE", append(args, agentID)
	}
	if limit <= 0 {
		limit = 20
	}
	return t.Messages(ctx, `SELECT m.id, m.project, m.agent_id, m.recipient, m.role, m.body, m.thread_id, m.metadata, m.event_type,
		m.delivery_status, m.question, m.created_at FROM messages_fts CROSS JOIN messages m ON m.rid = messages_fts.rowid
		WHERE `+cond+` ORDER BY bm25(messages_fts), m.created_at DESC LIMIT `+limitArg, append(args, limit)...)
}

func (t *tx) Agent(ctx context.Context, name string) (*baton.AgentState, error) {
	a, err := sqlcore.ScanAgent(t.Q.QueryRowContext(ctx, `SELECT `+sqlcore.AgentColumns+` FROM agents WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		// An agent known only from its MCP sessions (list_agents shows it)
		// can be messaged too.
		session, err := t.SessionAgent(ctx, name)
		if err != nil {
			return nil, err
		}
		if session != "" {
			return &baton.AgentState{Name: session}, nil
		}
		known, err := t.Strings(ctx, `SELECT name FROM agents ORDER BY name`)
		if err != nil {
			return nil, err
		}
		if known, err = t.WithSessionAgents(ctx, known); err != nil {
			return nil, err
		}
		return nil, baton.Errorf(baton.ErrAgentNotFound, "no agent is called %q", name).
			WithDetails("agent", name, "known", append([]string{baton.User}, known...)).
			WithHint("send to \"user\" or to one of the known agents (names match case-insensitively)")
	}
	return a, err
}

func (t *tx) Agents(ctx context.Context) ([]*baton.AgentState, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+sqlcore.AgentColumns+` FROM agents ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.AgentState{}
	for rows.Next() {
		a, err := sqlcore.ScanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
