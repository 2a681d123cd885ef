-- +goose Up
ALTER TABLE items ADD COLUMN close_reason TEXT NOT NULL DEFAULT '';

-- findings are append-only: no UPDATE or DELETE path exists in the store.
CREATE TABLE findings (
    rid        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    item_id    TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    category   TEXT NOT NULL,
    summary    TEXT NOT NULL,
    details    TEXT NOT NULL DEFAULT '',
    files      TEXT NOT NULL DEFAULT '[]',
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX findings_item ON findings (item_id, rid);

CREATE TABLE comments (
    rid        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    item_id    TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    body       TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX comments_item ON comments (item_id, rid);

CREATE TABLE learnings (
    rid           INTEGER PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    item_id       TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    project       TEXT NOT NULL REFERENCES projects(slug),
    pattern       TEXT NOT NULL,
    normalized    TEXT NOT NULL,
    context       TEXT NOT NULL DEFAULT '',
    applies_to    TEXT NOT NULL DEFAULT '[]',
    learning_type TEXT NOT NULL DEFAULT '',
    quality_score INTEGER NOT NULL DEFAULT 50,
    verified      INTEGER NOT NULL DEFAULT 0,
    created_by    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (item_id, normalized)
);
CREATE INDEX learnings_project ON learnings (project);

-- applies_to is indexed as space-separated text; porter stemming with
-- prefix queries gives Symphony's "prefix matching and stemming".
CREATE VIRTUAL TABLE learnings_fts USING fts5 (
    pattern, context, applies_to,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE runs (
    rid         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    item_id     TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    agent       TEXT NOT NULL,
    status      TEXT NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    cost_usd    REAL NOT NULL DEFAULT 0,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    num_turns   INTEGER NOT NULL DEFAULT 0,
    model       TEXT NOT NULL DEFAULT '',
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER NOT NULL,
    event_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_item ON runs (item_id, rid);

CREATE TABLE run_events (
    run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    type       TEXT NOT NULL,
    subtype    TEXT NOT NULL DEFAULT '',
    data       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX run_events_type ON run_events (run_id, type, subtype);

CREATE TABLE test_health (
    rid                INTEGER PRIMARY KEY,
    item_id            TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    agent              TEXT NOT NULL,
    test_count         INTEGER NOT NULL,
    test_files_changed INTEGER,
    tests_added        INTEGER,
    tests_removed      INTEGER,
    execution_time_ms  INTEGER,
    created_at         INTEGER NOT NULL
);
CREATE INDEX test_health_item ON test_health (item_id, rid);

CREATE TABLE coverage (
    project    TEXT NOT NULL REFERENCES projects(slug),
    file_path  TEXT NOT NULL,
    concept    TEXT NOT NULL,
    status     TEXT NOT NULL,
    ticket_id  TEXT NOT NULL DEFAULT '',
    notes      TEXT NOT NULL DEFAULT '',
    agent      TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (project, file_path, concept)
);

-- claims holds at most one lease per item. token is the fencing token:
-- tokens.next grows with every claim of the item, across releases.
CREATE TABLE claims (
    item_id     TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE ON UPDATE CASCADE,
    holder      TEXT NOT NULL,
    token       INTEGER NOT NULL,
    ttl_ms      INTEGER NOT NULL,
    prev_status TEXT NOT NULL,
    claimed_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX claims_expiry ON claims (expires_at);
CREATE INDEX claims_holder ON claims (holder);

CREATE TABLE claim_tokens (
    item_id TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE ON UPDATE CASCADE,
    last    INTEGER NOT NULL
);

-- +goose Down
DROP TABLE claim_tokens;
DROP TABLE claims;
DROP TABLE coverage;
DROP TABLE test_health;
DROP TABLE run_events;
DROP TABLE runs;
DROP TABLE learnings_fts;
DROP TABLE learnings;
DROP TABLE comments;
DROP TABLE findings;
ALTER TABLE items DROP COLUMN close_reason;
