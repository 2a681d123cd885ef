-- +goose Up
-- baton dispatch records a run from its start (status running) to its end,
-- so a run also says how it was started: the agent profile, the attempt,
-- the worktree, the dispatcher's host and the agent's pid there, the exit
-- code (NULL until the process exits, or when it never started) and the
-- dispatcher. An ingested run keeps the defaults.
ALTER TABLE runs
    ADD COLUMN profile TEXT NOT NULL DEFAULT '',
    ADD COLUMN attempt BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN worktree TEXT NOT NULL DEFAULT '',
    ADD COLUMN host TEXT NOT NULL DEFAULT '',
    ADD COLUMN pid BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN exit_code BIGINT NULL,
    ADD COLUMN dispatcher TEXT NOT NULL DEFAULT '';
-- The runs still going (and the latest of each status) without reading the
-- whole table, which grows with every run.
CREATE INDEX runs_status ON runs (status, rid);

-- run_output keeps the tail of a dispatched agent's stdout and stderr; the
-- dropped counts are the bytes cut from the front of each.
CREATE TABLE run_output (
    run_id         TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    stdout         TEXT NOT NULL DEFAULT '',
    stderr         TEXT NOT NULL DEFAULT '',
    stdout_dropped BIGINT NOT NULL DEFAULT 0,
    stderr_dropped BIGINT NOT NULL DEFAULT 0
);

-- dispatch_retries is an item's backoff after failed dispatched runs,
-- shared by the dispatchers of every host: how many failed in a row and
-- when the item may be tried again. It follows the item through a move.
CREATE TABLE dispatch_retries (
    item_id    TEXT PRIMARY KEY REFERENCES items(id) ON UPDATE CASCADE ON DELETE CASCADE,
    attempts   BIGINT NOT NULL,
    next_at    BIGINT NOT NULL,
    last_error TEXT NOT NULL DEFAULT '',
    updated_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE dispatch_retries, run_output;
DROP INDEX runs_status;
ALTER TABLE runs
    DROP COLUMN dispatcher,
    DROP COLUMN exit_code,
    DROP COLUMN pid,
    DROP COLUMN host,
    DROP COLUMN worktree,
    DROP COLUMN attempt,
    DROP COLUMN profile;
