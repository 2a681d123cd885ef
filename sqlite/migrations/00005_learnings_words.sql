-- +goose Up
-- learnings_words indexes learnings without stemming so a search word can
-- match as a prefix of the written word ("runn" finds "running", which
-- learnings_fts stores as "run"); learnings_fts keeps stemmed matches.
CREATE VIRTUAL TABLE learnings_words USING fts5 (
    pattern, context, applies_to,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO learnings_words (rowid, pattern, context, applies_to)
    SELECT rid, pattern, context, COALESCE((SELECT group_concat(value, ' ') FROM json_each(learnings.applies_to)), '')
    FROM learnings;

-- +goose Down
DROP TABLE learnings_words;
