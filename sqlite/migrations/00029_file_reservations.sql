-- +goose Up
-- Advisory file reservations (mcp_agent_mail's vocabulary): an agent's
-- lease on a path glob of its project's repository, exclusive or shared,
-- with a TTL. item_id is the claimed item it was taken for: the claim's
-- end releases it (released_by 'claim').
CREATE TABLE file_reservations (
    id          INTEGER PRIMARY KEY,
    project     TEXT NOT NULL,
    agent       TEXT NOT NULL,
    pattern     TEXT NOT NULL,
    exclusive   INTEGER NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    item_id     TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    released_at INTEGER,
    released_by TEXT NOT NULL DEFAULT ''
);
CREATE INDEX file_reservations_held ON file_reservations (project, expires_at) WHERE released_at IS NULL;
CREATE INDEX file_reservations_item ON file_reservations (item_id) WHERE released_at IS NULL AND item_id <> '';

-- +goose Down
DROP TABLE file_reservations;
