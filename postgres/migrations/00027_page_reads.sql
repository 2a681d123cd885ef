-- +goose Up
-- Reads whose cost follows the page they return, not the table: each
-- index ends with rid, the tie-break of its order, so a
-- "... DESC, rid DESC LIMIT n" read walks n entries.
--
-- list_issues (most urgent first, newest first within a priority: priority
-- ASC, rid DESC, hence rid DESC here; walked backwards, the other way
-- round), with and without a status filter.
CREATE INDEX items_priority ON items (project, priority, rid DESC);
CREATE INDEX items_status_priority ON items (project, status, priority, rid DESC);
-- task_list's default (every project, most recently updated first), and
-- within a project.
CREATE INDEX items_updated_all ON items (updated_at, rid);
DROP INDEX items_updated;
CREATE INDEX items_updated ON items (project, updated_at, rid);

-- read_messages of an agent: the messages it sent (agent_id compared as
-- the queries compare it, under baton_nocase) and those it was sent
-- (recipient is a baton_nocase column), each newest first; and of a whole
-- project.
CREATE INDEX messages_agent ON messages ((agent_id COLLATE baton_nocase), created_at, rid);
CREATE INDEX messages_recipient_at ON messages (recipient, created_at, rid);
CREATE INDEX messages_project_at ON messages (project, created_at, rid);
-- A thread newest first: the rid tie-break instead of the id, which no
-- read orders by.
DROP INDEX messages_thread;
CREATE INDEX messages_thread ON messages (thread_id, created_at, rid);

-- item_counts is how many items each project holds in each status and
-- priority, kept by the trigger below, so the total of a listing filtered
-- by those alone (list_issues', task_list's by default) sums a few rows
-- instead of counting every item. Writers take the store's write lock, so
-- the counter rows never see two writers at once. Rows that fall to zero
-- stay.
CREATE TABLE item_counts (
    project  TEXT NOT NULL,
    status   TEXT NOT NULL,
    priority BIGINT NOT NULL,
    n        BIGINT NOT NULL,
    PRIMARY KEY (project, status, priority)
);
INSERT INTO item_counts (project, status, priority, n)
    SELECT project, status, priority, COUNT(*) FROM items GROUP BY project, status, priority;
-- +goose StatementBegin
CREATE FUNCTION item_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE item_counts SET n = n - 1
            WHERE project = OLD.project AND status = OLD.status AND priority = OLD.priority;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO item_counts (project, status, priority, n) VALUES (NEW.project, NEW.status, NEW.priority, 1)
            ON CONFLICT (project, status, priority) DO UPDATE SET n = item_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER item_counts_insert_delete AFTER INSERT OR DELETE ON items
    FOR EACH ROW EXECUTE FUNCTION item_counts_track();
CREATE TRIGGER item_counts_update AFTER UPDATE OF project, status, priority ON items
    FOR EACH ROW WHEN (OLD.project IS DISTINCT FROM NEW.project OR OLD.status IS DISTINCT FROM NEW.status
        OR OLD.priority IS DISTINCT FROM NEW.priority)
    EXECUTE FUNCTION item_counts_track();

-- +goose Down
DROP TRIGGER item_counts_update ON items;
DROP TRIGGER item_counts_insert_delete ON items;
DROP FUNCTION item_counts_track;
DROP TABLE item_counts;
DROP INDEX messages_thread;
CREATE INDEX messages_thread ON messages (thread_id, created_at, id);
DROP INDEX messages_project_at;
DROP INDEX messages_recipient_at;
DROP INDEX messages_agent;
DROP INDEX items_updated;
CREATE INDEX items_updated ON items (project, updated_at);
DROP INDEX items_updated_all;
DROP INDEX items_status_priority;
DROP INDEX items_priority;
