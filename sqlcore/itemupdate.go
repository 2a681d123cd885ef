package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/baton-dev/baton"
)

// UpdateItem writes it over the stored item, enforcing claims (CheckClaim)
// and the parent's rules (CheckParent). A resume status means something
// only while the item is blocked by its sub-tasks: any other status drops
// it, so a later block by a person is not lifted when old sub-tasks
// finish.
//
// Most updates leave the parent and the labels as they were, and then it
// is one statement: the UPDATE returns the stored parent and labels, and
// only what differs is written after it. Setting parent_id in the UPDATE
// itself would cost SQLite more than a statement: parent_id references
// items, and SQLite rewrites every index of a row whose UPDATE sets a
// column of a self-referencing foreign key, changed or not.
func (t *Tx) UpdateItem(ctx context.Context, it *baton.Item) error {
	if err := baton.CheckPhaseLabels(it.Labels); err != nil {
		return err
	}
	if it.Status != baton.StatusBlocked {
		it.ResumeStatus = ""
	}
	if err := t.CheckParent(ctx, it); err != nil {
		return err
	}
	if err := t.CheckClaim(ctx, it); err != nil {
		return err
	}
	var parent sql.NullString
	var labels string
	err := t.Q.QueryRowContext(ctx, `UPDATE items SET title = ?, description = ?, kind = ?, status = ?, priority = ?,
		assignee = ?, progress = ?, estimate_hours = ?, blocked_reason = ?, close_reason = ?, resume_status = ?,
		updated_by = ?, updated_at = ? WHERE id = ? RETURNING parent_id, `+t.D.LabelsOf("items.id"),
		it.Title, it.Description, it.Kind, it.Status, it.Priority, it.Assignee, it.Progress,
		it.EstimateHours, it.BlockedReason, it.CloseReason, it.ResumeStatus, it.UpdatedBy, MS(it.UpdatedAt), it.ID).
		Scan(&parent, &labels)
	if errors.Is(err, sql.ErrNoRows) {
		return baton.TaskNotFound(it.ID)
	}
	if err != nil {
		return err
	}
	if parent.String != it.ParentID {
		if _, err := t.Q.ExecContext(ctx, `UPDATE items SET parent_id = ? WHERE id = ?`, NullString(it.ParentID), it.ID); err != nil {
			return err
		}
	}
	var stored []string
	if err := json.Unmarshal([]byte(labels), &stored); err != nil {
		return fmt.Errorf("the labels of %s: %w", it.ID, err)
	}
	if !slices.Equal(stored, UniqueList(it.Labels)) { // as SetLabels stores them
		if err := t.SetLabels(ctx, it.ID, it.Labels); err != nil {
			return err
		}
	}
	if it.Status.Terminal() && it.ParentID != "" {
		return t.resumeParent(ctx, it.ParentID, it.UpdatedAt)
	}
	return nil
}

// CheckParent requires an item's parent to exist, in the same project,
// and names it by its current id (an id the parent had before a move
// names it too).
func (t *Tx) CheckParent(ctx context.Context, it *baton.Item) error {
	if it.ParentID == "" {
		return nil
	}
	parent, err := t.Self.Item(ctx, it.ParentID)
	if err != nil {
		return err
	}
	it.ParentID = parent.ID
	if parent.ID == it.ID {
		return baton.Errorf(baton.ErrInvalidInput, "%s cannot be its own parent", it.ID).
			WithDetails("field", "parent_id", "constraint", "not_self").WithHint("choose another parent, or none")
	}
	if parent.Project != it.Project {
		return baton.Errorf(baton.ErrInvalidInput, "parent %s belongs to project %s, not %s", parent.ID, parent.Project, it.Project).
			WithDetails("field", "parent_id", "constraint", "same_project", "parent_project", parent.Project).
			WithHint("create the sub-task in project %s, or choose a parent in %s", parent.Project, it.Project)
	}
	return nil
}

// SetLabels replaces the item's labels with labels, in order, each once.
func (t *Tx) SetLabels(ctx context.Context, id string, labels []string) error {
	if _, err := t.Q.ExecContext(ctx, `DELETE FROM item_labels WHERE item_id = ?`, id); err != nil {
		return err
	}
	for pos, l := range UniqueList(labels) {
		if _, err := t.Q.ExecContext(ctx, `INSERT INTO item_labels (item_id, label, position) VALUES (?, ?, ?)`, id, l, pos); err != nil {
			return err
		}
	}
	return nil
}

// resumeParent returns a parent its subtasks blocked to the status it had,
// once none of them is left unfinished; whichever vocabulary finished the
// last one, the parent follows.
func (t *Tx) resumeParent(ctx context.Context, parentID string, now time.Time) error {
	_, err := t.Q.ExecContext(ctx, `UPDATE items SET status = resume_status, resume_status = '', blocked_reason = '',
		updated_at = ? WHERE id = ? AND status = 'blocked' AND resume_status != ''
		AND NOT EXISTS (SELECT 1 FROM items c WHERE c.parent_id = items.id AND c.status NOT IN ('done', 'cancelled'))`,
		MS(now), parentID)
	return err
}

// NullString stores "" as NULL (for optional references).
func NullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
