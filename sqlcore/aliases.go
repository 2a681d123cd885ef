package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

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

// currentItemID is an SQL expression for the id an item is called by now,
// given any id it had, bound by currentItemIDArgs: the id itself when an
// item has it (a live id wins over an old one, as in Item), else the item
// the alias table leads to, else the id unchanged (no item). Inside a
// query, it saves the statement Alias would take.
const currentItemID = `COALESCE((SELECT id FROM items WHERE id = ?), (SELECT item_id FROM item_aliases WHERE old_id = ?), ?)`

// currentItemIDArgs are currentItemID's arguments for id.
func currentItemIDArgs(id string) []any { return []any{id, id, id} }

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
	it, err := t.itemWithLapse(ctx, id)
	if errors.Is(err, sql.ErrNoRows) {
		cur, aerr := t.Alias(ctx, id)
		if aerr != nil {
			return nil, aerr
		}
		if cur == "" {
			return nil, baton.TaskNotFound(id)
		}
		it, err = t.itemWithLapse(ctx, cur)
	}
	if err == nil {
		if t.found == nil {
			t.found = map[string]bool{}
		}
		t.found[id] = true
	}
	return it, err
}

// itemWithLapse reads the item id as Lapse leaves it, with its labels (as
// LoadLabels sets them), in one statement: the holder of a lapsed claim
// that moved it from todo and the labels come with the row.
func (t *Tx) itemWithLapse(ctx context.Context, id string) (*baton.Item, error) {
	var holder sql.NullString
	var labels string
	it, err := ScanItem(t.Q.QueryRowContext(ctx, `SELECT `+ItemColumns+`, (SELECT holder FROM claims k
		WHERE k.item_id = items.id AND k.prev_status = 'todo' AND k.expires_at <= ?), `+t.D.LabelsOf("items.id")+`
		FROM items WHERE id = ?`, MS(t.Now()), id), &holder, &labels)
	if err != nil {
		return nil, err
	}
	if holder.Valid {
		lapse(it, holder.String)
	}
	if labels != "[]" {
		if err := json.Unmarshal([]byte(labels), &it.Labels); err != nil {
			return nil, fmt.Errorf("the labels of %s: %w", it.ID, err)
		}
	}
	return it, nil
}
