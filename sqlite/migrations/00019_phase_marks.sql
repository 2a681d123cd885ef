-- +goose Up
-- phase_marks is the orchestrator's "processed" flag of phase_completion
-- (pc-) and phase_verdict (pv-) findings. Findings are immutable, so the
-- flag lives here, beside them: one row per processed finding, written
-- once by the tick that processed it and never changed. A phase finding
-- without a row is unprocessed.
CREATE TABLE phase_marks (
    rid          INTEGER PRIMARY KEY,
    finding_id   TEXT NOT NULL UNIQUE REFERENCES findings(id),
    item_id      TEXT NOT NULL REFERENCES items(id) ON UPDATE CASCADE,
    category     TEXT NOT NULL,
    phase        TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    reason       TEXT NOT NULL DEFAULT '',
    processed_by TEXT NOT NULL,
    processed_at INTEGER NOT NULL
);
CREATE INDEX phase_marks_item ON phase_marks (item_id, rid);
-- The tick looks for unprocessed phase findings every few seconds.
CREATE INDEX findings_phase ON findings (rid) WHERE category IN ('phase_completion', 'phase_verdict');

-- +goose Down
DROP INDEX findings_phase;
DROP TABLE phase_marks;
