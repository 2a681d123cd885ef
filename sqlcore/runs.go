package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// runColumns are the columns scanRun reads, in its order, of runs read as r.
const runColumns = `r.id, r.item_id, r.agent, r.status, r.error, r.cost_usd, r.duration_ms, r.num_turns, r.model,
	r.started_at, r.ended_at, r.event_count, r.profile, r.attempt, r.worktree, r.host, r.pid, r.exit_code, r.dispatcher,
	r.heartbeat_at`

// scanRun reads runColumns.
func scanRun(sc interface{ Scan(...any) error }) (*baton.Run, error) {
	var r baton.Run
	var started, ended, beat int64
	var exit sql.NullInt64
	if err := sc.Scan(&r.ID, &r.ItemID, &r.Agent, &r.Status, &r.Error, &r.CostUSD, &r.DurationMS, &r.NumTurns,
		&r.Model, &started, &ended, &r.EventCount, &r.Profile, &r.Attempt, &r.Worktree, &r.Host, &r.PID, &exit,
		&r.Dispatcher, &beat); err != nil {
		return nil, err
	}
	r.StartedAt, r.EndedAt, r.HeartbeatAt = FromMS(started), fromOptMS(ended), fromOptMS(beat)
	if exit.Valid {
		code := int(exit.Int64)
		r.ExitCode = &code
	}
	return &r, nil
}

