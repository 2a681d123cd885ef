package web

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
)

// The audit page: the action log (every successful mutating tool call,
// hash-chained), newest first; the log's latest signed checkpoint and its
// public key; a Verify button that recomputes the whole trail and checks
// it against the signed checkpoints as `baton audit verify` does; and the
// audit sessions with their Merkle roots.

// Bounds of the audit page.
const (
	auditLimit         = 100 // actions a page shows
	auditSessionsLimit = 50  // sessions listed, newest first
	// verifyTimeout bounds one verification: the whole trail is read, which
	// on a large log takes a while; past this the page says it was cut.
	verifyTimeout = 30 * time.Second
	// hashPrefix is how much of a hash the table shows.
	hashPrefix = 12
	// maxTaskBreaks bounds the broken thought chains a verification lists.
	maxTaskBreaks = 20
	// maxCheckpointFails bounds the failing checkpoints a verification
	// lists (a log is checkpointed every few minutes: a cut can fail many).
	maxCheckpointFails = 20
	// maxRechains bounds the upgrade re-hashings the page lists (a log is
	// re-hashed once).
	maxRechains = 5
)

// verifySlot lets one verification run at a time: each reads the whole
// trail, and a burst of them must not slow the agents' calls.
var verifySlot = make(chan struct{}, 1)

var auditPage = &pageDef{
	Pattern: "/audit", Name: "audit", Title: "Audit", Nav: "audit",
	// Every mutating call appends to the log, whatever event it sends.
	Live: nil,
	Load: loadAudit,
}

func init() { register(auditPage) }

// actionRow is one action of the log with its hash cut for the table.
type actionRow struct {
	*baton.Action
	HashPrefix string
}

// sessionRow is one audit session.
type sessionRow struct {
	*baton.AuditSession
	State   string // tracking, verified or finalized
	Records int
}

// verifyResult is the outcome of verifying the whole trail.
type verifyResult struct {
	OK            bool
	Actions       int64
	Thoughts      int64
	FirstBreak    *audit.BrokenLink // the action log's first broken link
	ActionBreaks  int
	ThoughtBreaks []taskBreak // each broken task chain's first break, by task, at most maxTaskBreaks
	MoreTasks     int         // broken task chains past maxTaskBreaks
	Integrity     int
	// Root is the Merkle root (hex) of the log today.
	Root string
	// Checkpoints counts the signed checkpoints checked, Consistent those
	// the log still extends, Unchecked the consistent ones whose signature
	// could not be checked (no public key).
	Checkpoints, Consistent, Unchecked int
	// CheckpointFails are the checkpoints the log no longer holds, largest
	// first, at most maxCheckpointFails; MoreFails those past it.
	CheckpointFails []checkpointFail
	MoreFails       int
	Took            time.Duration
	Cut             bool   // verifyTimeout passed first
	Busy            bool   // another verification was running
	Err             string // the store failed
}

// checkpointFail is a checkpoint the log no longer holds, its root cut
// for the page.
type checkpointFail struct {
	audit.CheckpointCheck
	RootPrefix string
}

type taskBreak struct {
	Task  string
	Break audit.BrokenLink
	Count int
}

// sessionRoot is merkle_root's answer for the ?session asked.
type sessionRoot struct {
	SessionID   string `json:"session_id"`
	MerkleRoot  string `json:"merkle_root"`
	IsFinalized bool   `json:"is_finalized"`
	LeafCount   int    `json:"leaf_count"`
	AsOf        string `json:"as_of"`
}

// checkpointView is the log's latest signed checkpoint as the page shows
// it, against the log's head now.
type checkpointView struct {
	*baton.Checkpoint
	RootPrefix string
	Origin     string // the note's first line
	Head       int64  // the position of the log's newest record
	Since      int64  // records appended since it was signed (head - size)
	Missing    int64  // records it signed that the log no longer reaches (size - head)
}

