-- +goose Up
CREATE TABLE agents (
    name         TEXT PRIMARY KEY COLLATE NOCASE,
    status       TEXT NOT NULL DEFAULT '',
    task         TEXT NOT NULL DEFAULT '',
    bead_id      TEXT NOT NULL DEFAULT '',
    progress     INTEGER NOT NULL DEFAULT 0,
    progress_task TEXT NOT NULL DEFAULT '',
    progress_description TEXT NOT NULL DEFAULT '',
    first_seen   INTEGER NOT NULL,
    last_seen    INTEGER NOT NULL
);

CREATE TABLE messages (
    rid             INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    project         TEXT NOT NULL DEFAULT '',
    agent_id        TEXT NOT NULL,
    recipient       TEXT NOT NULL COLLATE NOCASE,
    role            TEXT NOT NULL,
    body            TEXT NOT NULL,
    thread_id       TEXT NOT NULL DEFAULT '',
    metadata        TEXT NOT NULL DEFAULT '{}',
    event_type      TEXT NOT NULL DEFAULT '',
    delivery_status TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX messages_thread ON messages (thread_id, created_at, id);
CREATE INDEX messages_recipient ON messages (recipient, delivery_status);
CREATE INDEX messages_created ON messages (created_at, id);

-- Not stemmed: a search word matches as a prefix of the written word
-- ("deploy" finds "deployment"; porter would index "deploy" but search
-- "deploi").
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    body, content = 'messages', content_rowid = 'rid',
    tokenize = 'unicode61 remove_diacritics 2'
);
-- +goose StatementBegin
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, body) VALUES (new.rid, new.body);
END;
-- +goose StatementEnd

CREATE TABLE proposals (
    rid         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    project     TEXT NOT NULL DEFAULT '',
    author      TEXT NOT NULL,
    title       TEXT NOT NULL,
    description TEXT NOT NULL,
    type        TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);

-- +goose Down
DROP TABLE proposals;
DROP TABLE messages_fts;
DROP TABLE messages;
DROP TABLE agents;
