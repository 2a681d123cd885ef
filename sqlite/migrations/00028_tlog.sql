-- +goose Up
-- The action log becomes a transparency log: each record's hash is the
-- RFC 6962 leaf hash of its RFC 8785 canonical JSON, and signed
-- checkpoints commit to the Merkle tree of those leaves.
--
-- SQL cannot compute SHA-256, so an existing log is queued here and baton
-- re-hashes it in Go when it opens the database, before anything else runs
-- (sqlcore.RechainActions). The row stays as the record of that re-chain:
-- how many records, the old head, whether the old chain verified, and the
-- position of the action that records it in the log itself.
CREATE TABLE action_rechain (
    id          INTEGER PRIMARY KEY,
    pending     INTEGER NOT NULL,
    records     INTEGER NOT NULL DEFAULT 0,
    old_head    TEXT NOT NULL DEFAULT '',
    first_break INTEGER NOT NULL DEFAULT 0,
    position    INTEGER NOT NULL DEFAULT 0,
    at          TEXT NOT NULL DEFAULT ''
);
INSERT INTO action_rechain (id, pending) SELECT 1, 1 WHERE EXISTS (SELECT 1 FROM actions);

-- The log's name and public key, fixed when its key is made; the private
-- key is a file outside the database.
CREATE TABLE audit_log (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    origin     TEXT NOT NULL,
    public_key TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- Signed checkpoints (C2SP tlog-checkpoint notes), one per size; edge is
-- the tree's right edge at that size (hex hashes, comma-separated), where
-- the next checkpoint resumes, and head the hash of the record at size,
-- which must still be there for it to resume.
CREATE TABLE audit_checkpoints (
    size  INTEGER PRIMARY KEY,
    root  TEXT NOT NULL,
    note  TEXT NOT NULL,
    edge  TEXT NOT NULL,
    head  TEXT NOT NULL,
    at    TEXT NOT NULL
);

-- +goose Down
DROP TABLE audit_checkpoints;
DROP TABLE audit_log;
DROP TABLE action_rechain;
