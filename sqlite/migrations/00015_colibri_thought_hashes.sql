-- +goose Up
-- An audit session tracks new records until audit_verify_chain verifies
-- it (Colibri's catalogue), not only until merkle_finalize freezes it.
ALTER TABLE audit_sessions ADD COLUMN tracking_ended_at INTEGER;
DROP INDEX audit_sessions_open;
CREATE INDEX audit_sessions_open ON audit_sessions (task_id) WHERE finalized_at IS NULL AND tracking_ended_at IS NULL;

-- Thought records are hashed by the catalogue's formula from now on
-- (JSON.stringify of six fields in its order, previous_hash null first).
-- SQL cannot compute SHA-256 here, so the chains written by the older rule
-- are queued, and baton re-chains them in Go when it opens the database,
-- before anything else runs (sqlcore.RechainThoughts).
CREATE TABLE thought_rechain (task_id TEXT PRIMARY KEY);
INSERT INTO thought_rechain (task_id) SELECT DISTINCT task_id FROM thoughts;

-- +goose Down
DROP TABLE thought_rechain;
DROP INDEX audit_sessions_open;
CREATE INDEX audit_sessions_open ON audit_sessions (task_id) WHERE finalized_at IS NULL;
ALTER TABLE audit_sessions DROP COLUMN tracking_ended_at;
