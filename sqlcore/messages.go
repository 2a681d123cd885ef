package sqlcore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// CaseFolding is the part of a store's Dialect that names the collation
// agent names compare under: SQLite's NOCASE, PostgreSQL's baton_nocase.
// The messages queries below need it; the recipient column has it already.
type CaseFolding interface {
	Nocase() string
}

// nocase is the dialect's case-folding collation.
func (t *Tx) nocase() string { return t.D.(CaseFolding).Nocase() }

// newUUID is a random (version 4) UUID, the id format of Adjutant's
// messages and proposals.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// MessageColumns are the columns ScanMessage reads, in its order.
const MessageColumns = `id, project, agent_id, recipient, role, body, thread_id, metadata, event_type, delivery_status, question, created_at`

// ScanMessage reads one row of MessageColumns.
func ScanMessage(sc interface{ Scan(...any) error }) (*baton.Message, error) {
	var m baton.Message
	var meta string
	var created int64
	if err := sc.Scan(&m.ID, &m.Project, &m.AgentID, &m.Recipient, &m.Role, &m.Body, &m.ThreadID, &meta, &m.EventType,
		&m.DeliveryStatus, &m.Question, &created); err != nil {
		return nil, err
	}
	m.Metadata, m.CreatedAt = []byte(meta), FromMS(created)
	return &m, nil
}

