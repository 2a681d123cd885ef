package sqlcore

import (
	"context"
	"fmt"
	"time"

	"github.com/baton-dev/baton"
)

// optMS stores an optional instant: the zero time is 0, so "not yet"
// (a run still going) reads back as the zero time, not as 1970.
func optMS(v time.Time) int64 {
	if v.IsZero() {
		return 0
	}
	return MS(v)
}

func fromOptMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return FromMS(v)
}

// AddFinding appends an immutable finding to an existing item, assigning
// its id (F-N; pc-N and pv-N for phase claims and verdicts) and, when
// unset, its creation time.
func (t *Tx) AddFinding(ctx context.Context, f *baton.Finding) error {
	// Look the item up first: the foreign key alone would give an opaque
	// constraint error instead of ERR_TASK_NOT_FOUND.
	if err := t.Activity(ctx, f.ItemID, f.CreatedBy, f.CreatedAt); err != nil {
		return err
	}
	if f.CreatedAt.IsZero() {
		f.CreatedAt = t.Now().UTC()
	}
	if f.Files == nil {
		f.Files = []string{}
	}
	id, err := t.InsertRecord(ctx, "findings", findingPrefix(f.Category), `item_id, category, summary, details, files, created_by, created_at`,
		f.ItemID, f.Category, f.Summary, f.Details, JSONList(f.Files), f.CreatedBy, MS(f.CreatedAt))
	if err != nil {
		return err
	}
	f.ID = id
	return nil
}

// Findings returns an item's findings oldest first, or its latest limit
// findings newest first. An unknown item has none; callers that must tell
// the difference look the item up themselves.
func (t *Tx) Findings(ctx context.Context, itemID string, limit int) ([]*baton.Finding, error) {
	query := `SELECT id, item_id, category, summary, details, files, created_by, created_at
		FROM findings WHERE item_id = ?`
	args := []any{itemID}
	if limit > 0 {
		query += ` ORDER BY rid DESC LIMIT ` + t.D.LimitArg()
		args = append(args, limit)
	} else {
		query += ` ORDER BY rid ASC`
	}
	rows, err := t.Q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Finding{}
	for rows.Next() {
		var f baton.Finding
		var files string
		var created int64
		if err := rows.Scan(&f.ID, &f.ItemID, &f.Category, &f.Summary, &f.Details, &files, &f.CreatedBy, &created); err != nil {
			return nil, err
		}
		if f.Files, err = ParseList(files); err != nil {
			return nil, fmt.Errorf("finding %s: files: %w", f.ID, err)
		}
		f.CreatedAt = FromMS(created)
		out = append(out, &f)
	}
	return out, rows.Err()
}

// AddComment appends a comment (id C-N) to an existing item.
func (t *Tx) AddComment(ctx context.Context, c *baton.Comment) error {
	if err := t.Activity(ctx, c.ItemID, c.CreatedBy, c.CreatedAt); err != nil {
		return err
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = t.Now().UTC()
	}
	id, err := t.InsertRecord(ctx, "comments", "C", `item_id, body, created_by, created_at`,
		c.ItemID, c.Body, c.CreatedBy, MS(c.CreatedAt))
	if err != nil {
		return err
	}
	c.ID = id
	return nil
}

// Comments returns an item's comments oldest first (none for an unknown item).
func (t *Tx) Comments(ctx context.Context, itemID string) ([]*baton.Comment, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT id, item_id, body, created_by, created_at
		FROM comments WHERE item_id = ? ORDER BY rid`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Comment{}
	for rows.Next() {
		var c baton.Comment
		var created int64
		if err := rows.Scan(&c.ID, &c.ItemID, &c.Body, &c.CreatedBy, &created); err != nil {
			return nil, err
		}
		c.CreatedAt = FromMS(created)
		out = append(out, &c)
	}
	return out, rows.Err()
}

// RecordTestHealth appends a test-health report to an existing item.
func (t *Tx) RecordTestHealth(ctx context.Context, h *baton.TestHealth) error {
	if err := t.Activity(ctx, h.ItemID, h.Agent, h.CreatedAt); err != nil {
		return err
	}
	if h.CreatedAt.IsZero() {
		h.CreatedAt = t.Now().UTC()
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO test_health (item_id, agent, test_count, test_files_changed, tests_added,
		tests_removed, execution_time_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		h.ItemID, h.Agent, h.TestCount, h.TestFilesChanged, h.TestsAdded, h.TestsRemoved, h.ExecutionTimeMS, MS(h.CreatedAt))
	return err
}

// RecordCoverage stores the latest word on a file and concept of a
// project, replacing any earlier record of the same pair.
func (t *Tx) RecordCoverage(ctx context.Context, c *baton.Coverage) error {
	if _, err := t.Self.Project(ctx, c.Project); err != nil {
		return err
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = t.Now().UTC()
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO coverage (project, file_path, concept, status, ticket_id, notes, agent, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project, file_path, concept) DO UPDATE SET status = excluded.status, ticket_id = excluded.ticket_id,
			notes = excluded.notes, agent = excluded.agent, updated_at = excluded.updated_at`,
		c.Project, c.FilePath, c.Concept, c.Status, c.TicketID, c.Notes, c.Agent, MS(c.UpdatedAt))
	return err
}
