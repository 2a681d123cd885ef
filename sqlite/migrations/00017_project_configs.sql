-- +goose Up
-- project_configs holds every version of each project's review and pipeline
-- settings (configure_project, baton project configure): quality gates,
-- sensitive paths, risk thresholds, worker and judge instructions, as one
-- JSON object. Rows are only ever added; the highest version is in force, and
-- the earlier ones say what a PR was scored against.
CREATE TABLE project_configs (
    project    TEXT NOT NULL REFERENCES projects(slug),
    version    INTEGER NOT NULL,
    settings   TEXT NOT NULL,
    updated_by TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (project, version)
);

-- +goose Down
DROP TABLE project_configs;
