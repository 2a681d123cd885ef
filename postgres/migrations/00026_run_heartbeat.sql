-- +goose Up
-- heartbeat_at is when the dispatcher running a run last said it still
-- looks after it (unix ms; 0 before its process started). Another
-- dispatcher ends a running run only once its heartbeat is stale, whether
-- or not the run still holds its item's claim.
ALTER TABLE runs ADD COLUMN heartbeat_at BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE runs DROP COLUMN heartbeat_at;