// scanRuns reads every row of runColumns.
func scanRuns(rows *sql.Rows) ([]*baton.Run, error) {
	defer rows.Close()
	out := []*baton.Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func runNotFound(id string) *baton.Error {
	return baton.Errorf(baton.ErrNotFound, "run %q does not exist", id).
		WithDetails("run_id", id).
		WithHint("check the run id; baton runs list shows the runs")
}

// storedText is s as both stores keep it: PostgreSQL's text refuses NUL
// and bytes that are not UTF-8, which an agent's output may hold (and a
// tail cut at a byte count may start inside a character). Both stores
// store the same replacement, so a run reads back alike on either, and a
// stray byte cannot fail the write that records how the run ended.
func storedText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// checkEvents rejects bad event data before anything is written: a stored
// non-JSON payload would break every later query_run_events response.
func checkEvents(events []baton.RunEvent) error {
	for i := range events {
		if len(events[i].Data) > 0 && !json.Valid(events[i].Data) {
			return baton.Errorf(baton.ErrInvalidInput, "event %d of the run is not valid JSON", i+1).
				WithDetails("field", fmt.Sprintf("events[%d].data", i), "constraint", "json").
				WithHint("send each stream line as one JSON value")
		}
	}
	return nil
}

// insertEvents stores events as the run's events after the first n it
// has, numbering them in place (RunID, Seq n+1...) and filling in what
// was stored: the creation time (now when zero) and the data ({} when
// empty, with any byte PostgreSQL refuses replaced, see storedText).
func (t *Tx) insertEvents(ctx context.Context, runID string, n int, events []baton.RunEvent, now time.Time) error {
	for i := range events {
		e := &events[i]
		e.RunID, e.Seq = runID, n+i+1
		if e.CreatedAt.IsZero() {
			e.CreatedAt = now
		}
		data := storedText(string(e.Data))
		if data == "" {
			data = "{}"
		}
		if data != string(e.Data) {
			e.Data = json.RawMessage(data)
		}
		if _, err := t.Q.ExecContext(ctx, `INSERT INTO run_events (run_id, seq, type, subtype, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, e.RunID, e.Seq, e.Type, e.Subtype, data, MS(e.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// CreateRun stores a run of an existing item and its events. It assigns
// r.ID (R-N) when empty and sets r.EventCount; the events are numbered in
// place (Seq 1..n, RunID), so the caller's slice shows what was stored.
// A zero StartedAt means now; a zero EndedAt means the run has not ended.
func (t *Tx) CreateRun(ctx context.Context, r *baton.Run, events []baton.RunEvent) error {
	if err := t.Activity(ctx, r.ItemID, r.Agent, r.EndedAt); err != nil {
		return err
	}
	if err := checkEvents(events); err != nil {
		return err
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
			model, started_at, ended_at, event_count, profile, attempt, worktree, host, pid, exit_code, dispatcher, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.ItemID, r.Agent, r.Status, storedText(r.Error), r.CostUSD, r.DurationMS, r.NumTurns, r.Model,
			MS(r.StartedAt), optMS(r.EndedAt), r.EventCount, r.Profile, r.Attempt, r.Worktree, r.Host, r.PID, r.ExitCode,
			r.Dispatcher, optMS(r.HeartbeatAt))
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
	return t.insertEvents(ctx, r.ID, 0, events, now)
}

// Run returns the run with id; an unknown id is ERR_NOT_FOUND.
func (t *Tx) Run(ctx context.Context, id string) (*baton.Run, error) {
	r, err := scanRun(t.Q.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs r WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, runNotFound(id)
	}
	return r, err
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
	rows, err := t.Q.QueryContext(ctx, `SELECT `+runColumns+` FROM runs r WHERE r.item_id = ? ORDER BY r.rid DESC LIMIT `+t.D.LimitArg(),
		itemID, t.limit(limit))
	if err != nil {
		return nil, err
	}
	return scanRuns(rows)
}

// ListRuns' page sizes: the default, and the most one call returns.
const (
	defaultRunLimit = 50
	maxRunLimit     = 500
)

// ListRuns returns the runs matching f, newest first (by rid, the order
// they were stored in): at most f.Limit, 50 when it is not positive, 500
// at most. An item that has moved is found by any id it had. Filtered by
// status alone, the query walks the runs_status index (status, rid) from
// its newest end instead of the whole table.
func (t *Tx) ListRuns(ctx context.Context, f baton.RunFilter) ([]*baton.Run, error) {
	from := ` FROM runs r`
	var where []string
	var args []any
	if f.Project != "" {
		// The project is the item's (runs keep no copy), so a moved
		// item's runs are listed under its new project.
		from += ` JOIN items i ON i.id = r.item_id`
		where, args = append(where, `i.project = ?`), append(args, f.Project)
	}
	if f.ItemID != "" {
		id, err := t.currentID(ctx, f.ItemID)
		if err != nil {
			return nil, err
		}
		where, args = append(where, `r.item_id = ?`), append(args, id)
	}
	if f.Status != "" {
		where, args = append(where, `r.status = ?`), append(args, f.Status)
	}
	if f.Profile != "" {
		where, args = append(where, `r.profile = ?`), append(args, f.Profile)
	}
	q := `SELECT ` + runColumns + from
	if len(where) > 0 {
		q += ` WHERE ` + JoinAnd(where)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultRunLimit
	}
	rows, err := t.Q.QueryContext(ctx, q+` ORDER BY r.rid DESC LIMIT `+t.D.LimitArg(), append(args, min(limit, maxRunLimit))...)
	if err != nil {
		return nil, err
	}
	return scanRuns(rows)
}

// currentID is the id the item called id has now: id itself when an item
// has it, else the item's that had it before a move (Alias), else id.
func (t *Tx) currentID(ctx context.Context, id string) (string, error) {
	var live bool
	if err := t.Q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM items WHERE id = ?)`, id).Scan(&live); err != nil || live {
		return id, err
	}
	cur, err := t.Alias(ctx, id)
	if err != nil || cur == "" {
		return id, err
	}
	return cur, nil
}

// FinishRun records the end of a running run: its status (one that is not
// running), error, cost, duration, turns, model, exit code and ended_at
// (now when r.EndedAt is zero, set in r). An empty r.Model keeps the model
// the run was started with. A run that has ended already is ERR_CONFLICT
// (type run_finished): a run ends once, and two dispatchers must not both
// decide how. Like recording any run, it renews the run's agent's active
// claim on the item.
func (t *Tx) FinishRun(ctx context.Context, r *baton.Run) error {
	if r.Status == "" || r.Status == baton.RunRunning {
		return baton.Errorf(baton.ErrInvalidInput, "a finished run needs the status it ended in, not %q", r.Status).
			WithDetails("field", "status", "constraint", "ended").
			WithHint("pass %s, %s, %s or %s", baton.RunSucceeded, baton.RunFailed, baton.RunTimedOut, baton.RunCancelled)
	}
	var item, agent, status string
	err := t.Q.QueryRowContext(ctx, `SELECT item_id, agent, status FROM runs WHERE id = ?`, r.ID).Scan(&item, &agent, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return runNotFound(r.ID)
	}
	if err != nil {
		return err
	}
	if status != baton.RunRunning {
		return runFinished(r.ID, status)
	}
	if r.EndedAt.IsZero() {
		r.EndedAt = t.Now().UTC()
	}
	if err := t.Activity(ctx, item, agent, r.EndedAt); err != nil {
		return err
	}
	// Writers run one at a time, so the run is still running here.
	_, err = t.Q.ExecContext(ctx, `UPDATE runs SET status = ?, error = ?, cost_usd = ?, duration_ms = ?, num_turns = ?,
		model = COALESCE(NULLIF(?, ''), model), ended_at = ?, exit_code = ? WHERE id = ?`,
		r.Status, storedText(r.Error), r.CostUSD, r.DurationMS, r.NumTurns, r.Model, MS(r.EndedAt), r.ExitCode, r.ID)
	return err
}

// runFinished is the error for a change that only a running run takes.
func runFinished(id, status string) *baton.Error {
	return baton.Errorf(baton.ErrConflict, "run %s has ended already: it is %s", id, status).
		WithType("run_finished").WithDetails("run_id", id, "status", status).
		WithHint("a run ends once; read run %s for how it ended", id)
}

// AppendRunEvents adds events to a run after the ones it has, numbering
// them in place (RunID, Seq) as CreateRun does, and counts them in the
// run's EventCount. Nothing is stored when any event's data is not JSON.
// Like recording any run, it renews the run's agent's active claim on the
// item: a dispatched agent that streams events is working on it.
func (t *Tx) AppendRunEvents(ctx context.Context, runID string, events []baton.RunEvent) error {
	if err := checkEvents(events); err != nil {
		return err
	}
	var n int
	var item, agent string
	err := t.Q.QueryRowContext(ctx, `UPDATE runs SET event_count = event_count + ? WHERE id = ?
		RETURNING event_count, item_id, agent`, len(events), runID).Scan(&n, &item, &agent)
	if errors.Is(err, sql.ErrNoRows) {
		return runNotFound(runID)
	}
	if err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	now := t.Now().UTC()
	if err := t.Activity(ctx, item, agent, now); err != nil {
		return err
	}
	return t.insertEvents(ctx, runID, n-len(events), events, now)
}

// SetRunOutput replaces the output kept of a run (see storedText for the
// bytes PostgreSQL refuses); an unknown run is ERR_NOT_FOUND.
func (t *Tx) SetRunOutput(ctx context.Context, runID string, out baton.RunOutput) error {
	if err := t.runExists(ctx, runID); err != nil {
		return err
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO run_output (run_id, stdout, stderr, stdout_dropped, stderr_dropped)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET stdout = excluded.stdout, stderr = excluded.stderr,
			stdout_dropped = excluded.stdout_dropped, stderr_dropped = excluded.stderr_dropped`,
		runID, storedText(out.Stdout), storedText(out.Stderr), out.StdoutDropped, out.StderrDropped)
	return err
}

// RunOutput returns the output kept of a run: empty for a run that has
// none (an ingested run, or one that wrote nothing yet); an unknown run is
// ERR_NOT_FOUND.
func (t *Tx) RunOutput(ctx context.Context, runID string) (*baton.RunOutput, error) {
	var out baton.RunOutput
	err := t.Q.QueryRowContext(ctx, `SELECT stdout, stderr, stdout_dropped, stderr_dropped FROM run_output WHERE run_id = ?`, runID).
		Scan(&out.Stdout, &out.Stderr, &out.StdoutDropped, &out.StderrDropped)
	if errors.Is(err, sql.ErrNoRows) {
		return &out, t.runExists(ctx, runID)
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// runExists is nil for a stored run and ERR_NOT_FOUND for any other id.
func (t *Tx) runExists(ctx context.Context, id string) error {
	var ok bool
	if err := t.Q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?)`, id).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return runNotFound(id)
	}
	return nil
}

// DispatchRetries returns the retry state of project's items ("" for every
// project's), the soonest due first (ties by item id, byte order).
func (t *Tx) DispatchRetries(ctx context.Context, project string) ([]*baton.DispatchRetry, error) {
	q := `SELECT d.item_id, d.attempts, d.next_at, d.last_error, d.updated_at FROM dispatch_retries d`
	var args []any
	if project != "" {
		q, args = q+` JOIN items i ON i.id = d.item_id WHERE i.project = ?`, append(args, project)
	}
	rows, err := t.Q.QueryContext(ctx, q+` ORDER BY d.next_at ASC, `+t.D.ByteOrder("d.item_id")+` ASC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.DispatchRetry{}
	for rows.Next() {
		var r baton.DispatchRetry
		var next, updated int64
		if err := rows.Scan(&r.ItemID, &r.Attempts, &next, &r.LastError, &updated); err != nil {
			return nil, err
		}
		r.NextAt, r.UpdatedAt = fromOptMS(next), FromMS(updated)
		out = append(out, &r)
	}
	return out, rows.Err()
}

// SetDispatchRetry stores an item's retry state, replacing any it had. The
// item is looked up as Item does (an old id of a moved item leads to it;
// r.ItemID becomes its current id), so an unknown one is
// ERR_TASK_NOT_FOUND. A zero UpdatedAt means now; a zero NextAt reads
// back as zero (due at once).
func (t *Tx) SetDispatchRetry(ctx context.Context, r *baton.DispatchRetry) error {
	it, err := t.Self.Item(ctx, r.ItemID)
	if err != nil {
		return err
	}
	r.ItemID = it.ID
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = t.Now().UTC()
	}
	_, err = t.Q.ExecContext(ctx, `INSERT INTO dispatch_retries (item_id, attempts, next_at, last_error, updated_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (item_id) DO UPDATE SET attempts = excluded.attempts, next_at = excluded.next_at,
			last_error = excluded.last_error, updated_at = excluded.updated_at`,
		r.ItemID, r.Attempts, optMS(r.NextAt), storedText(r.LastError), MS(r.UpdatedAt))
	return err
}

// ClearDispatchRetry forgets an item's retry state (after a run that
// succeeded); an item without any, or an unknown id, is no error.
func (t *Tx) ClearDispatchRetry(ctx context.Context, itemID string) error {
	id, err := t.currentID(ctx, itemID)
	if err != nil {
		return err
	}
	_, err = t.Q.ExecContext(ctx, `DELETE FROM dispatch_retries WHERE item_id = ?`, id)
	return err
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
		` ORDER BY r.rid, e.seq LIMIT `+t.D.LimitArg()+` OFFSET ?`, append(args, t.limit(f.Limit), max(f.Offset, 0))...)
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

// SetRunProcess records a dispatched run's worktree and process id once
// its agent has started: a dispatcher that restarts after a crash finds
// the process it left behind by them.
func (t *Tx) SetRunProcess(ctx context.Context, runID, worktree string, pid int) error {
	res, err := t.Q.ExecContext(ctx, `UPDATE runs SET worktree = ?, pid = ?, heartbeat_at = ? WHERE id = ?`,
		storedText(worktree), pid, MS(t.Now().UTC()), runID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return runNotFound(runID)
	}
	return nil
}

// BeatRun records that a running run's dispatcher still looks after it,
// at at; a run that has ended is left as it is.
func (t *Tx) BeatRun(ctx context.Context, runID string, at time.Time) error {
	res, err := t.Q.ExecContext(ctx, `UPDATE runs SET heartbeat_at = ? WHERE id = ? AND status = ?`, MS(at), runID, baton.RunRunning)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return t.runExists(ctx, runID) // ended: nothing to do; unknown: ERR_NOT_FOUND
	}
	return nil
}
