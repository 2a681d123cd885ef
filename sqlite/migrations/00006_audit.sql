-- +goose Up
-- thoughts: one hash chain per task (position from 1).
CREATE TABLE thoughts (
    rid           INTEGER PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    task_id       TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    position      INTEGER NOT NULL,
    type          TEXT NOT NULL,
    content       TEXT NOT NULL,
    branch        TEXT NOT NULL DEFAULT '',
    commit_sha    TEXT NOT NULL DEFAULT '',
    tests_run     TEXT NOT NULL DEFAULT '[]',
    blockers      TEXT NOT NULL DEFAULT '[]',
    metadata      TEXT NOT NULL DEFAULT '{}',
    recorded_at   TEXT NOT NULL,
    recorded_by   TEXT NOT NULL,
    previous_hash TEXT NOT NULL,
    hash          TEXT NOT NULL
);
CREATE INDEX thoughts_task ON thoughts (task_id, position);

CREATE TABLE audit_sessions (
    rid          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    task_id      TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    auditor_id   TEXT NOT NULL,
    reason       TEXT NOT NULL DEFAULT '',
    scope        TEXT NOT NULL,
    started_by   TEXT NOT NULL,
    started_at   INTEGER NOT NULL,
    finalized_at INTEGER,
    merkle_root  TEXT NOT NULL DEFAULT '',
    root_task    TEXT NOT NULL DEFAULT '',
    tree_depth   INTEGER NOT NULL DEFAULT 0,
    leaf_count   INTEGER NOT NULL DEFAULT 0,
    last_change  INTEGER NOT NULL
);
CREATE INDEX audit_sessions_open ON audit_sessions (task_id) WHERE finalized_at IS NULL;

-- session_records are the leaves of each session's Merkle tree, in order.
CREATE TABLE session_records (
    session_id TEXT NOT NULL REFERENCES audit_sessions(id),
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    record_id  TEXT NOT NULL,
    task_id    TEXT NOT NULL,
    hash       TEXT NOT NULL,
    at         INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
);

-- actions: every successful mutating tool call, one hash chain.
CREATE TABLE actions (
    position      INTEGER PRIMARY KEY,
    agent         TEXT NOT NULL,
    source        TEXT NOT NULL,
    tool          TEXT NOT NULL,
    subject       TEXT NOT NULL DEFAULT '',
    input_digest  TEXT NOT NULL,
    result_digest TEXT NOT NULL,
    at            TEXT NOT NULL,
    previous_hash TEXT NOT NULL,
    hash          TEXT NOT NULL
);
CREATE INDEX actions_subject ON actions (subject);

-- +goose Down
DROP TABLE actions;
DROP TABLE session_records;
DROP TABLE audit_sessions;
DROP TABLE thoughts;
