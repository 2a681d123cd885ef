-- +goose Up
CREATE TABLE projects (
    slug       TEXT PRIMARY KEY,
    prefix     TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL DEFAULT '',
    next_seq   INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
);

-- items holds every work item: Symphony issues, Colibri tasks and Adjutant
-- beads are the same row. rid is the stable rowid the FTS index points at.
CREATE TABLE items (
    rid            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    project        TEXT NOT NULL REFERENCES projects(slug),
    sequence       INTEGER NOT NULL,
    title          TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    kind           TEXT NOT NULL DEFAULT 'task',
    status         TEXT NOT NULL,
    priority       INTEGER NOT NULL,
    assignee       TEXT NOT NULL DEFAULT '',
    parent_id      TEXT REFERENCES items(id) ON UPDATE CASCADE,
    progress       INTEGER NOT NULL DEFAULT 0,
    estimate_hours REAL,
    blocked_reason TEXT NOT NULL DEFAULT '',
    created_by     TEXT NOT NULL,
    updated_by     TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    UNIQUE (project, sequence)
);
CREATE INDEX items_queue ON items (project, status, priority, created_at);
CREATE INDEX items_updated ON items (project, updated_at);
CREATE INDEX items_created ON items (project, created_at);
CREATE INDEX items_parent ON items (parent_id);

CREATE TABLE item_labels (
    item_id  TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE ON UPDATE CASCADE,
    label    TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (item_id, label)
);
CREATE INDEX item_labels_label ON item_labels (label, item_id);

CREATE TABLE item_deps (
    item_id    TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE ON UPDATE CASCADE,
    depends_on TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE ON UPDATE CASCADE,
    PRIMARY KEY (item_id, depends_on)
);
CREATE INDEX item_deps_reverse ON item_deps (depends_on);

CREATE VIRTUAL TABLE items_fts USING fts5 (
    title, description,
    content = 'items', content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
    INSERT INTO items_fts (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER items_fts_update AFTER UPDATE OF title, description ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
    INSERT INTO items_fts (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE items_fts;
DROP TABLE item_deps;
DROP TABLE item_labels;
DROP TABLE items;
DROP TABLE projects;
