-- +goose Up
-- SQLite's migration 30 makes its item full-text triggers rewrite an
-- item's entries only when its title or description changes. PostgreSQL
-- keeps those entries in generated tsvector columns, which no trigger
-- writes, so there is nothing to change here: this migration keeps the two
-- stores at one schema version, which exports carry and imports check.

-- +goose Down
