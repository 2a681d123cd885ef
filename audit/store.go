package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/baton-dev/baton"
)

// Report is the outcome of verifying the whole audit trail.
type Report struct {
	Actions        int64                   `json:"actions"`
	ActionBreaks   []BrokenLink            `json:"action_breaks"`
	Thoughts       int64                   `json:"thoughts"`
	ThoughtBreaks  map[string][]BrokenLink `json:"thought_breaks"` // by task
	Sessions       int                     `json:"sessions"`
	SessionBreaks  map[string]string       `json:"session_breaks"` // by session id
	IntegrityScore int                     `json:"integrity_score"`
}

// OK reports whether nothing is broken.
func (r *Report) OK() bool {
	return len(r.ActionBreaks) == 0 && len(r.ThoughtBreaks) == 0 && len(r.SessionBreaks) == 0
}

func newReport() *Report {
	return &Report{ActionBreaks: []BrokenLink{}, ThoughtBreaks: map[string][]BrokenLink{}, SessionBreaks: map[string]string{}}
}

func (r *Report) score() {
	broken := len(r.ActionBreaks)
	for _, b := range r.ThoughtBreaks {
		broken += len(b)
	}
	r.IntegrityScore = IntegrityScore(int(r.Actions+r.Thoughts), broken)
}

// batch is how many actions one read transaction returns.
const batch = 10_000

// VerifyStore walks the whole action log and every task's thought chain
// in the store, reporting each broken link.
func VerifyStore(ctx context.Context, s baton.Store) (*Report, error) {
	rep := newReport()
	var v Verifier
	for after := int64(0); ; {
		var acts []*baton.Action
		if err := s.View(ctx, func(tx baton.Tx) (err error) {
			acts, err = tx.Actions(ctx, after, batch)
			return err
		}); err != nil {
			return nil, err
		}
		for _, a := range acts {
			v.Add(Link{Position: a.Position, Stored: a.Hash, PreviousHash: a.PreviousHash, Computed: ActionOf(a).Hash()})
			after = a.Position
		}
		if len(acts) < batch {
			break
		}
	}
	rep.Actions, rep.ActionBreaks = v.Count(), append(rep.ActionBreaks, v.Broken...)
	var thoughts []*baton.ThoughtRecord
	if err := s.View(ctx, func(tx baton.Tx) (err error) {
		thoughts, err = tx.Thoughts(ctx, baton.ThoughtFilter{})
		return err
	}); err != nil {
		return nil, err
	}
	rep.Thoughts = int64(len(thoughts))
	for task, chain := range byTask(thoughts) {
		if b := VerifyThoughts(chain); len(b) > 0 {
			rep.ThoughtBreaks[task] = b
		}
	}
	rep.score()
	return rep, nil
}

func byTask(thoughts []*baton.ThoughtRecord) map[string][]Link {
	out := map[string][]Link{}
	for _, r := range thoughts {
		out[r.TaskID] = append(out[r.TaskID], Link{Position: int64(r.Position), Stored: r.Hash,
			PreviousHash: r.PreviousHash, Computed: ThoughtOf(r).Hash()})
	}
	return out
}

// BundleFormat names the bundle layout, for readers elsewhere.
// Version 2: thought hashes follow Colibri's catalogue (JSON.stringify of
// six fields in its order, previous_hash null for a chain's first record).
const BundleFormat = "baton-audit-bundle/2"

// Bundle is a self-contained export of the audit trail: every hashed
// field, so it can be verified with no database (baton audit verify
// --bundle FILE, or any SHA-256 and JSON tool following Algorithm).
type Bundle struct {
	Format      string          `json:"format"`
	Algorithm   string          `json:"algorithm"`
	GeneratedAt string          `json:"generated_at"`
	Actions     []BundleAction  `json:"actions"`
	Thoughts    []BundleThought `json:"thoughts"`
	Sessions    []BundleSession `json:"sessions"`
}

// BundleAction is an action with its hashed fields and stored hash.
type BundleAction struct {
	ActionFields
	Hash string `json:"hash"`
}

// BundleThought is a thought record with its hashed fields and stored
// hash; previous_hash is null for the first record of its chain.
type BundleThought struct {
	TaskID       string  `json:"task_id"`
	Type         string  `json:"type"`
	Content      string  `json:"content"`
	PreviousHash *string `json:"previous_hash"`
	RecordedAt   string  `json:"recorded_at"`
	RecordedBy   string  `json:"recorded_by"`
	ID           string  `json:"id"`
	Position     int     `json:"position"`
	Hash         string  `json:"hash"`
}

// Fields are the thought's hashed fields.
func (t BundleThought) Fields() ThoughtFields {
	f := ThoughtFields{TaskID: t.TaskID, Type: t.Type, Content: t.Content, RecordedAt: t.RecordedAt, RecordedBy: t.RecordedBy}
	if t.PreviousHash != nil {
		f.PreviousHash = *t.PreviousHash
	}
	return f
}

