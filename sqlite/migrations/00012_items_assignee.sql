-- +goose Up
-- claim_next looks for the caller's own ready assignments first: without
-- this index that meant walking every todo item of the project.
CREATE INDEX items_assignee ON items (assignee, status, priority, created_at);

-- +goose Down
DROP INDEX items_assignee;
