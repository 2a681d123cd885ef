-- +goose Up
-- Source tracking of knowledge versions (membot-operations.md §3.1):
-- where a version came from (inline write or a project file), its
-- deterministic description, and the refresh schedule membot_refresh
-- follows. refreshed_at is epoch ms, 0 for never.
ALTER TABLE documents ADD COLUMN source_type TEXT NOT NULL DEFAULT 'inline';
ALTER TABLE documents ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN refresh_frequency_sec BIGINT NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN refreshed_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN last_refresh_status TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE documents DROP COLUMN last_refresh_status;
ALTER TABLE documents DROP COLUMN refreshed_at;
ALTER TABLE documents DROP COLUMN refresh_frequency_sec;
ALTER TABLE documents DROP COLUMN description;
ALTER TABLE documents DROP COLUMN source_type;
