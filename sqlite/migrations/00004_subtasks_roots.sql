-- +goose Up
-- resume_status is the status a parent had before its subtasks blocked it;
-- it returns to it when the last subtask is done.
ALTER TABLE items ADD COLUMN resume_status TEXT NOT NULL DEFAULT '';
-- root is the project's repository directory, where docs/tickets/<ID>/ lives.
ALTER TABLE projects ADD COLUMN root TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE projects DROP COLUMN root;
ALTER TABLE items DROP COLUMN resume_status;
