package postgres

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/ftsquery"
	"github.com/baton-dev/baton/sqlcore"
)

func (t *tx) CreateProject(ctx context.Context, p *baton.Project) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = t.Now().UTC()
	}
	err := t.attempt(ctx, func() error {
		_, err := t.Q.ExecContext(ctx, `INSERT INTO projects (slug, prefix, name, root, tools, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			p.Slug, p.Prefix, p.Name, p.Root, sqlcore.JSONList(sqlcore.UniqueList(p.Tools)), sqlcore.MS(p.CreatedAt))
		return err
	})
	if isUnique(err) {
		return baton.Errorf(baton.ErrConflict, "a project with slug %q or prefix %q already exists", p.Slug, p.Prefix).
			WithType("duplicate").WithDetails("project", p.Slug, "prefix", p.Prefix).
			WithHint("choose another slug and prefix, or use the existing project")
	}
	return err
}

func (t *tx) CreateItem(ctx context.Context, it *baton.Item) error {
	if err := baton.CheckPhaseLabels(it.Labels); err != nil {
		return err
	}
	var err error
	if it.ID != "" {
		it.Sequence, _, err = t.TakeSequence(ctx, it.Project)
	} else {
		it.Sequence, it.ID, err = t.NextID(ctx, it.Project)
	}
	if err != nil {
		return err
	}
	if it.CreatedAt.IsZero() {
		it.CreatedAt = t.Now().UTC()
	}
	if it.UpdatedAt.IsZero() {
		it.UpdatedAt = it.CreatedAt
	}
	if it.UpdatedBy == "" {
		it.UpdatedBy = it.CreatedBy
	}
	if it.Kind == "" {
		it.Kind = baton.KindTask
	}
	if err := t.CheckParent(ctx, it); err != nil {
		return err
	}
	err = t.attempt(ctx, func() error {
		_, err := t.Q.ExecContext(ctx, `INSERT INTO items (id, project, sequence, title, description, kind, status, priority,
		assignee, parent_id, progress, estimate_hours, blocked_reason, close_reason, resume_status, created_by, updated_by,
		created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			it.ID, it.Project, it.Sequence, it.Title, it.Description, it.Kind, it.Status, it.Priority,
			it.Assignee, sqlcore.NullString(it.ParentID), it.Progress, it.EstimateHours, it.BlockedReason, it.CloseReason, it.ResumeStatus,
			it.CreatedBy, it.UpdatedBy, sqlcore.MS(it.CreatedAt), sqlcore.MS(it.UpdatedAt))
		return err
	})
	if isUnique(err) {
		return baton.Errorf(baton.ErrConflict, "an item with id %q already exists", it.ID).
			WithType("duplicate").WithDetails("id", it.ID).WithHint("choose another id, or omit it to get the next one")
	}
	if err != nil {
		return err
	}
	return t.SetLabels(ctx, it.ID, it.Labels)
}

// itemLeaf is the condition for one leaf of a search: a plain word is a
// prefix of a written word (items.words) or of a stemmed one (items.fts),
// phrases and NEAR groups match written words, within the title (weight A)
// or the description (B).
func itemLeaf(n *ftsquery.Node) (string, []any) {
	return tsLeaf("words", "fts", "AB", n)
}

// ListItems is sqlcore's, with this store's full-text condition.
func (t *tx) ListItems(ctx context.Context, f baton.ItemFilter) (baton.ItemPage, error) {
	if strings.TrimSpace(f.Search) == "" {
		return t.Tx.ListItems(ctx, f, "", nil)
	}
	q, err := searchQuery(f.Search, "search", false)
	if err != nil {
		return baton.ItemPage{}, err
	}
	c, a := q.Root.SQL(itemLeaf)
	return t.Tx.ListItems(ctx, f, c, a)
}
