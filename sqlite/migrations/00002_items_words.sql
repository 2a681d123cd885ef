-- +goose Up
-- items_words indexes the same text without stemming, so a search word can
-- match as a prefix of the written word ("runn" finds "running", which the
-- porter index stores as "run"); items_fts keeps stemmed matches.
CREATE VIRTUAL TABLE items_words USING fts5 (
    title, description,
    content = 'items', content_rowid = 'rid',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO items_words (items_words) VALUES ('rebuild');

-- +goose StatementBegin
CREATE TRIGGER items_words_insert AFTER INSERT ON items BEGIN
    INSERT INTO items_words (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER items_words_delete AFTER DELETE ON items BEGIN
    INSERT INTO items_words (items_words, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER items_words_update AFTER UPDATE OF title, description ON items BEGIN
    INSERT INTO items_words (items_words, rowid, title, description) VALUES ('delete', old.rid, old.title, old.description);
    INSERT INTO items_words (rowid, title, description) VALUES (new.rid, new.title, new.description);
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE items_words;
