-- +goose Up
-- profiles are agent profiles' stored tool settings. A built-in profile
-- needs no row; a custom one extends a built-in. The lists are JSON arrays.
CREATE TABLE profiles (
    name             TEXT PRIMARY KEY,
    extends          TEXT NOT NULL DEFAULT '',
    allowed_tools    TEXT NOT NULL DEFAULT '[]',
    disallowed_tools TEXT NOT NULL DEFAULT '[]',
    skills           TEXT NOT NULL DEFAULT '[]',
    description      TEXT NOT NULL DEFAULT '',
    updated_at       INTEGER NOT NULL
);

-- agent_tokens are bearer credentials of the HTTP transport: only the hex
-- SHA-256 of a token is kept. Agent names compare case-insensitively.
CREATE TABLE agent_tokens (
    id         TEXT PRIMARY KEY,
    agent      TEXT NOT NULL COLLATE NOCASE,
    profile    TEXT NOT NULL,
    project    TEXT NOT NULL DEFAULT '',
    scheduler  INTEGER NOT NULL DEFAULT 0,
    hash       TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX agent_tokens_agent ON agent_tokens (agent);

-- tools is the project's tool bundle, a JSON array.
ALTER TABLE projects ADD COLUMN tools TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE projects DROP COLUMN tools;
DROP TABLE agent_tokens;
DROP TABLE profiles;
