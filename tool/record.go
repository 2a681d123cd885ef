package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	fastjson "github.com/segmentio/encoding/json"
)

// A write's record (its action, its event, the caller's presence) is
// written inside the store's one write transaction, where every other
// writer waits. So what can be worked out before the transaction is (the
// input's digest and subject), a value is marshalled once and that JSON
// serves the output check, the digest, the subject, the event's data and
// the MCP response, and statements whose answer the call already knows
// (the subject's project, an agent seen a moment ago) are not run.

// encoded is a value marshalled once: raw is json.Marshal's bytes, val
// the same JSON decoded as audit.Decode reads it (numbers as json.Number).
type encoded struct {
	raw []byte
	val any
}

// encode marshals v and decodes the bytes once, for everything that reads
// the value as JSON.
func encode(v any) (encoded, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return encoded{}, err
	}
	val, err := decodeMarshalled(raw)
	if err != nil {
		return encoded{}, err
	}
	return encoded{raw: raw, val: val}, nil
}

// decodeMarshalled is audit.Decode of bytes json.Marshal wrote, through
// segmentio/encoding's parser: decoding each call's output for its schema
// check was a tenth of a read's CPU through encoding/json's decoder.
// Marshalled JSON is one valid value, valid UTF-8, with no lone
// surrogate escape, where the two decoders agree on every value
// (TestDecodeMarshalledMatchesAuditDecode, FuzzDecodeMarshalled); the
// audit package keeps encoding/json for JSON from anywhere else. The
// decoded strings share raw's bytes (ZeroCopy), which nothing changes:
// raw is what the response, the event and the record carry as it is.
func decodeMarshalled(raw []byte) (any, error) {
	var v any
	rest, err := fastjson.Parse(raw, &v, fastjson.UseNumber|fastjson.ZeroCopy)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimLeft(rest, " \t\r\n")) > 0 {
		return nil, errors.New("tool: invalid JSON: data after the value")
	}
	return v, nil
}

// recorded is what the action log keeps of a call's input: its digest and
// the work item it names, if any. Both are known before the transaction
// begins, and a store that retries a busy transaction reuses them.
type recorded struct {
	digest  string
	subject string // "" when the input names no item
	err     error  // the input could not be digested; the call fails with it
}

// recordInput digests in and finds the item it names, as record would in
// the transaction.
func recordInput(in any) recorded {
	e, err := encode(in)
	if err != nil {
		return recorded{err: err}
	}
	d, err := audit.DigestValue(e.val)
	if err != nil {
		return recorded{err: err}
	}
	return recorded{digest: d, subject: subjectOf(e.val)}
}

// subjectKeys name the work item a call is about, in the output (a create
// learns its id there) or the input.
var subjectKeys = []string{"task_id", "issue_id", "item_id", "id"}

