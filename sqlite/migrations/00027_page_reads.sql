-- +goose Up
-- Reads whose cost follows the page they return, not the table.
--
-- Every index below ends with the rowid (rid), the tie-break of each
-- order, so a "... DESC, rid DESC LIMIT n" read walks n entries.
--
-- list_issues (most urgent first, newest first within a priority: priority
-- ASC, rid DESC, hence rid DESC here; walked backwards, the other way
-- round), with and without a status filter.
CREATE INDEX items_priority ON items (project, priority, rid DESC);
CREATE INDEX items_status_priority ON items (project, status, priority, rid DESC);
-- task_list's default (every project, most recently updated first).
CREATE INDEX items_updated_all ON items (updated_at);

-- read_messages of an agent: the messages it sent (agent_id compared as
-- the queries compare it, ignoring case) and those it was sent (recipient
-- is a NOCASE column), each newest first; and of a whole project.
CREATE INDEX messages_agent ON messages (agent_id COLLATE NOCASE, created_at);
CREATE INDEX messages_recipient_at ON messages (recipient, created_at);
CREATE INDEX messages_project_at ON messages (project, created_at);
-- A thread newest first: the rid tie-break instead of the id, which no
-- read orders by.
DROP INDEX messages_thread;
CREATE INDEX messages_thread ON messages (thread_id, created_at);

-- item_counts is how many items each project holds in each status and
-- priority, kept by the triggers below, so the total of a listing filtered
-- by those alone (list_issues', task_list's by default) sums a few rows
-- instead of counting every item. Rows that fall to zero stay.
CREATE TABLE item_counts (
    project  TEXT NOT NULL,
    status   TEXT NOT NULL,
    priority INTEGER NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (project, status, priority)
) WITHOUT ROWID;
INSERT INTO item_counts (project, status, priority, n)
    SELECT project, status, priority, COUNT(*) FROM items GROUP BY project, status, priority;
-- +goose StatementBegin
CREATE TRIGGER item_counts_insert AFTER INSERT ON items BEGIN
    INSERT INTO item_counts (project, status, priority, n) VALUES (new.project, new.status, new.priority, 1)
        ON CONFLICT (project, status, priority) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER item_counts_delete AFTER DELETE ON items BEGIN
    UPDATE item_counts SET n = n - 1 WHERE project = old.project AND status = old.status AND priority = old.priority;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER item_counts_update AFTER UPDATE OF project, status, priority ON items
    WHEN old.project IS NOT new.project OR old.status IS NOT new.status OR old.priority IS NOT new.priority
BEGIN
    UPDATE item_counts SET n = n - 1 WHERE project = old.project AND status = old.status AND priority = old.priority;
    INSERT INTO item_counts (project, status, priority, n) VALUES (new.project, new.status, new.priority, 1)
        ON CONFLICT (project, status, priority) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER item_counts_update;
DROP TRIGGER item_counts_delete;
DROP TRIGGER item_counts_insert;
DROP TABLE item_counts;
DROP INDEX messages_thread;
CREATE INDEX messages_thread ON messages (thread_id, created_at, id);
DROP INDEX messages_project_at;
DROP INDEX messages_recipient_at;
DROP INDEX messages_agent;
DROP INDEX items_updated_all;
DROP INDEX items_status_priority;
DROP INDEX items_priority;