type auditData struct {
	Checkpoint *checkpointView       // nil: none signed yet
	Identity   *baton.LogIdentity    // nil: the log has no key yet
	Rechains   []baton.ActionRechain // the upgrade re-hashings, at most maxRechains
	Actions    []actionRow
	Agent      string // the ?agent filter
	Before     int64  // the ?before page (0: the newest)
	Older      int64  // the ?before of the next older page (0: none)
	Limit      int
	Sessions   []sessionRow
	More       int // sessions not listed
	Timeout    time.Duration
	Root       *sessionRoot
	RootID     string
	RootErr    *baton.Error
}

func loadAudit(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	q := r.URL.Query()
	d := &auditData{Limit: auditLimit, Timeout: verifyTimeout, Agent: q.Get("agent")}
	if len(d.Agent) > 128 {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the agent filter is %d bytes long, more than 128", len(d.Agent)).
			WithDetails("field", "agent", "max_length", 128).WithHint("agent names are short: agent-bob")
	}
	if b := q.Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 2 {
			return nil, baton.Errorf(baton.ErrInvalidInput, "before must be a chain position over 1, not %q", clipText(b, 32)).
				WithDetails("field", "before").WithHint("follow the page's \"older\" link")
		}
		d.Before = n
		if d.Agent != "" {
			// RecentActions has no offset: paging is of the whole log.
			return nil, baton.Errorf(baton.ErrInvalidInput, "before pages the whole log; it does not combine with agent").
				WithDetails("field", "before", "constraint", "without_agent").
				WithHint("drop agent= to page back, or drop before= to see the agent's newest calls")
		}
	}
	if id := q.Get("session"); id != "" {
		d.RootID = clipText(id, 64)
		var root sessionRoot
		if e := s.call(r, "merkle_root", map[string]any{"session_id": id}, &root); e != nil {
			d.RootErr = e
		} else {
			d.Root = &root
		}
	}
	err := s.view(ctx, func(tx baton.Tx) error {
		acts, err := recentActions(ctx, tx, d.Agent, d.Before)
		if err != nil {
			return err
		}
		for _, a := range acts {
			d.Actions = append(d.Actions, actionRow{Action: a, HashPrefix: clipHash(a.Hash)})
		}
		// Older pages read by position, which the agent filter cannot.
		if n := len(acts); d.Agent == "" && n == auditLimit && acts[n-1].Position > 1 {
			d.Older = acts[n-1].Position
		}
		if err := loadCheckpoint(ctx, tx, d); err != nil {
			return err
		}
		return loadSessions(ctx, tx, d)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// recentActions are the newest auditLimit actions (of agent, if given),
// or with before those just before that position; newest first.
func recentActions(ctx context.Context, tx baton.Tx, agent string, before int64) ([]*baton.Action, error) {
	if before == 0 {
		return tx.RecentActions(ctx, agent, auditLimit)
	}
	after := max(0, before-1-auditLimit)
	acts, err := tx.Actions(ctx, after, int(before-1-after))
	slices.Reverse(acts)
	return acts, err
}

// loadCheckpoint reads the log's latest signed checkpoint, its identity
// and its upgrade re-hashings.
func loadCheckpoint(ctx context.Context, tx baton.Tx, d *auditData) error {
	id, err := tx.LogIdentity(ctx)
	if err != nil {
		return err
	}
	d.Identity = id
	if d.Rechains, err = tx.ActionRechains(ctx); err != nil {
		return err
	}
	if len(d.Rechains) > maxRechains {
		d.Rechains = d.Rechains[:maxRechains]
	}
	cps, err := tx.Checkpoints(ctx, 1)
	if err != nil || len(cps) == 0 {
		return err
	}
	cp := cps[0]
	head, err := tx.RecentActions(ctx, "", 1)
	if err != nil {
		return err
	}
	v := &checkpointView{Checkpoint: cp, RootPrefix: clipHash(cp.Root)}
	v.Origin, _, _ = strings.Cut(cp.Note, "\n")
	if len(head) == 1 {
		v.Head = head[0].Position
	}
	if v.Head >= cp.Size {
		v.Since = v.Head - cp.Size
	} else {
		v.Missing = cp.Size - v.Head
	}
	d.Checkpoint = v
	return nil
}

func loadSessions(ctx context.Context, tx baton.Tx, d *auditData) error {
	all, err := tx.Sessions(ctx)
	if err != nil {
		return err
	}
	slices.Reverse(all) // newest first
	if len(all) > auditSessionsLimit {
		d.More, all = len(all)-auditSessionsLimit, all[:auditSessionsLimit]
	}
	for _, ss := range all {
		recs, err := tx.SessionRecords(ctx, ss.ID)
		if err != nil {
			return err
		}
		row := sessionRow{AuditSession: ss, Records: len(recs), State: "tracking"}
		switch {
		case ss.Finalized():
			row.State = "finalized"
		case !ss.Tracking():
			row.State = "verified"
		}
		d.Sessions = append(d.Sessions, row)
	}
	return nil
}

// verifyTrail verifies the action log and every thought chain with the
// code of `baton audit verify` (audit.VerifyStore), within verifyTimeout.
func verifyTrail(ctx context.Context, store baton.Store) *verifyResult {
	select {
	case verifySlot <- struct{}{}:
		defer func() { <-verifySlot }()
	default:
		return &verifyResult{Busy: true}
	}
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	start := time.Now()
	rep, err := audit.VerifyStore(ctx, store)
	res := &verifyResult{Took: roundDuration(time.Since(start))}
	if err != nil {
		if ctx.Err() != nil {
			res.Cut = true
		} else {
			res.Err = baton.AsError(err).Message
		}
		return res
	}
	res.OK, res.Actions, res.Thoughts, res.Integrity = rep.OK(), rep.Actions, rep.Thoughts, rep.IntegrityScore
	res.ActionBreaks = len(rep.ActionBreaks)
	if len(rep.ActionBreaks) > 0 {
		res.FirstBreak = &rep.ActionBreaks[0]
	}
	for task, bs := range rep.ThoughtBreaks {
		res.ThoughtBreaks = append(res.ThoughtBreaks, taskBreak{Task: task, Break: bs[0], Count: len(bs)})
	}
	res.Root, res.Checkpoints = rep.Root, len(rep.Checkpoints)
	for i := len(rep.Checkpoints) - 1; i >= 0; i-- { // stored oldest first: largest first here
		c := rep.Checkpoints[i]
		switch {
		case c.Status == "consistent":
			res.Consistent++
			if c.Signature == "unchecked" {
				res.Unchecked++
			}
		case len(res.CheckpointFails) < maxCheckpointFails:
			res.CheckpointFails = append(res.CheckpointFails, checkpointFail{CheckpointCheck: c, RootPrefix: clipHash(c.Root)})
		default:
			res.MoreFails++
		}
	}
	sort.Slice(res.ThoughtBreaks, func(i, j int) bool { return res.ThoughtBreaks[i].Task < res.ThoughtBreaks[j].Task })
	if n := len(res.ThoughtBreaks); n > maxTaskBreaks {
		res.MoreTasks, res.ThoughtBreaks = n-maxTaskBreaks, res.ThoughtBreaks[:maxTaskBreaks]
	}
	return res
}

// roundDuration keeps a duration readable: milliseconds from a second
// up, microseconds below (a small trail verifies in well under 1 ms).
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

func clipHash(h string) string {
	if len(h) > hashPrefix {
		return h[:hashPrefix]
	}
	return h
}

// verifyView is what the verifyResult template shows.
type verifyView struct {
	Verify  *verifyResult
	Timeout time.Duration
}

// verifyAudit is POST /audit/verify: it verifies the whole trail (one
// verification at a time, within verifyTimeout) and answers the result as
// an HTML fragment for the audit page. A POST, so the session's CSRF token
// is needed: a foreign page cannot make the server read the whole trail.
func (s *Server) verifyAudit(w http.ResponseWriter, r *http.Request, _ *session) {
	v := verifyView{Verify: verifyTrail(r.Context(), s.env.Store), Timeout: verifyTimeout}
	var buf bytes.Buffer
	if err := s.pages["audit"].ExecuteTemplate(&buf, "verifyResult", v); err != nil {
		s.log.Error("dashboard: rendering the verification", "err", err)
		writeError(w, http.StatusInternalServerError, baton.Errorf(baton.ErrInternal, "the result could not be rendered"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}
