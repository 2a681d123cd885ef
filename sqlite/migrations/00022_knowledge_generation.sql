-- +goose Up
-- One counter every knowledge write moves on, in the write's transaction:
-- a process keeps the vectors in memory for exact search and reloads
-- them only when a snapshot shows a generation it has not loaded.
CREATE TABLE knowledge_state (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen BIGINT NOT NULL
);
INSERT INTO knowledge_state (id, gen) VALUES (1, 0);

-- +goose Down
DROP TABLE knowledge_state;
