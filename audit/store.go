package audit

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tlog"
	"golang.org/x/mod/sumdb/note"
)

// Report is the outcome of verifying the whole audit trail.
type Report struct {
	Actions       int64                   `json:"actions"`
	ActionBreaks  []BrokenLink            `json:"action_breaks"`
	Thoughts      int64                   `json:"thoughts"`
	ThoughtBreaks map[string][]BrokenLink `json:"thought_breaks"` // by task
	Sessions      int                     `json:"sessions"`
	SessionBreaks map[string]string       `json:"session_breaks"` // by session id
	// Root is the Merkle root (hex) of the log's records as their content
	// gives them, the root a checkpoint of the log today would sign.
	Root string `json:"root"`
	// Checkpoints are the signed checkpoints checked against the log: the
	// log's own, any given to check (a witness file), a bundle's.
	Checkpoints    []CheckpointCheck `json:"checkpoints"`
	IntegrityScore int               `json:"integrity_score"`
}

// CheckpointCheck is what one checkpoint says of the log.
type CheckpointCheck struct {
	Source string `json:"source"` // "log" (stored with it), "bundle", or the file it came from
	Size   int64  `json:"size"`
	Root   string `json:"root"` // hex
	// Signature is "verified", "invalid" or "unchecked" (no key to check
	// it with).
	Signature string `json:"signature"`
	// Status is "consistent" (the log today extends it), "truncated" (the
	// log has fewer records), "diverged" (the first Size records no longer
	// give its root), or "unsigned" (its signature does not verify, so it
	// says nothing).
	Status string `json:"status"`
	// Position is where the log departs from the checkpoint: the first
	// missing record when truncated; when diverged, the first position the
	// change can be at (after the largest checkpoint that still holds).
	Position int64  `json:"position,omitempty"`
	Detail   string `json:"detail"`
	// Proof is the RFC 6962 consistency proof from the checkpoint to the
	// log today (hex), checked, for the latest checkpoint of each source.
	Proof []string `json:"consistency_proof,omitempty"`
}

// OK reports whether nothing is broken.
func (r *Report) OK() bool {
	if len(r.ActionBreaks) > 0 || len(r.ThoughtBreaks) > 0 || len(r.SessionBreaks) > 0 {
		return false
	}
	for _, c := range r.Checkpoints {
		if c.Status != "consistent" {
			return false
		}
	}
	return true
}

func newReport() *Report {
	return &Report{ActionBreaks: []BrokenLink{}, ThoughtBreaks: map[string][]BrokenLink{}, SessionBreaks: map[string]string{},
		Checkpoints: []CheckpointCheck{}}
}

func (r *Report) score() {
	broken := len(r.ActionBreaks)
	for _, c := range r.Checkpoints {
		if c.Status != "consistent" {
			broken++
		}
	}
	for _, b := range r.ThoughtBreaks {
		broken += len(b)
	}
	r.IntegrityScore = IntegrityScore(int(r.Actions+r.Thoughts), broken)
}

// batch is how many actions one read transaction returns.
const batch = 10_000

// Given is a checkpoint to check the log against, from outside it.
type Given struct {
	Source string // where it came from, for the report
	Note   []byte
}

// VerifyOptions widen VerifyStoreWith.
type VerifyOptions struct {
	// Checkpoints are checked besides the log's own (a witness's copy).
	Checkpoints []Given
	// Key is the verifier key signatures are checked with; empty, the
	// log's own public key as the database names it.
	Key string
}

// VerifyStore walks the whole action log and every task's thought chain
// in the store, reporting each broken link, and checks the log against its
// stored checkpoints.
func VerifyStore(ctx context.Context, s baton.Store) (*Report, error) {
	return VerifyStoreWith(ctx, s, VerifyOptions{})
}