// Messages runs query, which selects MessageColumns.
func (t *Tx) Messages(ctx context.Context, query string, args ...any) ([]*baton.Message, error) {
	rows, err := t.Q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Message{}
	for rows.Next() {
		m, err := ScanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SendMessage stores m with a new id, pending unless it says otherwise.
func (t *Tx) SendMessage(ctx context.Context, m *baton.Message) error {
	m.ID = newUUID()
	if m.CreatedAt.IsZero() {
		m.CreatedAt = t.Now()
	}
	if m.DeliveryStatus == "" {
		m.DeliveryStatus = baton.DeliveryPending
	}
	meta := string(m.Metadata)
	if meta == "" || meta == "null" {
		meta = "{}"
	}
	if _, err := t.Q.ExecContext(ctx, `INSERT INTO messages (`+MessageColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Project, m.AgentID, m.Recipient, m.Role, m.Body, m.ThreadID, meta, m.EventType, m.DeliveryStatus, m.Question,
		MS(m.CreatedAt)); err != nil {
		return err
	}
	// The user's reply in a question's thread answers it.
	if strings.EqualFold(m.AgentID, baton.User) && m.ThreadID != "" {
		_, err := t.Q.ExecContext(ctx, `UPDATE messages SET question = 'answered' WHERE thread_id = ? AND question = 'open'`, m.ThreadID)
		return err
	}
	return nil
}

// ReadMessages returns the newest page of messages f selects, oldest
// first, and marks those pending to reader delivered.
//
// Every read walks an index newest first and stops at the page (migration
// 00027): an agent's messages are two walks, the ones it sent (agent_id,
// compared ignoring case) and the ones sent to it by others (recipient, a
// case-insensitive column), each cut at the page and merged, since one
// condition ORing the two columns could use neither index.
func (t *Tx) ReadMessages(ctx context.Context, reader string, f baton.MessageFilter) ([]*baton.Message, error) {
	var where []string
	var args []any
	if f.Project != "" {
		// With a narrower condition beside it, the project is checked on
		// the rows that condition's index finds, never walked itself: a
		// planner without statistics (SQLite's, until ANALYZE, which baton
		// never runs) takes every equality as equally selective and would
		// otherwise walk the whole project newest first, testing each row.
		// "|| ''" keeps an index from serving the term, on both stores.
		col := "project"
		if f.AgentID != "" || f.ThreadID != "" || f.To != "" || f.PendingTo != "" {
			col = "project || ''"
		}
		where, args = append(where, col+" = ?"), append(args, f.Project)
	}
	if f.ThreadID != "" {
		where, args = append(where, "thread_id = ?"), append(args, f.ThreadID)
	}
	if f.To != "" {
		where, args = append(where, "recipient = ?"), append(args, f.To)
	}
	if f.Question != "" {
		where, args = append(where, "question = ?"), append(args, f.Question)
	}
	if f.PendingTo != "" {
		where, args = append(where, "recipient = ? AND delivery_status = 'pending'"), append(args, f.PendingTo)
	}
	if f.Before != nil {
		// Messages of one instant keep their send order (rid), so a page
		// can end between two of them and the next page, given the oldest
		// message seen as beforeId, resume exactly there. The bound on
		// created_at alone is what the index seeks to.
		if f.BeforeID != "" {
			where = append(where, "created_at <= ? AND (created_at < ? OR rid < COALESCE((SELECT rid FROM messages WHERE id = ?), 0))")
			args = append(args, MS(*f.Before), MS(*f.Before), f.BeforeID)
		} else {
			where, args = append(where, "created_at < ?"), append(args, MS(*f.Before))
		}
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	// newest is the newest page of the messages matching conds and where.
	newest := func(conds []string, cargs []any) (string, []any) {
		all := append(conds, where...)
		cond := ""
		if len(all) > 0 {
			cond = " WHERE " + strings.Join(all, " AND ")
		}
		return `SELECT rid, ` + MessageColumns + ` FROM messages` + cond + ` ORDER BY created_at DESC, rid DESC LIMIT ` + t.D.LimitArg(),
			append(append(cargs, args...), limit)
	}
	var page string
	var pargs []any
	if f.AgentID == "" {
		page, pargs = newest(nil, nil)
	} else {
		nc := t.nocase()
		sent, sargs := newest([]string{"agent_id = ? COLLATE " + nc}, []any{f.AgentID})
		// A message an agent sent itself is among those it sent.
		received, rargs := newest([]string{"recipient = ?", "agent_id <> ? COLLATE " + nc}, []any{f.AgentID, f.AgentID})
		page = `SELECT * FROM (` + sent + `) sent UNION ALL SELECT * FROM (` + received + `) received
			ORDER BY created_at DESC, rid DESC LIMIT ` + t.D.LimitArg()
		pargs = append(append(sargs, rargs...), limit)
	}
	// The newest page, then put oldest first.
	msgs, err := t.Messages(ctx, `SELECT `+MessageColumns+` FROM (`+page+`) page ORDER BY created_at ASC, rid ASC`, pargs...)
	if err != nil {
		return nil, err
	}
	var ids []any
	for _, m := range msgs {
		if reader != "" && m.DeliveryStatus == baton.DeliveryPending && strings.EqualFold(m.Recipient, reader) {
			ids = append(ids, m.ID)
			m.DeliveryStatus = baton.DeliveryDelivered
		}
	}
	if len(ids) > 0 {
		if _, err := t.Q.ExecContext(ctx, `UPDATE messages SET delivery_status = 'delivered' WHERE delivery_status = 'pending'
			AND id IN (`+Placeholders(len(ids))+`)`, ids...); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

// Threads summarises the threads of project (every project when empty),
// only those agentID takes part in when set; the most recently active
// first, equal times by id in byte order.
func (t *Tx) Threads(ctx context.Context, project, agentID string) ([]baton.Thread, error) {
	cond, args := "thread_id != ''", []any{}
	if project != "" {
		cond, args = cond+" AND project = ?", append(args, project)
	}
	if agentID != "" {
		cond, args = cond+" AND (agent_id = ? COLLATE "+t.nocase()+" OR recipient = ?)", append(args, agentID, agentID)
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT m.thread_id, c.n, m.body, m.created_at, m.agent_id FROM messages m
		JOIN (SELECT thread_id, COUNT(*) AS n, MAX(rid) AS last FROM messages WHERE `+cond+` GROUP BY thread_id) c
		ON m.rid = c.last ORDER BY m.created_at DESC, `+t.D.ByteOrder("m.id")+` DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []baton.Thread{}
	for rows.Next() {
		var th baton.Thread
		var at int64
		if err := rows.Scan(&th.ThreadID, &th.MessageCount, &th.LatestBody, &at, &th.AgentID); err != nil {
			return nil, err
		}
		th.LatestCreatedAt = FromMS(at)
		out = append(out, th)
	}
	return out, rows.Err()
}

// MarkRead marks one message, or every message from agentID, addressed to
// reader as read; it returns how many changed.
func (t *Tx) MarkRead(ctx context.Context, reader, messageID, agentID string) (int, error) {
	var res sql.Result
	var err error
	if messageID != "" {
		var recipient string
		err := t.Q.QueryRowContext(ctx, `SELECT recipient FROM messages WHERE id = ?`, messageID).Scan(&recipient)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, baton.Errorf(baton.ErrNotFound, "message %q does not exist", messageID).
				WithDetails("messageId", messageID).WithHint("read_messages lists message ids")
		}
		if err != nil {
			return 0, err
		}
		res, err = t.Q.ExecContext(ctx, `UPDATE messages SET delivery_status = 'read' WHERE id = ? AND recipient = ? AND delivery_status != 'read'`,
			messageID, reader)
		if err != nil {
			return 0, err
		}
	} else {
		res, err = t.Q.ExecContext(ctx, `UPDATE messages SET delivery_status = 'read' WHERE agent_id = ? COLLATE `+t.nocase()+` AND recipient = ?
			AND delivery_status != 'read'`, agentID, reader)
	}
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// CreateProposal stores p, pending, with a new id.
func (t *Tx) CreateProposal(ctx context.Context, p *baton.Proposal) error {
	p.ID, p.Status = newUUID(), "pending"
	if p.CreatedAt.IsZero() {
		p.CreatedAt = t.Now()
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO proposals (id, project, author, title, description, type, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, p.Project, p.Author, p.Title, p.Description, p.Type, p.Status, MS(p.CreatedAt))
	return err
}

// Proposals lists the proposals matching each filter given, newest first.
func (t *Tx) Proposals(ctx context.Context, project, status, typ string) ([]*baton.Proposal, error) {
	cond, args := "1 = 1", []any{}
	for _, f := range []struct{ col, v string }{{"project", project}, {"status", status}, {"type", typ}} {
		if f.v != "" {
			cond, args = cond+" AND "+f.col+" = ?", append(args, f.v)
		}
	}
	return t.proposals(ctx, `WHERE `+cond+` ORDER BY created_at DESC, rid DESC`, args...)
}

func (t *Tx) proposals(ctx context.Context, where string, args ...any) ([]*baton.Proposal, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT id, project, author, title, description, type, status, created_at FROM proposals `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Proposal{}
	for rows.Next() {
		var p baton.Proposal
		var at int64
		if err := rows.Scan(&p.ID, &p.Project, &p.Author, &p.Title, &p.Description, &p.Type, &p.Status, &at); err != nil {
			return nil, err
		}
		p.CreatedAt = FromMS(at)
		out = append(out, &p)
	}
	return out, rows.Err()
}

// DecideProposal moves a pending proposal to status.
func (t *Tx) DecideProposal(ctx context.Context, id, status string) (*baton.Proposal, error) {
	ps, err := t.proposals(ctx, `WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, baton.Errorf(baton.ErrNotFound, "proposal %q does not exist", id).
			WithDetails("id", id).WithHint("list_proposals shows proposal ids")
	}
	p := ps[0]
	if p.Status != "pending" {
		return nil, baton.Errorf(baton.ErrConflict, "proposal %s is already %s", id, p.Status).
			WithDetails("id", id, "status", p.Status).WithHint("only pending proposals are accepted or dismissed")
	}
	if _, err := t.Q.ExecContext(ctx, `UPDATE proposals SET status = ? WHERE id = ?`, status, id); err != nil {
		return nil, err
	}
	p.Status = status
	return p, nil
}

// SeeAgent records that the agent name was active at at; last_seen only
// moves forward.
func (t *Tx) SeeAgent(ctx context.Context, name string, at time.Time) error {
	if strings.EqualFold(name, baton.User) {
		return nil // the human is the user, never one of the agents
	}
	// CASE rather than SQLite's MAX or PostgreSQL's GREATEST, which each
	// lacks the other's.
	_, err := t.Q.ExecContext(ctx, `INSERT INTO agents (name, first_seen, last_seen) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET last_seen = CASE WHEN excluded.last_seen > agents.last_seen
			THEN excluded.last_seen ELSE agents.last_seen END`, name, MS(at), MS(at))
	return err
}

// AgentColumns are the columns ScanAgent reads, in its order.
const AgentColumns = `name, status, task, bead_id, progress, progress_task, progress_description, first_seen, last_seen`

// ScanAgent reads one row of AgentColumns.
func ScanAgent(sc interface{ Scan(...any) error }) (*baton.AgentState, error) {
	var a baton.AgentState
	var first, last int64
	if err := sc.Scan(&a.Name, &a.Status, &a.Task, &a.BeadID, &a.Progress, &a.ProgressTask, &a.ProgressDescription, &first, &last); err != nil {
		return nil, err
	}
	a.FirstSeen, a.LastSeen = FromMS(first), FromMS(last)
	return &a, nil
}

// SetAgentStatus records the agent's status, task and bead.
func (t *Tx) SetAgentStatus(ctx context.Context, s *baton.AgentState) error {
	if err := t.SeeAgent(ctx, s.Name, s.LastSeen); err != nil {
		return err
	}
	_, err := t.Q.ExecContext(ctx, `UPDATE agents SET status = ?, task = ?, bead_id = ? WHERE name = ?`, s.Status, s.Task, s.BeadID, s.Name)
	return err
}

// SetAgentProgress records the agent's progress on its task.
func (t *Tx) SetAgentProgress(ctx context.Context, s *baton.AgentState) error {
	if err := t.SeeAgent(ctx, s.Name, s.LastSeen); err != nil {
		return err
	}
	_, err := t.Q.ExecContext(ctx, `UPDATE agents SET progress = ?, progress_task = ?, progress_description = ? WHERE name = ?`,
		s.Progress, s.ProgressTask, s.ProgressDescription, s.Name)
	return err
}
