package baton

import (
	"context"
	"strings"
)

// UnpaddedID returns id with the leading zeros of its number dropped and
// true (Colibri writes T-0042 where baton's id is T-42), or id and false
// when its number has no leading zero. The prefix is kept as written:
// ids match case-sensitively, as everywhere else.
func UnpaddedID(id string) (string, bool) {
	dash := strings.LastIndexByte(id, '-')
	if dash <= 0 {
		return id, false
	}
	num := id[dash+1:]
	if len(num) < 2 || num[0] != '0' {
		return id, false
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return id, false
		}
	}
	trimmed := strings.TrimLeft(num, "0")
	if trimmed == "" {
		trimmed = "0"
	}
	return id[:dash+1] + trimmed, true
}

// ResolveItem reads the work item an id names, as the Colibri tools take
// ids: the item with exactly that id, else, when the id's number is
// zero-padded (T-0042), the item without the padding (T-42). Only those
// two are tried, so the answer is never a guess; neither existing is
// ERR_TASK_NOT_FOUND for the id as given.
func ResolveItem(ctx context.Context, tx ItemTx, id string) (*Item, error) {
	it, err := tx.Item(ctx, id)
	if err == nil || ErrorCode(err) != ErrTaskNotFound {
		return it, err
	}
	short, ok := UnpaddedID(id)
	if !ok {
		return nil, err
	}
	it, err2 := tx.Item(ctx, short)
	if err2 == nil || ErrorCode(err2) != ErrTaskNotFound {
		return it, err2
	}
	return nil, TaskNotFound(id).WithDetails("task_id", id, "also_tried", short)
}
