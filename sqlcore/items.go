package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
)

// TakeSequence consumes the project's next sequence number.
func (t *Tx) TakeSequence(ctx context.Context, project string) (int64, string, error) {
	var seq int64
	var prefix string
	err := t.Q.QueryRowContext(ctx, `UPDATE projects SET next_seq = next_seq + 1 WHERE slug = ? RETURNING next_seq - 1, prefix`, project).
		Scan(&seq, &prefix)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", baton.ProjectNotFound(project)
	}
	return seq, prefix, err
}

// NextID allocates PREFIX-SEQUENCE, skipping numbers a custom id holds.
func (t *Tx) NextID(ctx context.Context, project string) (int64, string, error) {
	for {
		seq, prefix, err := t.TakeSequence(ctx, project)
		if err != nil {
			return 0, "", err
		}
		id := fmt.Sprintf("%s-%d", prefix, seq)
		var taken bool
		if err := t.Q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM items WHERE id = ?)`, id).Scan(&taken); err != nil {
			return 0, "", err
		}
		if !taken {
			return seq, id, nil
		}
	}
}

// ItemColumns are the columns ScanItem reads, in its order.
const ItemColumns = `id, project, sequence, title, description, kind, status, priority, assignee,
	COALESCE(parent_id, ''), progress, estimate_hours, blocked_reason, close_reason, resume_status, created_by, updated_by, created_at, updated_at`

// ScanItem reads ItemColumns, then any extra columns into extra.
func ScanItem(sc interface{ Scan(...any) error }, extra ...any) (*baton.Item, error) {
	var it baton.Item
	var est sql.NullFloat64
	var created, updated int64
	dest := append([]any{&it.ID, &it.Project, &it.Sequence, &it.Title, &it.Description, &it.Kind, &it.Status,
		&it.Priority, &it.Assignee, &it.ParentID, &it.Progress, &est, &it.BlockedReason, &it.CloseReason, &it.ResumeStatus, &it.CreatedBy,
		&it.UpdatedBy, &created, &updated}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	if est.Valid {
		it.EstimateHours = &est.Float64
	}
	it.CreatedAt, it.UpdatedAt = FromMS(created), FromMS(updated)
	it.Labels = []string{}
	return &it, nil
}

// LoadLabels fills in the labels of items, in their stored order.
func (t *Tx) LoadLabels(ctx context.Context, items []*baton.Item) error {
	if len(items) == 0 {
		return nil
	}
	byID := make(map[string]*baton.Item, len(items))
	args := make([]any, len(items))
	for i, it := range items {
		byID[it.ID] = it
		args[i] = it.ID
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT item_id, label FROM item_labels WHERE item_id IN (`+
		Placeholders(len(items))+`) ORDER BY item_id, position`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, l string
		if err := rows.Scan(&id, &l); err != nil {
			return err
		}
		byID[id].Labels = append(byID[id].Labels, l)
	}
	return rows.Err()
}

// Children returns the ids of items whose parent is id, oldest first.
func (t *Tx) Children(ctx context.Context, id string) ([]string, error) {
	return t.Strings(ctx, `SELECT id FROM items WHERE parent_id = ? ORDER BY rid`, id)
}

