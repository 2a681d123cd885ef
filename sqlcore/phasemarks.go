package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/baton-dev/baton"
)

// Phase findings carry their own id prefixes, as Symphony's do: pc- for a
// completion claim, pv- for a judge's verdict (see findingPrefix).
const findingColumns = `f.id, f.item_id, f.category, f.summary, f.details, f.files, f.created_by, f.created_at`

// PendingPhaseFindings returns the phase findings no tick has marked,
// oldest first, of one project's items or of every project's.
func (t *Tx) PendingPhaseFindings(ctx context.Context, project string) ([]*baton.Finding, error) {
	query := `SELECT ` + findingColumns + ` FROM findings f
		WHERE f.category IN (?, ?)
		AND NOT EXISTS (SELECT 1 FROM phase_marks m WHERE m.finding_id = f.id)`
	args := []any{baton.CategoryPhaseCompletion, baton.CategoryPhaseVerdict}
	if project != "" {
		query += ` AND f.item_id IN (SELECT id FROM items WHERE project = ?)`
		args = append(args, project)
	}
	rows, err := t.Q.QueryContext(ctx, query+` ORDER BY f.rid`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Finding{}
	for rows.Next() {
		f, err := scanFinding(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func scanFinding(rows *sql.Rows) (*baton.Finding, error) {
	var f baton.Finding
	var files string
	var created int64
	if err := rows.Scan(&f.ID, &f.ItemID, &f.Category, &f.Summary, &f.Details, &files, &f.CreatedBy, &created); err != nil {
		return nil, err
	}
	var err error
	if f.Files, err = ParseList(files); err != nil {
		return nil, fmt.Errorf("finding %s: files: %w", f.ID, err)
	}
	f.CreatedAt = FromMS(created)
	return &f, nil
}

// MarkPhaseFinding writes m once: the finding must be a phase finding
// without a mark. The check runs before the insert, so a second mark is
// refused without a failed statement (which would abort a PostgreSQL
// transaction).
func (t *Tx) MarkPhaseFinding(ctx context.Context, m *baton.PhaseMark) error {
	var item, category string
	err := t.Q.QueryRowContext(ctx, `SELECT item_id, category FROM findings WHERE id = ?`, m.FindingID).Scan(&item, &category)
	if errors.Is(err, sql.ErrNoRows) {
		return baton.Errorf(baton.ErrNotFound, "finding %q does not exist", m.FindingID).
			WithDetails("finding_id", m.FindingID)
	}
	if err != nil {
		return err
	}
	if category != baton.CategoryPhaseCompletion && category != baton.CategoryPhaseVerdict {
		return baton.Errorf(baton.ErrInvalidInput, "finding %s is a %s finding: only phase findings are processed", m.FindingID, category).
			WithDetails("finding_id", m.FindingID, "category", category)
	}
	prev, err := t.PhaseMark(ctx, m.FindingID)
	if err != nil {
		return err
	}
	if prev != nil {
		return baton.Errorf(baton.ErrConflict, "finding %s was processed already (%s at %s)", m.FindingID, prev.Outcome, baton.Timestamp(prev.ProcessedAt)).
			WithType("already_processed").WithDetails("finding_id", m.FindingID, "outcome", prev.Outcome)
	}
	if m.ProcessedAt.IsZero() {
		m.ProcessedAt = t.Now().UTC()
	}
	m.ItemID, m.Category = item, category
	_, err = t.Q.ExecContext(ctx, `INSERT INTO phase_marks (finding_id, item_id, category, phase, outcome, reason, processed_by, processed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		m.FindingID, m.ItemID, m.Category, m.Phase, m.Outcome, m.Reason, m.ProcessedBy, MS(m.ProcessedAt))
	return err
}

const markColumns = `finding_id, item_id, category, phase, outcome, reason, processed_by, processed_at`

func scanMark(row interface{ Scan(...any) error }) (*baton.PhaseMark, error) {
	var m baton.PhaseMark
	var at int64
	if err := row.Scan(&m.FindingID, &m.ItemID, &m.Category, &m.Phase, &m.Outcome, &m.Reason, &m.ProcessedBy, &at); err != nil {
		return nil, err
	}
	m.ProcessedAt = FromMS(at)
	return &m, nil
}

// PhaseMark returns the finding's mark, or nil.
func (t *Tx) PhaseMark(ctx context.Context, findingID string) (*baton.PhaseMark, error) {
	m, err := scanMark(t.Q.QueryRowContext(ctx, `SELECT `+markColumns+` FROM phase_marks WHERE finding_id = ?`, findingID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return m, err
}

// PhaseMarks returns an item's marks in the order they were written. An
// id the item had before a move finds them too: the marks followed it. An
// unknown item has none.
func (t *Tx) PhaseMarks(ctx context.Context, itemID string) ([]*baton.PhaseMark, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+markColumns+` FROM phase_marks WHERE item_id = `+currentItemID+` ORDER BY rid`,
		currentItemIDArgs(itemID)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.PhaseMark{}
	for rows.Next() {
		m, err := scanMark(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// findingPrefix is the id prefix of a finding of category: Symphony's pc-
// and pv- for the phase pipeline's, F- for every other.
func findingPrefix(category string) string {
	switch category {
	case baton.CategoryPhaseCompletion:
		return "pc"
	case baton.CategoryPhaseVerdict:
		return "pv"
	}
	return "F"
}
