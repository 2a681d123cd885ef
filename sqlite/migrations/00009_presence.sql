-- +goose Up
CREATE TABLE agent_sessions (
    id           TEXT PRIMARY KEY,
    agent        TEXT NOT NULL,
    connected_at INTEGER NOT NULL,
    last_seen    INTEGER NOT NULL,
    closed_at    INTEGER
);
CREATE INDEX agent_sessions_live ON agent_sessions (last_seen) WHERE closed_at IS NULL;

-- +goose Down
DROP TABLE agent_sessions;
