package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
)

// stampAudit is the time format hashed into audit records; it is stored as
// text so verification hashes exactly what was hashed.
func stampAudit(t time.Time) string { return audit.Stamp(t) }

// nextSerial is PREFIX-NNNN for the next row of table. The insert that
// follows sets rid to the same MAX(rid)+1 (in the same statement): that is
// the rowid SQLite's INTEGER PRIMARY KEY would pick, and on PostgreSQL an
// identity sequence would leave gaps after rolled-back writes and the ids
// would drift from SQLite's.
func (t *Tx) nextSerial(ctx context.Context, table, prefix string) (string, error) {
	var n int64
	if err := t.Q.QueryRowContext(ctx, `SELECT COALESCE(MAX(rid), 0) + 1 FROM `+table).Scan(&n); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s%04d", prefix, n), nil
}

// AddThought appends r to its task's hash chain (position, previous hash,
// hash and id Θ-NNNN set here) and to the open audit sessions covering it.
// The first record of a chain has previous hash "" (null in the hash).
func (t *Tx) AddThought(ctx context.Context, r *baton.ThoughtRecord) error {
	if _, err := t.Self.Item(ctx, r.TaskID); err != nil {
		return err
	}
	if r.RecordedAt.IsZero() {
		r.RecordedAt = t.Now()
	}
	r.PreviousHash = ""
	err := t.Q.QueryRowContext(ctx, `SELECT position, hash FROM thoughts WHERE task_id = ? ORDER BY position DESC LIMIT 1`, r.TaskID).
		Scan(&r.Position, &r.PreviousHash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	r.Position++
	at := stampAudit(r.RecordedAt)
	r.RecordedAt, _ = time.Parse(time.RFC3339, at) // the hash covers milliseconds
	r.Hash = audit.ThoughtOf(r).Hash()
	if r.ID, err = t.nextSerial(ctx, "thoughts", "Θ-"); err != nil {
		return err
	}
	meta := string(r.Metadata)
	if meta == "" || meta == "null" {
		meta = "{}"
	}
	if _, err := t.Q.ExecContext(ctx, `INSERT INTO thoughts (rid, id, task_id, position, type, content, branch, commit_sha,
		tests_run, blockers, metadata, recorded_at, recorded_by, previous_hash, hash)
		VALUES ((SELECT COALESCE(MAX(rid), 0) + 1 FROM thoughts), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.TaskID, r.Position, r.Type, r.Content, r.Branch, r.CommitSHA, JSONList(r.TestsRun), JSONList(r.Blockers),
		meta, at, r.RecordedBy, r.PreviousHash, r.Hash); err != nil {
		return err
	}
	r.SessionIDs, err = t.joinSessions(ctx, baton.SessionRecord{Kind: "thought", RecordID: r.ID, TaskID: r.TaskID,
		Hash: r.Hash, At: r.RecordedAt})
	return err
}

// joinSessions adds a record to every session that covers its task and
// still tracks (neither verified nor finalized): a shallow session covers
// its task, a deep one also the task's dependents (sub-tasks, at any
// depth).
func (t *Tx) joinSessions(ctx context.Context, rec baton.SessionRecord) ([]string, error) {
	if rec.TaskID == "" {
		return nil, nil
	}
	// Most of the time no session is open at all; the partial index
	// answers that at once and spares the ancestry walk on every write.
	var open bool
	if err := t.Q.QueryRowContext(ctx, `SELECT `+anyOpenSession).Scan(&open); err != nil || !open {
		return nil, err
	}
	return t.joinOpenSessions(ctx, rec)
}

// anyOpenSession is an SQL expression: whether any audit session still
// tracks (neither finalized nor ended).
const anyOpenSession = `EXISTS (SELECT 1 FROM audit_sessions WHERE finalized_at IS NULL AND tracking_ended_at IS NULL)`

// joinOpenSessions is joinSessions once some session is known to be open.
func (t *Tx) joinOpenSessions(ctx context.Context, rec baton.SessionRecord) ([]string, error) {
	if rec.TaskID == "" {
		return nil, nil
	}
	rows, err := t.Q.QueryContext(ctx, `WITH RECURSIVE ancestors(id, depth) AS (
			SELECT CAST(? AS TEXT), 0
			UNION ALL SELECT i.parent_id, a.depth + 1 FROM items i JOIN ancestors a ON i.id = a.id WHERE i.parent_id IS NOT NULL
		)
		SELECT s.id FROM audit_sessions s JOIN ancestors a ON s.task_id = a.id
		WHERE s.finalized_at IS NULL AND s.tracking_ended_at IS NULL AND (a.depth = 0 OR s.scope = 'deep') ORDER BY s.rid`, rec.TaskID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		if !t.opened[id] {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, err := t.Q.ExecContext(ctx, `INSERT INTO session_records (session_id, seq, kind, record_id, task_id, hash, at)
			VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_records WHERE session_id = ?), ?, ?, ?, ?, ?)`,
			id, id, rec.Kind, rec.RecordID, rec.TaskID, rec.Hash, MS(rec.At)); err != nil {
			return nil, err
		}
		if _, err := t.Q.ExecContext(ctx, `UPDATE audit_sessions SET last_change = ? WHERE id = ?`, MS(rec.At), id); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// Thoughts returns the thought records matching f: in session order for
// a session, else by task (byte order) and position.
func (t *Tx) Thoughts(ctx context.Context, f baton.ThoughtFilter) ([]*baton.ThoughtRecord, error) {
	q := `SELECT th.id, th.task_id, th.position, th.type, th.content, th.branch, th.commit_sha, th.tests_run, th.blockers,
		th.metadata, th.recorded_at, th.recorded_by, th.previous_hash, th.hash FROM thoughts th`
	var where []string
	var args []any
	if f.SessionID != "" {
		q += ` JOIN session_records sr ON sr.kind = 'thought' AND sr.record_id = th.id AND sr.session_id = ?`
		args = append(args, f.SessionID)
	}
	if f.TaskID != "" {
		where, args = append(where, "th.task_id = ?"), append(args, f.TaskID)
	}
	if f.Type != "" {
		where, args = append(where, "th.type = ?"), append(args, f.Type)
	}
	if len(where) > 0 {
		q += " WHERE " + JoinAnd(where)
	}
	if f.SessionID != "" {
		q += " ORDER BY sr.seq"
	} else {
		q += " ORDER BY " + t.D.ByteOrder("th.task_id") + ", th.position"
	}
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	rows, err := t.Q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.ThoughtRecord{}
	for rows.Next() {
		var r baton.ThoughtRecord
		var tests, blockers, meta, at string
		if err := rows.Scan(&r.ID, &r.TaskID, &r.Position, &r.Type, &r.Content, &r.Branch, &r.CommitSHA, &tests, &blockers,
			&meta, &at, &r.RecordedBy, &r.PreviousHash, &r.Hash); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(tests), &r.TestsRun)
		_ = json.Unmarshal([]byte(blockers), &r.Blockers)
		r.Metadata = json.RawMessage(meta)
		r.RecordedAt, _ = time.Parse(time.RFC3339, at)
		out = append(out, &r)
	}
	return out, rows.Err()
}

// StartSession opens an audit session (id A-NNNN) on an existing task.
func (t *Tx) StartSession(ctx context.Context, s *baton.AuditSession) error {
	t.Head.Forget() // whether a session is open may change
	if _, err := t.Self.Item(ctx, s.TaskID); err != nil {
		return err
	}
	if s.StartedAt.IsZero() {
		s.StartedAt = t.Now()
	}
	s.LastChange = s.StartedAt
	var err error
	if s.ID, err = t.nextSerial(ctx, "audit_sessions", "A-"); err != nil {
		return err
	}
	_, err = t.Q.ExecContext(ctx, `INSERT INTO audit_sessions (rid, id, task_id, auditor_id, reason, scope, started_by, started_at, last_change)
		VALUES ((SELECT COALESCE(MAX(rid), 0) + 1 FROM audit_sessions), ?, ?, ?, ?, ?, ?, ?, ?)`, s.ID, s.TaskID, s.AuditorID, s.Reason, s.Scope, s.StartedBy, MS(s.StartedAt), MS(s.LastChange))
	if err == nil {
		if t.opened == nil {
			t.opened = map[string]bool{}
		}
		t.opened[s.ID] = true
	}
	return err
}

// Session returns one audit session, or ERR_SESSION_NOT_FOUND.
func (t *Tx) Session(ctx context.Context, id string) (*baton.AuditSession, error) {
	var s baton.AuditSession
	var started, last int64
	var finalized, ended sql.NullInt64
	err := t.Q.QueryRowContext(ctx, `SELECT id, task_id, auditor_id, reason, scope, started_by, started_at, finalized_at,
		merkle_root, root_task, tree_depth, leaf_count, last_change, tracking_ended_at FROM audit_sessions WHERE id = ?`, id).
		Scan(&s.ID, &s.TaskID, &s.AuditorID, &s.Reason, &s.Scope, &s.StartedBy, &started, &finalized, &s.MerkleRoot,
			&s.RootTask, &s.TreeDepth, &s.LeafCount, &last, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, baton.Errorf(baton.ErrSessionNotFound, "audit session %q does not exist", id).
			WithDetails("session_id", id).WithHint("start one with audit_session_start; ids look like A-0001")
	}
	if err != nil {
		return nil, err
	}
	s.StartedAt, s.LastChange = FromMS(started), FromMS(last)
	if finalized.Valid {
		s.FinalizedAt = FromMS(finalized.Int64)
	}
	if ended.Valid {
		s.TrackingEndedAt = FromMS(ended.Int64)
	}
	return &s, nil
}

// EndTracking stops records joining session id from at on; it reports
// whether this call ended the tracking (false when it had ended before).
func (t *Tx) EndTracking(ctx context.Context, id string, at time.Time) (bool, error) {
	t.Head.Forget() // whether a session is open may change
	res, err := t.Q.ExecContext(ctx, `UPDATE audit_sessions SET tracking_ended_at = ? WHERE id = ? AND tracking_ended_at IS NULL`, MS(at), id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Sessions returns every audit session, oldest first.
func (t *Tx) Sessions(ctx context.Context) ([]*baton.AuditSession, error) {
	ids, err := t.Strings(ctx, `SELECT id FROM audit_sessions ORDER BY rid`)
	if err != nil {
		return nil, err
	}
	out := make([]*baton.AuditSession, 0, len(ids))
	for _, id := range ids {
		s, err := t.Session(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// SessionRecords returns the records a session covers, in the order they joined.
func (t *Tx) SessionRecords(ctx context.Context, id string) ([]baton.SessionRecord, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT kind, record_id, task_id, hash, at FROM session_records WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []baton.SessionRecord{}
	for rows.Next() {
		var r baton.SessionRecord
		var at int64
		if err := rows.Scan(&r.Kind, &r.RecordID, &r.TaskID, &r.Hash, &at); err != nil {
			return nil, err
		}
		r.At = FromMS(at)
		out = append(out, r)
	}
	return out, rows.Err()
}

// FinalizeSession freezes a session's Merkle root; a session already
// finalized is ERR_ALREADY_FINALIZED.
func (t *Tx) FinalizeSession(ctx context.Context, s *baton.AuditSession) error {
	t.Head.Forget() // whether a session is open may change
	res, err := t.Q.ExecContext(ctx, `UPDATE audit_sessions SET finalized_at = ?, merkle_root = ?, root_task = ?, tree_depth = ?,
		leaf_count = ?, last_change = ? WHERE id = ? AND finalized_at IS NULL`,
		MS(s.FinalizedAt), s.MerkleRoot, s.RootTask, s.TreeDepth, s.LeafCount, MS(s.FinalizedAt), s.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		cur, err := t.Session(ctx, s.ID)
		if err != nil {
			return err
		}
		return baton.Errorf(baton.ErrAlreadyFinalized, "audit session %s was finalized at %s", s.ID, stampAudit(cur.FinalizedAt)).
			WithDetails("session_id", s.ID, "merkle_root", cur.MerkleRoot, "finalized_at", stampAudit(cur.FinalizedAt)).
			WithHint("its root is frozen: read it with merkle_root, or start a new session for new records")
	}
	return nil
}

// AppendAction appends a to the global action hash chain and to the open
// audit sessions covering its subject. A subject written zero-padded
// (T-0042, as Colibri clients write ids) is stored as the item's own id
// when only that exists, so the call joins the sessions of that item.
func (t *Tx) AppendAction(ctx context.Context, a *baton.Action) error {
	return t.AppendActionEvent(ctx, a, nil)
}

// AppendActionEvent appends a, then e unless it is nil. PostgreSQL inserts
// both in one statement (Dialect.EventInsert).
func (t *Tx) AppendActionEvent(ctx context.Context, a *baton.Action, e *baton.Event) error {
	if short, ok := baton.UnpaddedID(a.Subject); ok {
		var exact, unpadded bool
		if err := t.Q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM items WHERE id = ?), EXISTS (SELECT 1 FROM items WHERE id = ?)`,
			a.Subject, short).Scan(&exact, &unpadded); err != nil {
			return err
		}
		if !exact && unpadded {
			a.Subject = short
		}
	}
	// One statement reads the chain's head and whether any audit session
	// is open (the question joinSessions starts with), unless an earlier
	// call of the same batch appended and left them in t.Head: on
	// PostgreSQL a round trip under the writers' lock.
	var open bool
	if h := t.Head; h != nil && h.known {
		a.Position, a.PreviousHash, open = h.position, h.hash, h.open
	} else if err := t.Q.QueryRowContext(ctx, `SELECT COALESCE((SELECT position FROM actions ORDER BY position DESC LIMIT 1), 0),
		COALESCE((SELECT hash FROM actions ORDER BY position DESC LIMIT 1), ?), `+anyOpenSession,
		audit.Genesis).Scan(&a.Position, &a.PreviousHash, &open); err != nil {
		return err
	}
	a.Position++
	if a.At.IsZero() {
		a.At = t.Now()
	}
	at := stampAudit(a.At)
	a.At, _ = time.Parse(time.RFC3339, at) // the hash covers milliseconds
	a.Hash = audit.ActionOf(a).Hash()
	args := []any{a.Position, a.Agent, a.Source, a.Tool, a.Subject, a.InputDigest, a.ResultDigest, at, a.PreviousHash, a.Hash}
	var err error
	if e != nil {
		err = t.appendEvent(ctx, e, insertAction, args)
	} else {
		_, err = t.Q.ExecContext(ctx, insertAction, args...)
	}
	if err != nil {
		return err
	}
	if t.Head != nil {
		*t.Head = ChainHead{known: true, position: a.Position, hash: a.Hash, open: open}
	}
	if !open {
		return nil
	}
	_, err = t.joinOpenSessions(ctx, baton.SessionRecord{Kind: "action", RecordID: strconv.FormatInt(a.Position, 10),
		TaskID: a.Subject, Hash: a.Hash, At: a.At})
	return err
}