// ItemHolds asks, in one statement, what get_issue would otherwise ask in
// seven, most of them answered by nothing: an item being worked on has no
// pull request, reservation, subtask or dependency more often than not.
// Reservations count while unreleased, lapsed or not; the condition that
// the item id is not empty lets their partial index serve.
func (t *Tx) ItemHolds(ctx context.Context, id string) (baton.ItemHolds, error) {
	var h baton.ItemHolds
	err := t.Q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM item_deps WHERE item_id = ?),
		EXISTS (SELECT 1 FROM items WHERE parent_id = ?), EXISTS (SELECT 1 FROM findings WHERE item_id = ?),
		EXISTS (SELECT 1 FROM learnings WHERE item_id = ?), EXISTS (SELECT 1 FROM comments WHERE item_id = ?),
		EXISTS (SELECT 1 FROM prs WHERE item_id = ?),
		EXISTS (SELECT 1 FROM file_reservations WHERE item_id = ? AND released_at IS NULL AND item_id <> '')`,
		id, id, id, id, id, id, id).Scan(&h.Dependencies, &h.Children, &h.Findings, &h.Learnings, &h.Comments, &h.PRs, &h.Reservations)
	return h, err
}

// Dependencies returns the ids id depends on, in byte order.
func (t *Tx) Dependencies(ctx context.Context, id string) ([]string, error) {
	return t.Strings(ctx, `SELECT depends_on FROM item_deps WHERE item_id = ? ORDER BY `+t.D.ByteOrder("depends_on"), id)
}

// Dependents returns the ids of the items that depend on id.
func (t *Tx) Dependents(ctx context.Context, id string) ([]string, error) {
	return t.Strings(ctx, `SELECT item_id FROM item_deps WHERE depends_on = ? ORDER BY `+t.D.ByteOrder("item_id"), id)
}

// AddDependency records that id waits for dependsOn, refusing a cycle.
func (t *Tx) AddDependency(ctx context.Context, id, dependsOn string) error {
	for _, x := range []*string{&id, &dependsOn} {
		it, err := t.Self.Item(ctx, *x)
		if err != nil {
			return err
		}
		*x = it.ID // an id the item had before a move names it too
	}
	if path, err := t.pathBetween(ctx, dependsOn, id); err != nil {
		return err
	} else if path != nil {
		cycle := append([]string{id}, path...)
		return baton.Errorf(baton.ErrCircularDependency, "%s cannot depend on %s: that closes the cycle %s",
			id, dependsOn, strings.Join(cycle, " -> ")).
			WithDetails("task_id", id, "depends_on", dependsOn, "cycle", cycle).
			WithHint("remove one dependency of the cycle first, or depend on another item")
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO item_deps (item_id, depends_on) VALUES (?, ?) ON CONFLICT DO NOTHING`, id, dependsOn)
	return err
}

// RemoveDependency drops the dependency; an absent one is ERR_NOT_FOUND.
func (t *Tx) RemoveDependency(ctx context.Context, id, dependsOn string) error {
	res, err := t.Q.ExecContext(ctx, `DELETE FROM item_deps WHERE item_id = ? AND depends_on = ?`, id, dependsOn)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return baton.Errorf(baton.ErrNotFound, "%s does not depend on %s", id, dependsOn).
			WithDetails("task_id", id, "depends_on", dependsOn).
			WithHint("get_issue lists what an issue depends on")
	}
	return nil
}

// pathBetween returns a dependency path from -> ... -> to, or nil.
func (t *Tx) pathBetween(ctx context.Context, from, to string) ([]string, error) {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var path []string
			for n := to; n != ""; n = prev[n] {
				path = append(path, n)
			}
			slices.Reverse(path)
			return path, nil
		}
		next, err := t.Dependencies(ctx, cur)
		if err != nil {
			return nil, err
		}
		for _, n := range next {
			if _, seen := prev[n]; !seen {
				prev[n] = cur
				queue = append(queue, n)
			}
		}
	}
	return nil, nil
}

