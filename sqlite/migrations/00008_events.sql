-- +goose Up
CREATE TABLE events (
    project TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    type    TEXT NOT NULL,
    subject TEXT NOT NULL DEFAULT '',
    agent   TEXT NOT NULL DEFAULT '',
    data    TEXT NOT NULL DEFAULT '{}',
    at      INTEGER NOT NULL,
    PRIMARY KEY (project, seq)
);
CREATE INDEX events_at ON events (at);

-- +goose Down
DROP TABLE events;