func bundleThought(r *baton.ThoughtRecord) BundleThought {
	f := ThoughtOf(r)
	t := BundleThought{TaskID: f.TaskID, Type: f.Type, Content: f.Content, RecordedAt: f.RecordedAt, RecordedBy: f.RecordedBy,
		ID: r.ID, Position: r.Position, Hash: r.Hash}
	if f.PreviousHash != "" {
		t.PreviousHash = &f.PreviousHash
	}
	return t
}

// BundleSession is a finalized session: its frozen root and its leaves.
type BundleSession struct {
	ID          string   `json:"id"`
	TaskID      string   `json:"task_id"`
	MerkleRoot  string   `json:"merkle_root"`
	FinalizedAt string   `json:"finalized_at"`
	Leaves      []string `json:"leaves"`
}

const bundleAlgorithm = "thoughts: hash = hex SHA-256 of JavaScript's JSON.stringify({task_id, type, content, previous_hash, " +
	"recorded_at, recorded_by}) (that key order, no spaces), one chain per task_id by position, previous_hash null for the " +
	"first; actions: hash = hex SHA-256 of the canonical JSON (keys sorted, no spaces) of the fields without the hash, one " +
	"chain by position, previous_hash 64 zeros for the first; a session's merkle_root is over its leaves: SHA256(left||right) " +
	"on raw bytes, an odd last node promoted, sha256(\"\") for no leaves."

// Export reads the whole audit trail into a bundle.
func Export(ctx context.Context, s baton.Store, now time.Time) (*Bundle, error) {
	b := &Bundle{Format: BundleFormat, Algorithm: bundleAlgorithm, GeneratedAt: Stamp(now),
		Actions: []BundleAction{}, Thoughts: []BundleThought{}, Sessions: []BundleSession{}}
	err := s.View(ctx, func(tx baton.Tx) error {
		for after := int64(0); ; {
			acts, err := tx.Actions(ctx, after, batch)
			if err != nil {
				return err
			}
			for _, a := range acts {
				b.Actions = append(b.Actions, BundleAction{ActionFields: ActionOf(a), Hash: a.Hash})
				after = a.Position
			}
			if len(acts) < batch {
				break
			}
		}
		thoughts, err := tx.Thoughts(ctx, baton.ThoughtFilter{})
		if err != nil {
			return err
		}
		for _, r := range thoughts {
			b.Thoughts = append(b.Thoughts, bundleThought(r))
		}
		sessions, err := tx.Sessions(ctx)
		if err != nil {
			return err
		}
		for _, sess := range sessions {
			if !sess.Finalized() {
				continue
			}
			recs, err := tx.SessionRecords(ctx, sess.ID)
			if err != nil {
				return err
			}
			bs := BundleSession{ID: sess.ID, TaskID: sess.TaskID, MerkleRoot: sess.MerkleRoot, FinalizedAt: Stamp(sess.FinalizedAt), Leaves: []string{}}
			for _, r := range recs {
				if sess.RootTask == "" || r.TaskID == sess.RootTask {
					bs.Leaves = append(bs.Leaves, r.Hash)
				}
			}
			b.Sessions = append(b.Sessions, bs)
		}
		return nil
	})
	return b, err
}

// Verify checks a bundle on its own: both kinds of chain, and every
// session's root against its leaves, each leaf being a record of the
// bundle.
func (b *Bundle) Verify() *Report {
	rep := newReport()
	var v Verifier
	known := map[string]bool{}
	for _, a := range b.Actions {
		v.Add(Link{Position: a.Position, Stored: a.Hash, PreviousHash: a.PreviousHash, Computed: a.ActionFields.Hash()})
		known[a.Hash] = true
	}
	rep.Actions, rep.ActionBreaks = v.Count(), append(rep.ActionBreaks, v.Broken...)
	chains := map[string][]Link{}
	for _, t := range b.Thoughts {
		f := t.Fields()
		chains[t.TaskID] = append(chains[t.TaskID], Link{Position: int64(t.Position), Stored: t.Hash,
			PreviousHash: f.PreviousHash, Computed: f.Hash()})
		known[t.Hash] = true
	}
	rep.Thoughts = int64(len(b.Thoughts))
	for task, chain := range chains {
		if br := VerifyThoughts(chain); len(br) > 0 {
			rep.ThoughtBreaks[task] = br
		}
	}
	rep.Sessions = len(b.Sessions)
	for _, s := range b.Sessions {
		root, _, err := Root(s.Leaves)
		switch {
		case err != nil:
			rep.SessionBreaks[s.ID] = err.Error()
		case root != s.MerkleRoot:
			rep.SessionBreaks[s.ID] = fmt.Sprintf("the leaves give root %s, not the frozen %s", root, s.MerkleRoot)
		default:
			for i, l := range s.Leaves {
				if !known[l] {
					rep.SessionBreaks[s.ID] = fmt.Sprintf("leaf %d (%s) is no record of the bundle", i, l)
					break
				}
			}
		}
	}
	rep.score()
	return rep
}