// VerifyStoreWith is VerifyStore checking the log against opts'
// checkpoints too. The checkpoints are read before the log, so a
// checkpoint made while the log is read is not taken for a cut.
func VerifyStoreWith(ctx context.Context, s baton.Store, opts VerifyOptions) (*Report, error) {
	rep := newReport()
	var stored []*baton.Checkpoint
	var id *baton.LogIdentity
	var rechains []baton.ActionRechain
	if err := s.View(ctx, func(tx baton.Tx) (err error) {
		if stored, err = tx.Checkpoints(ctx, 0); err != nil {
			return err
		}
		if rechains, err = tx.ActionRechains(ctx); err != nil {
			return err
		}
		id, err = tx.LogIdentity(ctx)
		return err
	}); err != nil {
		return nil, err
	}
	key := opts.Key
	if key == "" && id != nil {
		key = id.PublicKey
	}
	given := make([]Given, 0, len(stored)+len(opts.Checkpoints))
	for i := len(stored) - 1; i >= 0; i-- {
		given = append(given, Given{Source: "log", Note: []byte(stored[i].Note)})
	}
	given = append(given, opts.Checkpoints...)
	var v Verifier
	leaves, err := readLeaves(ctx, s, &v, 0, nil)
	if err != nil {
		return nil, err
	}
	rep.Actions, rep.ActionBreaks = v.Count(), append(rep.ActionBreaks, v.Broken...)
	for _, r := range rechains {
		if r.FirstBreak != 0 {
			rep.ActionBreaks = append(rep.ActionBreaks, BrokenLink{Position: r.FirstBreak,
				Reason: fmt.Sprintf("the chain did not verify here by the old rule when the upgrade of %s re-hashed the log (%d records; recorded at position %d)",
					Stamp(r.At), r.Records, r.Position)})
		}
	}
	idx := tlog.NewIndex(leaves)
	checks, root, err := checkCheckpoints(idx, given, key)
	if err != nil {
		return nil, err
	}
	rep.Root, rep.Checkpoints = hex.EncodeToString(root), checks
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

// readLeaves walks the log's first upTo actions (every one when upTo is
// 0), checking each with v, and gives their leaf hashes as their content
// gives them; seen, when set, hears each action.
func readLeaves(ctx context.Context, s baton.Store, v *Verifier, upTo int64, seen func(*baton.Action, ActionFields)) ([][]byte, error) {
	var leaves [][]byte
	for after := int64(0); upTo == 0 || after < upTo; {
		limit := int64(batch)
		if upTo > 0 {
			limit = min(limit, upTo-after)
		}
		var acts []*baton.Action
		if err := s.View(ctx, func(tx baton.Tx) (err error) {
			acts, err = tx.Actions(ctx, after, int(limit))
			return err
		}); err != nil {
			return nil, err
		}
		fields := make([]ActionFields, len(acts))
		for i, a := range acts {
			fields[i] = ActionOf(a)
			if seen != nil {
				seen(a, fields[i])
			}
		}
		hashes := leafHashes(len(acts), func(i int) ActionFields { return fields[i] })
		for i, a := range acts {
			v.addLeaf(&fields[i], a.Hash, hashes[i])
			after = a.Position
		}
		leaves = append(leaves, hashes...)
		if int64(len(acts)) < limit {
			break
		}
	}
	return leaves, nil
}

// checkCheckpoints says what each checkpoint (in given's order) says of
// the log whose leaves (as content gives them) idx indexes, and gives the
// log's root. Signatures are checked with key (none checked when empty).
func checkCheckpoints(idx *tlog.Index, given []Given, key string) ([]CheckpointCheck, []byte, error) {
	var verifier note.Verifier
	if key != "" {
		v, err := note.NewVerifier(key)
		if err != nil {
			return nil, nil, baton.Errorf(baton.ErrInvalidInput, "the key %q is not a note verifier key: %v", key, err).
				WithHint("give the key `baton audit key` prints (name+hash+base64)")
		}
		verifier = v
	}
	n := idx.Size()
	out := make([]CheckpointCheck, len(given))
	parsed := make([]*tlog.Checkpoint, len(given))
	for i, g := range given {
		c := &out[i]
		c.Source = g.Source
		cp, err := tlog.Parse(g.Note)
		if err != nil {
			c.Status, c.Signature, c.Detail = "unsigned", "invalid", "not a checkpoint: "+err.Error()
			continue
		}
		c.Size, c.Root = int64(cp.Size), hex.EncodeToString(cp.Root)
		switch {
		case verifier == nil:
			c.Signature = "unchecked"
		default:
			if _, err := tlog.OpenWith(g.Note, verifier); err != nil {
				c.Status, c.Signature, c.Detail = "unsigned", "invalid", err.Error()
				continue
			}
			c.Signature = "verified"
		}
		parsed[i] = cp
	}
	roots := map[uint64][]byte{}
	for _, cp := range parsed {
		if cp != nil && cp.Size <= n {
			r, err := idx.Root(cp.Size)
			if err != nil {
				return nil, nil, err
			}
			roots[cp.Size] = r
		}
	}
	now, err := idx.Root(n)
	if err != nil {
		return nil, nil, err
	}
	// good is the largest size whose checkpoint the log still gives: a
	// divergence lies after it.
	var good uint64
	for i, cp := range parsed {
		if cp != nil && cp.Size <= n && string(roots[cp.Size]) == string(cp.Root) && cp.Size > good && out[i].Signature != "invalid" {
			good = cp.Size
		}
	}
	latest := map[string]int{} // source -> index of its largest consistent checkpoint
	for i, cp := range parsed {
		if cp == nil {
			continue
		}
		c := &out[i]
		switch {
		case cp.Size > n:
			c.Status, c.Position = "truncated", int64(n)+1
			gone := fmt.Sprintf("%d records were", cp.Size-n)
			if cp.Size == n+1 {
				gone = "a record was"
			}
			c.Detail = fmt.Sprintf("the log holds %d records but this checkpoint was signed over %d: %s deleted (the newest, "+
				"unless the chain reports a gap before)", n, cp.Size, gone)
		case string(roots[cp.Size]) != string(cp.Root):
			from := int64(1)
			if good < cp.Size {
				from = int64(good) + 1
			}
			c.Status, c.Position = "diverged", from
			c.Detail = fmt.Sprintf("the first %d records no longer give this checkpoint's root: a record between positions %d and %d "+
				"was changed, deleted, inserted or reordered, and the hashes after it rewritten", cp.Size, from, cp.Size)
		default:
			c.Status = "consistent"
			c.Detail = fmt.Sprintf("the log today (%d records) extends this checkpoint (%d)", n, cp.Size)
			if j, ok := latest[c.Source]; !ok || parsed[j].Size < cp.Size {
				latest[c.Source] = i
			}
		}
	}
	// The latest consistent checkpoint of each source gets its proof, made
	// from the leaves and checked as any verifier would check it.
	for _, i := range latest {
		cp := parsed[i]
		p, err := idx.ConsistencyProof(cp.Size, n)
		if err != nil {
			return nil, nil, err
		}
		if err := tlog.VerifyConsistency(cp.Size, n, p, cp.Root, now); err != nil {
			out[i].Status, out[i].Detail = "diverged", "its consistency proof does not verify: "+err.Error()
			continue
		}
		out[i].Proof = hexAll(p)
	}
	return out, now, nil
}

func byTask(thoughts []*baton.ThoughtRecord) map[string][]Link {
	out := map[string][]Link{}
	for _, r := range thoughts {
		out[r.TaskID] = append(out[r.TaskID], Link{Position: int64(r.Position), Stored: r.Hash,
			PreviousHash: r.PreviousHash, Computed: ThoughtOf(r).Hash()})
	}
	return out
}
