package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/baton-dev/baton"
)

const projectConfigColumns = `project, version, settings, updated_by, updated_at`

func scanProjectConfig(scan func(...any) error) (*baton.ProjectConfig, error) {
	var c baton.ProjectConfig
	var settings string
	var updated int64
	if err := scan(&c.Project, &c.Version, &settings, &c.UpdatedBy, &updated); err != nil {
		return nil, err
	}
	return decodeProjectConfig(c, settings, updated)
}

// decodeProjectConfig completes c, read with its settings' JSON and its
// update time in milliseconds.
func decodeProjectConfig(c baton.ProjectConfig, settings string, updated int64) (*baton.ProjectConfig, error) {
	if err := json.Unmarshal([]byte(settings), &c.ProjectSettings); err != nil {
		return nil, fmt.Errorf("project %s configuration version %d: %w", c.Project, c.Version, err)
	}
	c.UpdatedAt = FromMS(updated)
	return c.Clone(), nil
}

// ProjectConfig returns the project's latest configuration, or the
// defaults for a project never configured; an unknown project is
// ERR_PROJECT_NOT_FOUND. One statement reads the project and its latest
// configuration: get_issue shows it on every call.
func (t *Tx) ProjectConfig(ctx context.Context, project string) (*baton.ProjectConfig, error) {
	var c baton.ProjectConfig
	var version, updated sql.NullInt64
	var settings, updatedBy sql.NullString
	err := t.Q.QueryRowContext(ctx, `SELECT p.slug, c.version, c.settings, c.updated_by, c.updated_at
		FROM projects p LEFT JOIN project_configs c ON c.project = p.slug
		WHERE p.slug = ? ORDER BY c.version DESC LIMIT 1`, project).Scan(&c.Project, &version, &settings, &updatedBy, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, baton.ProjectNotFound(project)
	}
	if err != nil {
		return nil, err
	}
	if !version.Valid {
		return baton.DefaultProjectConfig(c.Project), nil
	}
	c.Version, c.UpdatedBy = version.Int64, updatedBy.String
	return decodeProjectConfig(c, settings.String, updated.Int64)
}

// ProjectConfigHistory returns every version of the project's
// configuration, newest first.
func (t *Tx) ProjectConfigHistory(ctx context.Context, project string) ([]*baton.ProjectConfig, error) {
	p, err := t.Self.Project(ctx, project)
	if err != nil {
		return nil, err
	}
	return t.configs(ctx, p.Slug, 0)
}

func (t *Tx) configs(ctx context.Context, project string, limit int) ([]*baton.ProjectConfig, error) {
	var lim any = t.D.NoLimit()
	if limit > 0 {
		lim = limit
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT `+projectConfigColumns+` FROM project_configs WHERE project = ?
		ORDER BY version DESC LIMIT `+t.D.LimitArg(), project, lim)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.ProjectConfig{}
	for rows.Next() {
		c, err := scanProjectConfig(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// PutProjectConfig stores c as the project's next version.
func (t *Tx) PutProjectConfig(ctx context.Context, c *baton.ProjectConfig) error {
	p, err := t.Self.Project(ctx, c.Project)
	if err != nil {
		return err
	}
	n := c.Clone()
	if err := n.Validate(); err != nil {
		return err
	}
	if n.UpdatedAt.IsZero() {
		n.UpdatedAt = t.Now().UTC()
	}
	settings, err := json.Marshal(n.ProjectSettings)
	if err != nil {
		return err
	}
	// Writers run one at a time (SQLite's single writer, PostgreSQL's
	// writers' advisory lock, across replicas), so the next number cannot
	// be taken between the read and the insert; a conflict would still be
	// refused by the primary key.
	if err := t.Q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) + 1 FROM project_configs WHERE project = ?`,
		p.Slug).Scan(&n.Version); err != nil {
		return err
	}
	_, err = t.Q.ExecContext(ctx, `INSERT INTO project_configs (`+projectConfigColumns+`) VALUES (?, ?, ?, ?, ?)`,
		p.Slug, n.Version, string(settings), n.UpdatedBy, MS(n.UpdatedAt))
	if t.D.IsUnique(err) {
		return baton.Errorf(baton.ErrConflict, "project %s was configured by another call at the same time", p.Slug).
			WithType("conflict").WithDetails("project", p.Slug, "version", n.Version).
			WithHint("read the configuration again (baton project show) and repeat the change")
	}
	if err != nil {
		return err
	}
	c.Project, c.Version, c.UpdatedAt = p.Slug, n.Version, n.UpdatedAt
	c.Gates, c.SensitivePaths = n.Gates, n.SensitivePaths
	return nil
}
