-- +goose Up
-- The dashboard's "recent calls" of one agent: the newest actions of an
-- agent, matched as agent names are (ASCII case-insensitively), without
-- reading the whole log, which grows without bound.
CREATE INDEX actions_agent ON actions (lower(agent), position);

-- +goose Down
DROP INDEX actions_agent;
