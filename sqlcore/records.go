package sqlcore

import (
	"context"
	"encoding/json"
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
	id, err := t.NextRecordID(ctx, "findings", findingPrefix(f.Category))
	if err != nil {
		return err
	}
	if f.CreatedAt.IsZero() {
		f.CreatedAt = t.Now().UTC()
	}
	if f.Files == nil {
		f.Files = []string{}
	}
	_, err = t.Q.ExecContext(ctx, `INSERT INTO findings (id, item_id, category, summary, details, files, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		id, f.ItemID, f.Category, f.Summary, f.Details, JSONList(f.Files), f.CreatedBy, MS(f.CreatedAt))
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
		query += ` ORDER BY rid DESC LIMIT ?`
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
	id, err := t.NextRecordID(ctx, "comments", "C")
	if err != nil {
		return err
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = t.Now().UTC()
	}
	_, err = t.Q.ExecContext(ctx, `INSERT INTO comments (id, item_id, body, created_by, created_at) VALUES (?, ?, ?, ?, ?)`,
		id, c.ItemID, c.Body, c.CreatedBy, MS(c.CreatedAt))
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

// CreateRun stores a run of an existing item and its events. It assigns
// r.ID (R-N) when empty and sets r.EventCount; the events are numbered in
// place (Seq 1..n, RunID), so the caller's slice shows what was stored.
// A zero StartedAt means now; a zero EndedAt means the run has not ended.
func (t *Tx) CreateRun(ctx context.Context, r *baton.Run, events []baton.RunEvent) error {
	if err := t.Activity(ctx, r.ItemID, r.Agent, r.EndedAt); err != nil {
		return err
	}
	// Reject bad event data before writing anything: a stored non-JSON
	// payload would break every later query_run_events response.
	for i := range events {
		if len(events[i].Data) > 0 && !json.Valid(events[i].Data) {
			return baton.Errorf(baton.ErrInvalidInput, "event %d of the run is not valid JSON", i+1).
				WithDetails("field", fmt.Sprintf("events[%d].data", i), "constraint", "json").
				WithHint("send each stream line as one JSON value")
		}
	}
	custom := r.ID != ""
	if !custom {
		id, err := t.NextRecordID(ctx, "runs", "R")
		if err != nil {
			return err
		}
		r.ID = id
	}
	now := t.Now().UTC()
	if r.StartedAt.IsZero() {
		r.StartedAt = now
	}
	r.EventCount = len(events)
	// Attempted: a taken id is an error the caller may handle and carry on
	// from, and PostgreSQL would otherwise abort the transaction.
	err := t.D.Attempt(ctx, func() error {
		_, err := t.Q.ExecContext(ctx, `INSERT INTO runs (id, item_id, agent, status, error, cost_usd, duration_ms, num_turns,
			model, started_at, ended_at, event_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.ItemID, r.Agent, r.Status, r.Error, r.CostUSD, r.DurationMS, r.NumTurns, r.Model,
			MS(r.StartedAt), optMS(r.EndedAt), r.EventCount)
		return err
	})
	if t.D.IsUnique(err) {
		id := r.ID
		if !custom {
			r.ID = ""
		}
		return baton.Errorf(baton.ErrConflict, "a run with id %q already exists", id).
			WithType("duplicate").WithDetails("field", "run_id", "run_id", id).
			WithHint("omit the run id to get the next one, or choose another")
	}
	if err != nil {
		if !custom {
			r.ID = ""
		}
		return err
	}
	for i := range events {
		e := &events[i]
		e.RunID, e.Seq = r.ID, i+1
		if e.CreatedAt.IsZero() {
			e.CreatedAt = now
		}
		data := string(e.Data)
		if len(e.Data) == 0 {
			data = "{}"
			e.Data = json.RawMessage(data)
		}
		if _, err := t.Q.ExecContext(ctx, `INSERT INTO run_events (run_id, seq, type, subtype, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, e.RunID, e.Seq, e.Type, e.Subtype, data, MS(e.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// limit is a LIMIT parameter: limit itself when positive, else the
// dialect's "no limit" (SQLite refuses NULL there, PostgreSQL -1).
func (t *Tx) limit(limit int) any {
	if limit <= 0 {
		return t.D.NoLimit()
	}
	return limit
}

// Runs returns an item's latest limit runs newest first (all when limit <= 0).
func (t *Tx) Runs(ctx context.Context, itemID string, limit int) ([]*baton.Run, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT id, item_id, agent, status, error, cost_usd, duration_ms, num_turns, model,
		started_at, ended_at, event_count FROM runs WHERE item_id = ? ORDER BY rid DESC LIMIT ?`, itemID, t.limit(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Run{}
	for rows.Next() {
		var r baton.Run
		var started, ended int64
		if err := rows.Scan(&r.ID, &r.ItemID, &r.Agent, &r.Status, &r.Error, &r.CostUSD, &r.DurationMS, &r.NumTurns,
			&r.Model, &started, &ended, &r.EventCount); err != nil {
			return nil, err
		}
		r.StartedAt, r.EndedAt = FromMS(started), fromOptMS(ended)
		out = append(out, &r)
	}
	return out, rows.Err()
}

// RunEvents returns one page of the events matching f, ordered by run
// (oldest run first) then position in the run, and how many match in all.
func (t *Tx) RunEvents(ctx context.Context, f baton.RunEventFilter) ([]baton.RunEvent, int, error) {
	var cond string
	var args []any
	switch {
	case f.RunID != "":
		cond, args = `e.run_id = ?`, []any{f.RunID}
		if f.ItemID != "" {
			cond, args = cond+` AND r.item_id = ?`, append(args, f.ItemID)
		}
	case f.ItemID != "":
		cond, args = `r.item_id = ?`, []any{f.ItemID}
	default:
		return nil, 0, baton.Errorf(baton.ErrInvalidInput, "run_id or issue_id is required").
			WithDetails("field", "run_id", "constraint", "required").
			WithHint("pass run_id for one run's trace, or issue_id for every run on an issue")
	}
	if f.Type != "" {
		cond, args = cond+` AND e.type = ?`, append(args, f.Type)
	}
	if f.Subtype != "" {
		cond, args = cond+` AND e.subtype = ?`, append(args, f.Subtype)
	}
	const from = ` FROM run_events e JOIN runs r ON r.id = e.run_id WHERE `
	var total int
	if err := t.Q.QueryRowContext(ctx, `SELECT COUNT(*)`+from+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT e.run_id, e.seq, e.type, e.subtype, e.data, e.created_at`+from+cond+
		` ORDER BY r.rid, e.seq LIMIT ? OFFSET ?`, append(args, t.limit(f.Limit), max(f.Offset, 0))...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []baton.RunEvent{}
	for rows.Next() {
		var e baton.RunEvent
		var data string
		var created int64
		if err := rows.Scan(&e.RunID, &e.Seq, &e.Type, &e.Subtype, &data, &created); err != nil {
			return nil, 0, err
		}
		e.Data, e.CreatedAt = json.RawMessage(data), FromMS(created)
		out = append(out, e)
	}
	return out, total, rows.Err()
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
