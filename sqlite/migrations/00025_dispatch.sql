-- +goose Up
-- baton dispatch records a run from its start (status running) to its end,
-- so a run also says how it was started: the agent profile, the attempt,
-- the worktree, the dispatcher's host and the agent's pid there, the exit
-- code (NULL until the process exits, or when it never started) and the
-- dispatcher. An ingested run keeps the defaults.
ALTER TABLE runs ADD COLUMN profile TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN worktree TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN exit_code INTEGER NULL;
ALTER TABLE runs ADD COLUMN dispatcher TEXT NOT NULL DEFAULT '';
-- The runs still going (and the latest of each status) without reading the
-- whole table, which grows with every run.
CREATE INDEX runs_status ON runs (status, rid);

-- run_output keeps the tail of a dispatched agent's stdout and stderr; the
-- dropped counts are the bytes cut from the front of each.
CREATE TABLE run_output (
    run_id         TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    stdout         TEXT NOT NULL DEFAULT '',
    stderr         TEXT NOT NULL DEFAULT '',
    stdout_dropped INTEGER NOT NULL DEFAULT 0,
    stderr_dropped INTEGER NOT NULL DEFAULT 0
);

-- dispatch_retries is an item's backoff after failed dispatched runs,
-- shared by the dispatchers of every host: how many failed in a row and
-- when the item may be tried again. It follows the item through a move.
CREATE TABLE dispatch_retries (
    item_id    TEXT PRIMARY KEY REFERENCES items(id) ON UPDATE CASCADE ON DELETE CASCADE,
    attempts   INTEGER NOT NULL,
    next_at    INTEGER NOT NULL,
    last_error TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE dispatch_retries;
DROP TABLE run_output;
DROP INDEX runs_status;
ALTER TABLE runs DROP COLUMN dispatcher;
ALTER TABLE runs DROP COLUMN exit_code;
ALTER TABLE runs DROP COLUMN pid;
ALTER TABLE runs DROP COLUMN host;
ALTER TABLE runs DROP COLUMN worktree;
ALTER TABLE runs DROP COLUMN attempt;
ALTER TABLE runs DROP COLUMN profile;
