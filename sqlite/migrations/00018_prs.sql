-- +goose Up
-- prs holds Symphony's local PR records: a snapshot of an issue's branch
-- against its base (the diff git produced, per-file stats), the gate
-- results, the risk score computed at creation, and the review's outcome.
-- files, gates and risk are JSON; risk_level is risk.level, kept apart for
-- listing and filtering. The project is the item's: no copy to keep in step
-- when an issue moves.
CREATE TABLE prs (
    rid              INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    item_id          TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    branch_name      TEXT NOT NULL,
    base_branch      TEXT NOT NULL,
    base_sha         TEXT NOT NULL DEFAULT '',
    head_sha         TEXT NOT NULL DEFAULT '',
    commits          INTEGER NOT NULL DEFAULT 0,
    repo_dir         TEXT NOT NULL DEFAULT '',
    diff             TEXT NOT NULL,
    diff_truncated   INTEGER NOT NULL DEFAULT 0,
    files            TEXT NOT NULL DEFAULT '[]',
    gates            TEXT NOT NULL DEFAULT '[]',
    risk             TEXT NOT NULL DEFAULT '{}',
    risk_level       TEXT NOT NULL,
    status           TEXT NOT NULL,
    reason           TEXT NOT NULL DEFAULT '',
    fix_instructions TEXT NOT NULL DEFAULT '',
    reviewed_by      TEXT NOT NULL DEFAULT '',
    reviewed_at      INTEGER NOT NULL DEFAULT 0,
    created_by       TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX prs_item ON prs (item_id, rid);
CREATE INDEX prs_status ON prs (status, rid);

-- +goose Down
DROP TABLE prs;
