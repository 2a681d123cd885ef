-- +goose Up
-- item_aliases keeps the ids a work item had before move_issue re-numbered
-- it: a prompt, a worktree marker or a session bound with --issue-id to the
-- old id keeps reaching the item. item_id follows the item through later
-- moves (ON UPDATE CASCADE), so every old id leads to its current one.
CREATE TABLE item_aliases (
    old_id  TEXT PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX item_aliases_item ON item_aliases (item_id);

-- +goose Down
DROP TABLE item_aliases;
