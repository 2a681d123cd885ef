-- +goose Up
-- PostgreSQL's migration 31 makes its item full-text columns follow the
-- title and description through a trigger that runs only when either
-- changes, as SQLite's FTS5 triggers do since migration 30: nothing to
-- change here. This migration keeps the two stores at one schema version,
-- which exports carry and imports check.

-- +goose Down
