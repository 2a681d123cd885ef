-- +goose Up
-- An item's full-text entries are rewritten only when its title or
-- description changes. Every update of an item sets all its columns, and
-- "AFTER UPDATE OF title, description" fires whenever they are set, even
-- to the same text: a status change removed and re-added the item in both
-- full-text indexes (four FTS5 writes, most of the update's cost).
DROP TRIGGER items_fts_update;
-- +goose StatementBegin
CREATE TRIGGER items_fts_update AFTER UPDATE OF title, description ON items
    WHEN old.title IS NOT new.title OR old.description IS NOT new.description
BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
    INSERT INTO items_fts (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd
DROP TRIGGER items_words_update;
-- +goose StatementBegin
CREATE TRIGGER items_words_update AFTER UPDATE OF title, description ON items
    WHEN old.title IS NOT new.title OR old.description IS NOT new.description
BEGIN
    INSERT INTO items_words (items_words, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
    INSERT INTO items_words (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER items_fts_update;
-- +goose StatementBegin
CREATE TRIGGER items_fts_update AFTER UPDATE OF title, description ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
    INSERT INTO items_fts (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd
DROP TRIGGER items_words_update;
-- +goose StatementBegin
CREATE TRIGGER items_words_update AFTER UPDATE OF title, description ON items BEGIN
    INSERT INTO items_words (items_words, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
    INSERT INTO items_words (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd
