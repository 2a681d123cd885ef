package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/ftsquery"
	"github.com/baton-dev/baton/sqlcore"
)

// The messages, proposals and agents SQL both stores share is in
// sqlcore/messages.go; here is what PostgreSQL says its own way: full-text
// search, and the agents' order.

// Nocase is baton_nocase, the ICU collation that compares case-insensitively
// as SQLite's NOCASE does; recipient has it as its column collation.
func (dialect) Nocase() string { return "baton_nocase" }

func (t *tx) SearchMessages(ctx context.Context, project, text, agentID string, limit int) ([]*baton.Message, error) {
	if strings.TrimSpace(text) == "" {
		return []*baton.Message{}, nil
	}
	q, err := searchQuery(text, "query", false)
	if err != nil {
		return nil, err
	}
	// The query to match combines its leaves as the query says; the one to
	// rank ORs them, so ts_rank sums each term's frequency (as bm25 does)
	// rather than weighing how close the terms stand.
	match, margs := q.Root.SQL(func(n *ftsquery.Node) (string, []any) { return tsLeaf("m.words", "", "", n) })
	cond, args := match, append([]any{ftsquery.AnyTSQuery(q.Leaves(), "")}, margs...)
	if project != "" {
		cond, args = cond+" AND m.project = ?", append(args, project)
	}
	if agentID != "" {
		cond, args = cond+" AND m.agent_id = ? COLLATE baton_nocase", append(args, agentID)
	}
	if limit <= 0 {
		limit = 20
	}
	// ts_rank in place of bm25, its length normalisation (1) favouring
	// short messages as bm25 does; equal ranks fall to the newest, then to
	// send order, as SQLite's sorter leaves them.
	return t.Messages(ctx, `SELECT m.id, m.project, m.agent_id, m.recipient, m.role, m.body, m.thread_id, m.metadata, m.event_type,
		m.delivery_status, m.question, m.created_at FROM messages m, to_tsquery('baton_simple', ?) AS r
		WHERE `+cond+` ORDER BY ts_rank(m.words, r, 1) DESC, m.created_at DESC, m.rid ASC LIMIT ?`, append(args, limit)...)
}

// agentOrder sorts agents as SQLite's COLLATE NOCASE column does: bytes,
// with ASCII letters folded to lower case (lower() under "C" folds only
// ASCII), rather than in ICU's order.
const agentOrder = `ORDER BY lower(name COLLATE "C") COLLATE "C", name COLLATE "C"`

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
		known, err := t.Strings(ctx, `SELECT name FROM agents `+agentOrder)
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
	rows, err := t.Q.QueryContext(ctx, `SELECT `+sqlcore.AgentColumns+` FROM agents `+agentOrder)
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
