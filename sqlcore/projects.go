package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/baton-dev/baton"
)

// projectColumns are the columns scanProject reads.
const projectColumns = `slug, prefix, name, root, tools, created_at`

// scanProject reads one row of projectColumns.
func scanProject(scan func(...any) error) (*baton.Project, error) {
	var p baton.Project
	var tools string
	var created int64
	if err := scan(&p.Slug, &p.Prefix, &p.Name, &p.Root, &tools, &created); err != nil {
		return nil, err
	}
	var err error
	if p.Tools, err = ParseList(tools); err != nil {
		return nil, err
	}
	p.CreatedAt = FromMS(created)
	return &p, nil
}

// Project returns the project slug, ERR_PROJECT_NOT_FOUND when there is
// none. In a write batch it is read once: most writes look their project
// up, and on PostgreSQL each read is a round trip under the writers' lock.
func (t *Tx) Project(ctx context.Context, slug string) (*baton.Project, error) {
	if p := t.ProjectsRead.get(slug); p != nil {
		return p, nil
	}
	p, err := scanProject(t.Q.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE slug = ?`, slug).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, baton.ProjectNotFound(slug)
	}
	if err != nil {
		return nil, err
	}
	t.ProjectsRead.put(p)
	return p, nil
}

// Projects returns every project, by slug.
func (t *Tx) Projects(ctx context.Context) ([]*baton.Project, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY `+t.D.ByteOrder("slug"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*baton.Project
	for rows.Next() {
		p, err := scanProject(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ProjectMemo keeps the projects the calls of one write batch have read,
// by slug. The batch holds the writers' lock from its first call to its
// COMMIT, so only its own calls can change a project meanwhile: whatever
// changes a kept row's columns forgets it (SetProjectTools; an import
// forgets them all), and a call that fails forgets them all, as what it
// read may be rolled back. Only projects found are kept: a project
// created later in the batch is read then. The nil memo (a read-only
// transaction, a write outside a batch) keeps nothing.
type ProjectMemo struct {
	m map[string]*baton.Project
}

// get returns a copy of the kept project slug, or nil.
func (m *ProjectMemo) get(slug string) *baton.Project {
	if m == nil {
		return nil
	}
	p, ok := m.m[slug]
	if !ok {
		return nil
	}
	cp := *p
	cp.Tools = slices.Clone(p.Tools)
	return &cp
}

// put keeps a copy of p.
func (m *ProjectMemo) put(p *baton.Project) {
	if m == nil {
		return
	}
	if m.m == nil {
		m.m = map[string]*baton.Project{}
	}
	cp := *p
	cp.Tools = slices.Clone(p.Tools)
	m.m[p.Slug] = &cp
}

// forget drops the project slug.
func (m *ProjectMemo) forget(slug string) {
	if m != nil {
		delete(m.m, slug)
	}
}

// ForgetAll drops every project kept.
func (m *ProjectMemo) ForgetAll() {
	if m != nil {
		clear(m.m)
	}
}
