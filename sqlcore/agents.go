package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
)

// SessionAgent returns the name an agent's MCP sessions were recorded
// under, matched as agent names are (ASCII case-insensitively), or "" when
// none was. An agent that connected but has not changed anything yet has
// no row in agents, and list_agents still shows it: it is an agent others
// can message.
func (t *Tx) SessionAgent(ctx context.Context, name string) (string, error) {
	if strings.EqualFold(name, baton.User) {
		return "", nil // the user is never an agent
	}
	var agent string
	err := t.Q.QueryRowContext(ctx, `SELECT agent FROM agent_sessions WHERE lower(agent) = lower(?) AND agent != ''
		ORDER BY last_seen DESC LIMIT 1`, name).Scan(&agent)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return agent, err
}

// WithSessionAgents adds to known (the agents table's names) the agents
// known only from their sessions, sorted as known is, case-insensitively.
func (t *Tx) WithSessionAgents(ctx context.Context, known []string) ([]string, error) {
	names, err := t.Strings(ctx, `SELECT DISTINCT agent FROM agent_sessions WHERE agent != ''`)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if strings.EqualFold(n, baton.User) || slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, n) }) {
			continue
		}
		known = append(known, n)
	}
	slices.SortStableFunc(known, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return known, nil
}