// subjectOf is the work item a decoded value names under one of
// subjectKeys, "" for none (or for a value that is no JSON object).
func subjectOf(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	for _, k := range subjectKeys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// subject is the work item a call concerned: named in its input (first)
// or output, both decoded, else the session's bound issue.
func subject(c *Call, values ...any) string {
	for _, v := range values {
		if s := subjectOf(v); s != "" {
			return s
		}
	}
	return c.Principal.IssueID
}

// record appends a call that changed something to the action log, and its
// event to its project's stream, in the call's transaction: a change and
// its record commit together or not at all. Typed and dynamic tools share
// it, so both leave the same trail. inDigest and outDigest are the
// audit.Digest of the input and the output, data the output's JSON.
func record(ctx context.Context, c *Call, spec *Spec, event, subject, inDigest, outDigest string, data []byte) error {
	e := eventOf(ctx, c, spec, event, subject, data)
	if err := c.Tx.AppendActionEvent(ctx, &baton.Action{Agent: c.Principal.Agent, Source: string(c.Principal.Source),
		Tool: spec.Name, Subject: subject, InputDigest: inDigest, ResultDigest: outDigest, At: c.Now}, e); err != nil {
		return err
	}
	c.published = append(c.published, e.Project)
	// An agent that changes something is known from then on (messages can
	// reach it); the human is "user", not an agent.
	if c.Principal.Agent == "" || c.Principal.Agent == baton.User || c.Env.seen.recent(c.Principal.Agent, c.Now) {
		return nil
	}
	if err := c.Tx.SeeAgent(ctx, c.Principal.Agent, c.Now); err != nil {
		return err
	}
	c.sawAgent = true
	return nil
}

// eventOf is the call's event, with the output's JSON as its data, for
// its project's stream.
func eventOf(ctx context.Context, c *Call, spec *Spec, typ, subject string, data []byte) *baton.Event {
	if typ == "" {
		typ = "tool." + spec.Name
	}
	if len(data) > MaxEventData {
		// A large output (a query's result) is the caller's; the stream
		// says what happened, not all of it.
		data, _ = json.Marshal(map[string]any{"truncated": true, "bytes": len(data)})
	}
	return &baton.Event{Project: eventProject(ctx, c, subject), Type: typ, Subject: subject, Agent: c.Principal.Agent,
		Data: data, At: c.Now}
}

// eventProject is the project whose stream an event joins: its work item's,
// else the session's, else the only project there is, else none (""). The
// item's project is usually known already: the call read or created the
// item in this transaction (itemMemo), and is read again only when not.
func eventProject(ctx context.Context, c *Call, subject string) string {
	if subject != "" {
		if m, ok := c.Tx.(*itemMemo); ok {
			if p, ok := m.project(subject); ok {
				return p
			}
		}
		if it, err := c.Tx.Item(ctx, subject); err == nil {
			return it.Project
		}
	}
	if c.Principal.Project != "" {
		return c.Principal.Project
	}
	if ps, err := c.Tx.Projects(ctx); err == nil && len(ps) == 1 {
		return ps[0].Slug
	}
	return ""
}

// itemMemo is the call's transaction as Execute sees it: every method is
// the store's, and the items Execute reads or creates are remembered with
// their project, which is what the call's event needs of its subject. An
// item's project changes only when it moves, so a move forgets them all
// (a move takes the item's children along, and leaves its old id as an
// alias of the new one). The list of projects is remembered too, until the
// call writes a project.
type itemMemo struct {
	baton.Tx
	items []memoItem
	// projects is every project, once the call has listed them: a call
	// that names no project lists them to find the only one
	// (session.Project), and its event does again (eventProject).
	projects []*baton.Project
}

type memoItem struct{ id, project string }

// memoLimit bounds what a call remembers: calls name one item, or a few;
// one that reads a hundred (a board, an import) reads its subject again.
const memoLimit = 8

func (m *itemMemo) remember(id, project string) {
	if id != "" && len(m.items) < memoLimit {
		m.items = append(m.items, memoItem{id, project})
	}
}

// project is the project of the item id as Item(id) would return it in
// this transaction, when the call has seen it.
func (m *itemMemo) project(id string) (string, bool) {
	for _, it := range m.items {
		if it.id == id {
			return it.project, true
		}
	}
	return "", false
}

// Item remembers the project of the item under both the id asked for
// (which may be an old id, an alias of the item's current one) and its id.
func (m *itemMemo) Item(ctx context.Context, id string) (*baton.Item, error) {
	it, err := m.Tx.Item(ctx, id)
	if err == nil {
		m.remember(id, it.Project)
		if it.ID != id {
			m.remember(it.ID, it.Project)
		}
	}
	return it, err
}

// CreateItem remembers the new item's project.
func (m *itemMemo) CreateItem(ctx context.Context, it *baton.Item) error {
	err := m.Tx.CreateItem(ctx, it)
	if err == nil {
		m.remember(it.ID, it.Project)
	}
	return err
}

// ClaimNext remembers the claimed item's project.
func (m *itemMemo) ClaimNext(ctx context.Context, holder string, f baton.ClaimNextFilter, ttl time.Duration, now time.Time) (*baton.Claim, *baton.Item, error) {
	cl, it, err := m.Tx.ClaimNext(ctx, holder, f, ttl, now)
	if err == nil && it != nil {
		m.remember(it.ID, it.Project)
	}
	return cl, it, err
}

// Projects lists the projects once a call; each caller gets its own
// copies.
func (m *itemMemo) Projects(ctx context.Context) ([]*baton.Project, error) {
	if m.projects == nil {
		ps, err := m.Tx.Projects(ctx)
		if err != nil {
			return nil, err
		}
		m.projects = ps
	}
	out := make([]*baton.Project, len(m.projects))
	for i, p := range m.projects {
		c := *p
		c.Tools = slices.Clone(p.Tools)
		out[i] = &c
	}
	return out, nil
}

// CreateProject and SetProjectTools, the writes of a project a call can
// make, forget the list.
func (m *itemMemo) CreateProject(ctx context.Context, p *baton.Project) error {
	m.projects = nil
	return m.Tx.CreateProject(ctx, p)
}

func (m *itemMemo) SetProjectTools(ctx context.Context, slug string, tools []string) error {
	m.projects = nil
	return m.Tx.SetProjectTools(ctx, slug, tools)
}

// MoveItem forgets every item remembered: the item and its children are
// in another project now, under other ids.
func (m *itemMemo) MoveItem(ctx context.Context, id, toProject string) (*baton.Item, error) {
	m.items = m.items[:0]
	return m.Tx.MoveItem(ctx, id, toProject)
}

// seenWindow is how long after recording an agent's presence a write of
// the same agent, through the same Env, skips recording it again. An
// agent's last_seen is therefore up to seenWindow older than its latest
// write, far inside baton.PresenceWindow, which is what last_seen is read
// against; first_seen is exact. The one statement it saves runs in the
// write transaction of every call, where every writer waits.
const seenWindow = 2 * time.Second

// seenAgents are the agents whose presence this Env recorded lately, with
// the call time it recorded: set only after the write committed, so a
// rolled-back call is not taken as seen.
type seenAgents struct {
	mu sync.Mutex
	at map[string]time.Time
}

// recent reports whether agent's presence was recorded at most seenWindow
// before now (and not after: a clock that went back records again).
func (s *seenAgents) recent(agent string, now time.Time) bool {
	s.mu.Lock()
	at, ok := s.at[agent]
	s.mu.Unlock()
	return ok && !now.Before(at) && now.Sub(at) < seenWindow
}

// mark records that agent's presence, as of now, committed.
func (s *seenAgents) mark(agent string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	if len(s.at) > 4096 {
		clear(s.at) // agents come and go; the map stays small
	}
	s.at[agent] = now
}
