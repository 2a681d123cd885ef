package sqlcore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/baton-dev/baton"
)

// Alias returns the current id of the work item that was called id before
// move_issue re-numbered it, or "" when no moved item ever had that id.
// Callers look it up only after the id named no item: a live id always
// wins over an old one.
func (t *Tx) Alias(ctx context.Context, id string) (string, error) {
	var cur string
	err := t.Q.QueryRowContext(ctx, `SELECT item_id FROM item_aliases WHERE old_id = ?`, id).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return cur, err
}

// addAlias records that the item now called newID was called oldID. The
// alias table's foreign key carries every older alias of the item along to
// newID (ON UPDATE CASCADE), so chains of moves need no walking. An old id
// that an earlier, different item once had now leads to this one: the
// latest item to have carried an id is the one a caller most likely means.
func (t *Tx) addAlias(ctx context.Context, oldID, newID string) error {
	_, err := t.Q.ExecContext(ctx, `INSERT INTO item_aliases (old_id, item_id) VALUES (?, ?)
		ON CONFLICT (old_id) DO UPDATE SET item_id = excluded.item_id`, oldID, newID)
	return err
}

// Item returns the item with id, or the one that had id before a move
// (Alias), with its claim lapsed as of now and its labels; an unknown id is
// ERR_TASK_NOT_FOUND. Both stores share it.
func (t *Tx) Item(ctx context.Context, id string) (*baton.Item, error) {
	it, err := ScanItem(t.Q.QueryRowContext(ctx, `SELECT `+ItemColumns+` FROM items WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		cur, aerr := t.Alias(ctx, id)
		if aerr != nil {
			return nil, aerr
		}
		if cur == "" {
			return nil, baton.TaskNotFound(id)
		}
		it, err = ScanItem(t.Q.QueryRowContext(ctx, `SELECT `+ItemColumns+` FROM items WHERE id = ?`, cur))
	}
	if err != nil {
		return nil, err
	}
	if err := t.Lapse(ctx, []*baton.Item{it}); err != nil {
		return nil, err
	}
	return it, t.LoadLabels(ctx, []*baton.Item{it})
}
