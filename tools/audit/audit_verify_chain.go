package audit

import (
	"context"
	"strconv"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tool"
)

type verifyIn struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"Verify this audit session's records (and end its tracking)."`
	TaskID    string `json:"task_id,omitempty" jsonschema:"Verify this task's thought chain; with session_id, only this task's records within that session."`
	FullTrace bool   `json:"full_trace,omitempty" jsonschema:"Include every record's hashes in the output."`
}

type traceEntry struct {
	Position     int     `json:"position" jsonschema:"Chain position for a task's chain; position in the session for a session (1-indexed)."`
	Kind         string  `json:"kind" jsonschema:"thought or action."`
	RecordID     string  `json:"record_id" jsonschema:"Thought id, or the action's position in the action log."`
	Hash         string  `json:"hash" jsonschema:"Stored hash."`
	PreviousHash *string `json:"previous_hash" jsonschema:"Stored link to the record before it in its own chain (null for a thought chain's first record)."`
	Valid        bool    `json:"valid" jsonschema:"Whether this link verifies."`
}

type verifyOut struct {
	SessionID       string             `json:"session_id,omitempty" jsonschema:"The session verified."`
	TaskID          string             `json:"task_id,omitempty" jsonschema:"The task verified (with session_id: the task whose records in the session were verified)."`
	ChainValid      bool               `json:"chain_valid" jsonschema:"Whether every link verifies."`
	TotalRecords    int                `json:"total_records" jsonschema:"Records verified."`
	IntegrityScore  int                `json:"integrity_score" jsonschema:"0-100, percentage of verified links."`
	BrokenLinks     []audit.BrokenLink `json:"broken_links" jsonschema:"Every broken link with the expected and the actual hash."`
	Trace           []traceEntry       `json:"trace,omitzero" jsonschema:"With full_trace: every record's hashes."`
	VerifiedAt      string             `json:"verified_at" jsonschema:"ISO-8601 UTC timestamp."`
	TrackingEndedAt string             `json:"tracking_ended_at,omitempty" jsonschema:"With session_id: when the session stopped tracking new records (its first verification, or its finalization)."`
}

// AuditVerifyChain is audit_verify_chain.
var AuditVerifyChain = orNull(tool.New(tool.Definition[verifyIn, verifyOut]{
	Name:    "audit_verify_chain",
	Event:   "audit.verified",
	Toolset: Toolset,
	Description: "Verify the integrity of a task's thought chain or of an audit session's records: recompute every hash and " +
		"check every link, reporting each broken link with the expected and the actual hash. With session_id and task_id, " +
		"only that task's records within the session are verified. Verifying a session ends its tracking: later records no " +
		"longer join it.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{Idempotent: true},
	Input:       tool.Rules{"session_id": sessionIDRule, "task_id": taskIDRule},
	Execute: func(ctx context.Context, c *tool.Call, in verifyIn) (verifyOut, error) {
		if in.SessionID == "" && in.TaskID == "" {
			return verifyOut{}, baton.Errorf(baton.ErrInvalidInput, "give session_id, task_id or both").
				WithDetails("field", "session_id", "constraint", "at_least_one").
				WithHint("pass session_id to verify an audit session, task_id to verify a task's thought chain, or both " +
					"to verify that task's records within the session")
		}
		out := verifyOut{SessionID: in.SessionID, VerifiedAt: baton.Timestamp(c.Now)}
		var sess *baton.AuditSession
		if in.SessionID != "" {
			var err error
			if sess, err = c.Tx.Session(ctx, in.SessionID); err != nil {
				return verifyOut{}, err
			}
		}
		if in.TaskID != "" {
			var err error
			if in.TaskID, err = taskID(ctx, c, in.TaskID); err != nil {
				return verifyOut{}, err
			}
			out.TaskID = in.TaskID
		}
		var checks []check
		if sess == nil {
			chain, err := c.Tx.Thoughts(ctx, baton.ThoughtFilter{TaskID: in.TaskID})
			if err != nil {
				return verifyOut{}, err
			}
			links := thoughtLinks(chain)
			out.BrokenLinks = audit.VerifyThoughts(links)
			for i, l := range links {
				checks = append(checks, check{kind: "thought", id: chain[i].ID, link: l})
			}
		} else {
			var err error
			if checks, err = sessionChecks(ctx, c, sess.ID, in.TaskID); err != nil {
				return verifyOut{}, err
			}
			for i, ch := range checks {
				if ch.broken != nil {
					b := *ch.broken
					b.Position = int64(i + 1)
					out.BrokenLinks = append(out.BrokenLinks, b)
				}
			}
			// The catalogue: a session tracks operations "until
			// audit_verify_chain is called". A finalized session stopped
			// at its finalization.
			at := c.Now
			switch {
			case !sess.TrackingEndedAt.IsZero():
				at = sess.TrackingEndedAt
			case sess.Finalized():
				at = sess.FinalizedAt
			}
			if _, err := c.Tx.EndTracking(ctx, sess.ID, at); err != nil {
				return verifyOut{}, err
			}
			out.TrackingEndedAt = baton.Timestamp(at)
		}
		if out.BrokenLinks == nil {
			out.BrokenLinks = []audit.BrokenLink{}
		}
		out.TotalRecords = len(checks)
		out.ChainValid = len(out.BrokenLinks) == 0
		out.IntegrityScore = audit.IntegrityScore(len(checks), len(out.BrokenLinks))
		if in.FullTrace {
			broken := map[int64]bool{}
			for _, b := range out.BrokenLinks {
				broken[b.Position] = true
			}
			out.Trace = make([]traceEntry, len(checks))
			for i, ch := range checks {
				pos := int64(i + 1)
				if sess == nil {
					pos = ch.link.Position // a task's chain reports chain positions
				}
				out.Trace[i] = traceEntry{Position: int(pos), Kind: ch.kind, RecordID: ch.id, Hash: ch.link.Stored,
					PreviousHash: nullable(ch.link.PreviousHash), Valid: !broken[pos]}
			}
		}
		return out, nil
	},
}), "trace", "previous_hash")

// check is one record as verified: its link, and what broke, if anything.
type check struct {
	kind, id string
	link     audit.Link
	broken   *audit.BrokenLink
}

// sessionChecks verifies each record of a session (only those about
// taskID, when given) where it stands: in its task's thought chain, or in
// the action log. A record is broken when it is gone from its chain (the
// session's hash of it is expected, nothing is found), when its content no
// longer gives the hash the session holds, or when its link does not
// follow the record before it.
func sessionChecks(ctx context.Context, c *tool.Call, sessionID, taskID string) ([]check, error) {
	recs, err := c.Tx.SessionRecords(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	chains := map[string][]*baton.ThoughtRecord{}
	out := make([]check, 0, len(recs))
	for _, r := range recs {
		if taskID != "" && r.TaskID != taskID {
			continue
		}
		ch := check{kind: r.Kind, id: r.RecordID, link: audit.Link{Stored: r.Hash}}
		var prev string
		found := false
		switch r.Kind {
		case "thought":
			chain, ok := chains[r.TaskID]
			if !ok {
				if chain, err = c.Tx.Thoughts(ctx, baton.ThoughtFilter{TaskID: r.TaskID}); err != nil {
					return nil, err
				}
				chains[r.TaskID] = chain
			}
			links := thoughtLinks(chain)
			for i, t := range chain {
				if t.ID == r.RecordID {
					ch.link, found, prev = links[i], true, "" // a thought chain starts from null
					if i > 0 {
						prev = chain[i-1].Hash
					}
				}
			}
		case "action":
			pos, _ := strconv.ParseInt(r.RecordID, 10, 64)
			acts, err := c.Tx.Actions(ctx, max(pos-2, 0), 2)
			if err != nil {
				return nil, err
			}
			prev = audit.Genesis
			for _, a := range acts {
				if a.Position == pos-1 {
					prev = a.Hash
				}
				if a.Position == pos {
					ch.link, found = actionLink(a), true
				}
			}
		}
		switch {
		case !found:
			ch.broken = &audit.BrokenLink{ExpectedHash: r.Hash, ActualHash: "", Reason: "the record is gone from its chain"}
		case ch.link.Computed != r.Hash:
			ch.broken = &audit.BrokenLink{ExpectedHash: r.Hash, ActualHash: ch.link.Computed,
				Reason: "the record's content no longer gives the hash the session holds (it was changed)"}
		case ch.link.PreviousHash != prev:
			ch.broken = &audit.BrokenLink{ExpectedHash: prev, ActualHash: ch.link.PreviousHash,
				Reason: "previous_hash does not follow the record before it (a record was deleted, inserted or reordered)"}
		}
		out = append(out, ch)
	}
	return out, nil
}
