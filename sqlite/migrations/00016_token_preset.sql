-- +goose Up
-- The tool preset an agent's HTTP sessions get (baton agent create --preset);
-- empty means the session's default.
ALTER TABLE agent_tokens ADD COLUMN preset TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE agent_tokens DROP COLUMN preset;
