package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
)

// newUUID is a random (version 4) UUID, the id format of Adjutant's
// messages and proposals.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

const messageColumns = `id, project, agent_id, recipient, role, body, thread_id, metadata, event_type, delivery_status, question, created_at`

func scanMessage(sc interface{ Scan(...any) error }) (*baton.Message, error) {
	var m baton.Message
	var meta string
	var created int64
	if err := sc.Scan(&m.ID, &m.Project, &m.AgentID, &m.Recipient, &m.Role, &m.Body, &m.ThreadID, &meta, &m.EventType,
		&m.DeliveryStatus, &m.Question, &created); err != nil {
		return nil, err
	}
	m.Metadata, m.CreatedAt = []byte(meta), sqlcore.FromMS(created)
	return &m, nil
}

func (t *tx) messages(ctx context.Context, query string, args ...any) ([]*baton.Message, error) {
	rows, err := t.Q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (t *tx) SendMessage(ctx context.Context, m *baton.Message) error {
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
	if _, err := t.Q.ExecContext(ctx, `INSERT INTO messages (`+messageColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Project, m.AgentID, m.Recipient, m.Role, m.Body, m.ThreadID, meta, m.EventType, m.DeliveryStatus, m.Question,
		sqlcore.MS(m.CreatedAt)); err != nil {
		return err
	}
	// The user's reply in a question's thread answers it.
	if strings.EqualFold(m.AgentID, baton.User) && m.ThreadID != "" {
		_, err := t.Q.ExecContext(ctx, `UPDATE messages SET question = 'answered' WHERE thread_id = ? AND question = 'open'`, m.ThreadID)
		return err
	}
	return nil
}

func (t *tx) ReadMessages(ctx context.Context, reader string, f baton.MessageFilter) ([]*baton.Message, error) {
	var where []string
	var args []any
	if f.Project != "" {
		where, args = append(where, "project = ?"), append(args, f.Project)
	}
	if f.ThreadID != "" {
		where, args = append(where, "thread_id = ?"), append(args, f.ThreadID)
	}
	if f.AgentID != "" {
		where, args = append(where, "(agent_id = ? COLLATE NOCASE OR recipient = ?)"), append(args, f.AgentID, f.AgentID)
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
		// message seen as beforeId, resume exactly there.
		if f.BeforeID != "" {
			where = append(where, "(created_at < ? OR (created_at = ? AND rid < COALESCE((SELECT rid FROM messages WHERE id = ?), 0)))")
			args = append(args, sqlcore.MS(*f.Before), sqlcore.MS(*f.Before), f.BeforeID)
		} else {
			where, args = append(where, "created_at < ?"), append(args, sqlcore.MS(*f.Before))
		}
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	// The newest page, then put oldest first.
	msgs, err := t.messages(ctx, `SELECT `+messageColumns+` FROM (SELECT rid, `+messageColumns+` FROM messages`+cond+
		` ORDER BY created_at DESC, rid DESC LIMIT ?) ORDER BY created_at ASC, rid ASC`, append(args, limit)...)
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
			AND id IN (`+sqlcore.Placeholders(len(ids))+`)`, ids...); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

func (t *tx) Threads(ctx context.Context, project, agentID string) ([]baton.Thread, error) {
	cond, args := "thread_id != ''", []any{}
	if project != "" {
		cond, args = cond+" AND project = ?", append(args, project)
	}
	if agentID != "" {
		cond, args = cond+" AND (agent_id = ? COLLATE NOCASE OR recipient = ?)", append(args, agentID, agentID)
	}
	rows, err := t.Q.QueryContext(ctx, `SELECT m.thread_id, c.n, m.body, m.created_at, m.agent_id FROM messages m
		JOIN (SELECT thread_id, COUNT(*) AS n, MAX(rid) AS last FROM messages WHERE `+cond+` GROUP BY thread_id) c
		ON m.rid = c.last ORDER BY m.created_at DESC, m.id DESC`, args...)
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
		th.LatestCreatedAt = sqlcore.FromMS(at)
		out = append(out, th)
	}
	return out, rows.Err()
}

func (t *tx) MarkRead(ctx context.Context, reader, messageID, agentID string) (int, error) {
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
		res, err = t.Q.ExecContext(ctx, `UPDATE messages SET delivery_status = 'read' WHERE agent_id = ? COLLATE NOCASE AND recipient = ?
			AND delivery_status != 'read'`, agentID, reader)
	}
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

func (t *tx) SearchMessages(ctx context.Context, project, text, agentID string, limit int) ([]*baton.Message, error) {
	if strings.TrimSpace(text) == "" {
		return []*baton.Message{}, nil
	}
	// messages_fts is the only index (unstemmed), so the whole query is
	// one MATCH and bm25 ranks by all of it.
	q, err := searchQuery(text, "query", false)
	if err != nil {
		return nil, err
	}
	cond, args := "messages_fts MATCH ?", []any{q.Root.FTS5()}
	if project != "" {
		cond, args = cond+" AND m.project = ?", append(args, project)
	}
	if agentID != "" {
		cond, args = cond+" AND m.agent_id = ? COLLATE NOCASE", append(args, agentID)
	}
	if limit <= 0 {
		limit = 20
	}
	return t.messages(ctx, `SELECT m.id, m.project, m.agent_id, m.recipient, m.role, m.body, m.thread_id, m.metadata, m.event_type,
		m.delivery_status, m.question, m.created_at FROM messages_fts CROSS JOIN messages m ON m.rid = messages_fts.rowid
		WHERE `+cond+` ORDER BY bm25(messages_fts), m.created_at DESC LIMIT ?`, append(args, limit)...)
}

func (t *tx) CreateProposal(ctx context.Context, p *baton.Proposal) error {
	p.ID, p.Status = newUUID(), "pending"
	if p.CreatedAt.IsZero() {
		p.CreatedAt = t.Now()
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO proposals (id, project, author, title, description, type, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, p.Project, p.Author, p.Title, p.Description, p.Type, p.Status, sqlcore.MS(p.CreatedAt))
	return err
}

func (t *tx) Proposals(ctx context.Context, project, status, typ string) ([]*baton.Proposal, error) {
	cond, args := "1 = 1", []any{}
	for col, v := range map[string]string{"project": project, "status": status, "type": typ} {
		if v != "" {
			cond, args = cond+" AND "+col+" = ?", append(args, v)
		}
	}
	return t.proposals(ctx, `WHERE `+cond+` ORDER BY created_at DESC, rid DESC`, args...)
}

func (t *tx) proposals(ctx context.Context, where string, args ...any) ([]*baton.Proposal, error) {
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
		p.CreatedAt = sqlcore.FromMS(at)
		out = append(out, &p)
	}
	return out, rows.Err()
}

func (t *tx) DecideProposal(ctx context.Context, id, status string) (*baton.Proposal, error) {
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

func (t *tx) SeeAgent(ctx context.Context, name string, at time.Time) error {
	if strings.EqualFold(name, baton.User) {
		return nil // the human is the user, never one of the agents
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO agents (name, first_seen, last_seen) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET last_seen = MAX(last_seen, excluded.last_seen)`, name, sqlcore.MS(at), sqlcore.MS(at))
	return err
}

const agentColumns = `name, status, task, bead_id, progress, progress_task, progress_description, first_seen, last_seen`

func scanAgent(sc interface{ Scan(...any) error }) (*baton.AgentState, error) {
	var a baton.AgentState
	var first, last int64
	if err := sc.Scan(&a.Name, &a.Status, &a.Task, &a.BeadID, &a.Progress, &a.ProgressTask, &a.ProgressDescription, &first, &last); err != nil {
		return nil, err
	}
	a.FirstSeen, a.LastSeen = sqlcore.FromMS(first), sqlcore.FromMS(last)
	return &a, nil
}

func (t *tx) Agent(ctx context.Context, name string) (*baton.AgentState, error) {
	a, err := scanAgent(t.Q.QueryRowContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		// An agent known only from its MCP sessions (list_agents shows it)
		// can be messaged too.
		session, err := t.SessionAgent(ctx, name)
		if err != nil {
			return nil, err
		}
		if session != "" {
			return &baton.AgentState{Name: session}, nil
		}
		known, err := t.Strings(ctx, `SELECT name FROM agents ORDER BY name`)
		if err != nil {
			return nil, err
		}
		if known, err = t.WithSessionAgents(ctx, known); err != nil {
			return nil, err
		}
		return nil, baton.Errorf(baton.ErrAgentNotFound, "no agent is called %q", name).
			WithDetails("agent", name, "known", append([]string{baton.User}, known...)).
			WithHint("send to \"user\" or to one of the known agents (names match case-insensitively)")
	}
	return a, err
}

func (t *tx) Agents(ctx context.Context) ([]*baton.AgentState, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+agentColumns+` FROM agents ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.AgentState{}
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func (t *tx) SetAgentStatus(ctx context.Context, s *baton.AgentState) error {
	if err := t.SeeAgent(ctx, s.Name, s.LastSeen); err != nil {
		return err
	}
	_, err := t.Q.ExecContext(ctx, `UPDATE agents SET status = ?, task = ?, bead_id = ? WHERE name = ?`, s.Status, s.Task, s.BeadID, s.Name)
	return err
}

func (t *tx) SetAgentProgress(ctx context.Context, s *baton.AgentState) error {
	if err := t.SeeAgent(ctx, s.Name, s.LastSeen); err != nil {
		return err
	}
	_, err := t.Q.ExecContext(ctx, `UPDATE agents SET progress = ?, progress_task = ?, progress_description = ? WHERE name = ?`,
		s.Progress, s.ProgressTask, s.ProgressDescription, s.Name)
	return err
}