// ListItems is the stores' ListItems, given the condition (and its
// arguments) a full-text search adds, which each store writes its own way:
// "" when the filter has no search. The page walks an index in the order
// asked (see migration 00027) and so costs its size; the total comes from
// item_counts when only project, status and priority filter (see
// ItemTotal), and is counted otherwise.
func (t *Tx) ListItems(ctx context.Context, f baton.ItemFilter, search string, searchArgs []any) (baton.ItemPage, error) {
	var where []string
	var args []any
	if f.Project != "" {
		where, args = append(where, "project = ?"), append(args, f.Project)
	}
	if len(f.Statuses) > 0 {
		where = append(where, "status IN ("+Placeholders(len(f.Statuses))+")")
		for _, s := range f.Statuses {
			args = append(args, s)
		}
	}
	if len(f.Priorities) > 0 {
		where = append(where, "priority IN ("+Placeholders(len(f.Priorities))+")")
		for _, p := range f.Priorities {
			args = append(args, p)
		}
	}
	if f.Assignee != nil {
		where, args = append(where, "assignee = ?"), append(args, *f.Assignee)
	}
	if f.Label != "" {
		where, args = append(where, "id IN (SELECT item_id FROM item_labels WHERE label = ?)"), append(args, f.Label)
	}
	if f.CreatedAfter != nil {
		where, args = append(where, "created_at > ?"), append(args, MS(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		where, args = append(where, "created_at < ?"), append(args, MS(*f.CreatedBefore))
	}
	if search != "" {
		where, args = append(where, search), append(args, searchArgs...)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var page baton.ItemPage
	var err error
	if page.Total, err = t.ItemTotal(ctx, f, search != "", cond, args); err != nil {
		return page, err
	}
	limit := t.D.NoLimit()
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT `+ItemColumns+` FROM items`+cond+` ORDER BY `+ItemOrder(f.Sort, f.Descending)+
		` LIMIT `+t.D.LimitArg()+` OFFSET ?`, append(args, limit, max(f.Offset, 0))...)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	page.Items = []*baton.Item{}
	for rows.Next() {
		it, err := ScanItem(rows)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, it)
	}
	if err := rows.Err(); err != nil {
		return page, err
	}
	if err := t.Lapse(ctx, page.Items); err != nil {
		return page, err
	}
	return page, t.LoadLabels(ctx, page.Items)
}

// ItemTotal is how many items match f, whose condition on items is cond
// (with args; searched says f has a full-text search). A filter on
// project, status and priority alone, list_issues' and by default
// task_list's, sums at most a project's status-by-priority rows of
// item_counts, whatever the number of items; any other filter counts the
// matching items, through the index its condition picks.
func (t *Tx) ItemTotal(ctx context.Context, f baton.ItemFilter, searched bool, cond string, args []any) (int, error) {
	var total int
	if searched || f.Assignee != nil || f.Label != "" || f.CreatedAfter != nil || f.CreatedBefore != nil {
		err := t.Q.QueryRowContext(ctx, `SELECT COUNT(*) FROM items`+cond, args...).Scan(&total)
		return total, err
	}
	// cond holds only the project, status and priority terms, which
	// item_counts has as columns of the same names.
	err := t.Q.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM item_counts`+cond, args...).Scan(&total)
	return total, err
}

// ItemOrder sorts by the key, then by creation order (rid) so pages are
// stable. Priority sorts by urgency: descending puts critical (0) first.
// Each order with a project, and the default (updated) without one, has
// an index of its own columns, rid last, so a page reads only its rows.
func ItemOrder(key baton.ItemSort, desc bool) string {
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	switch key {
	case baton.SortCreated:
		return "created_at " + dir + ", rid " + dir
	case baton.SortPriority:
		urgency := "DESC"
		if desc {
			urgency = "ASC"
		}
		return "priority " + urgency + ", rid " + dir
	case baton.SortProgress:
		return "progress " + dir + ", rid " + dir
	default:
		return "updated_at " + dir + ", rid " + dir
	}
}

// Queue returns the project's todo and blocked items with what holds
// each back, by priority then age.
func (t *Tx) Queue(ctx context.Context, project string) ([]baton.Readiness, error) {
	now := MS(t.Now())
	// An item a lapsed claim moved to in_progress is back in the queue
	// already, even before the reaper has written it back to todo.
	return t.readiness(ctx, `project = ? AND (status IN ('todo', 'blocked')
			OR (status = 'in_progress' AND k.prev_status = 'todo' AND k.expires_at <= ?))
		ORDER BY priority ASC, created_at ASC, rid ASC`, now, project, now)
}

// ReadinessOf is the readiness of the items named (any status), in no
// particular order; unknown ids are left out.
func (t *Tx) ReadinessOf(ctx context.Context, ids []string) ([]baton.Readiness, error) {
	var out []baton.Readiness
	const chunk = 500 // within every driver's limit on parameters
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		args := []any{MS(t.Now())}
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		rs, err := t.readiness(ctx, `items.id IN (`+Placeholders(n)+`)`, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
		ids = ids[n:]
	}
	return out, nil
}

// readiness reads the items matching cond (args after the first, which
// is now in milliseconds) with what holds each back.
func (t *Tx) readiness(ctx context.Context, cond string, args ...any) ([]baton.Readiness, error) {
	const sep = "\x1f"
	now := args[0].(int64)
	rows, err := t.Q.QueryContext(ctx, `SELECT `+ItemColumns+`,
		(SELECT string_agg(d.depends_on, ?) FROM item_deps d JOIN items x ON x.id = d.depends_on
			WHERE d.item_id = items.id AND x.status NOT IN ('done', 'cancelled')),
		(SELECT string_agg(c.id, ?) FROM items c
			WHERE c.parent_id = items.id AND c.status NOT IN ('done', 'cancelled')),
		k.holder, k.token, k.claimed_at, k.expires_at, k.prev_status
		FROM items LEFT JOIN claims k ON k.item_id = items.id
		WHERE `+cond, append([]any{sep, sep}, args[1:]...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []baton.Readiness
	var items []*baton.Item
	for rows.Next() {
		var deps, kids, holder, prev sql.NullString
		var token, claimed, expires sql.NullInt64
		it, err := ScanItem(rows, &deps, &kids, &holder, &token, &claimed, &expires, &prev)
		if err != nil {
			return nil, err
		}
		r := baton.Readiness{Item: it, WaitingOn: Split(deps.String, sep), OpenSubtasks: Split(kids.String, sep)}
		r.DependenciesUnmet = len(r.WaitingOn)
		switch {
		case holder.Valid && expires.Int64 > now:
			r.Claim = &baton.Claim{ItemID: it.ID, Holder: holder.String, Token: token.Int64,
				ClaimedAt: FromMS(claimed.Int64), ExpiresAt: FromMS(expires.Int64)}
		case holder.Valid && it.Status == baton.StatusInProgress:
			it.Status = baton.StatusTodo
			if it.Assignee == holder.String {
				it.Assignee = ""
			}
		}
		out = append(out, r)
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, t.LoadLabels(ctx, items)
}

// MoveItem re-numbers an item, and its subtasks with it, into another
// project; labels, dependencies, findings and the rest follow the new id
// through ON UPDATE CASCADE.
func (t *Tx) MoveItem(ctx context.Context, id, toProject string) (*baton.Item, error) {
	it, err := t.Self.Item(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, err := t.Self.Project(ctx, toProject); err != nil {
		return nil, err
	}
	if it.Project == toProject {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%s is already in project %s", id, toProject).
			WithDetails("field", "target_project_id", "constraint", "different_project").
			WithHint("name another project")
	}
	id = it.ID // the item's current id, when id is one it had before a move
	kids, err := t.Children(ctx, id)
	if err != nil {
		return nil, err
	}
	seq, newID, err := t.NextID(ctx, toProject)
	if err != nil {
		return nil, err
	}
	clear(t.claimRows) // a claim row follows its item's new id (ON UPDATE CASCADE)
	if _, err := t.Q.ExecContext(ctx, `UPDATE items SET id = ?, project = ?, sequence = ? WHERE id = ?`, newID, toProject, seq, id); err != nil {
		return nil, err
	}
	if _, err := t.Q.ExecContext(ctx, `UPDATE learnings SET project = ? WHERE item_id = ?`, toProject, newID); err != nil {
		return nil, err
	}
	// The old id keeps leading to the item (Item falls back to it).
	if err := t.addAlias(ctx, it.ID, newID); err != nil {
		return nil, err
	}
	for _, k := range kids {
		if _, err := t.MoveItem(ctx, k, toProject); err != nil {
			return nil, err
		}
	}
	return t.Self.Item(ctx, newID)
}

// Split undoes a string_agg with sep, sorted.
func Split(s, sep string) []string {
	if s == "" {
		return []string{}
	}
	parts := strings.Split(s, sep)
	slices.Sort(parts)
	return parts
}