const insertAction = `INSERT INTO actions (position, agent, source, tool, subject, input_digest, result_digest,
		at, previous_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Actions returns up to limit actions after position after (1000 when
// limit <= 0), oldest first.
func (t *Tx) Actions(ctx context.Context, after int64, limit int) ([]*baton.Action, error) {
	if limit <= 0 {
		limit = 1000
	}
	return t.scanActions(t.Q.QueryContext(ctx, `SELECT `+actionColumns+` FROM actions WHERE position > ? ORDER BY position LIMIT `+t.D.LimitArg(),
		after, limit))
}

// RecentActions returns the newest limit actions (100 when limit <= 0, at
// most 1000) of agent, or of everyone for "", newest first. Agent names
// are ASCII, so lower() matches them as the rest of baton does, and the
// actions_agent index on (lower(agent), position) answers it by reading
// only the rows returned.
func (t *Tx) RecentActions(ctx context.Context, agent string, limit int) ([]*baton.Action, error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	if agent == "" {
		return t.scanActions(t.Q.QueryContext(ctx, `SELECT `+actionColumns+` FROM actions ORDER BY position DESC LIMIT `+t.D.LimitArg(), limit))
	}
	return t.scanActions(t.Q.QueryContext(ctx, `SELECT `+actionColumns+` FROM actions WHERE lower(agent) = lower(?)
		ORDER BY position DESC LIMIT `+t.D.LimitArg(), agent, limit))
}

const actionColumns = `position, agent, source, tool, subject, input_digest, result_digest, at, previous_hash, hash`

func (t *Tx) scanActions(rows *sql.Rows, err error) ([]*baton.Action, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Action{}
	for rows.Next() {
		var a baton.Action
		var at string
		if err := rows.Scan(&a.Position, &a.Agent, &a.Source, &a.Tool, &a.Subject, &a.InputDigest, &a.ResultDigest, &at,
			&a.PreviousHash, &a.Hash); err != nil {
			return nil, err
		}
		a.At, _ = time.Parse(time.RFC3339, at)
		out = append(out, &a)
	}
	return out, rows.Err()
}
