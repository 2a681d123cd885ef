package audit

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tlog"
)

// BundleFormat names the bundle layout, for readers elsewhere.
// Version 3: the action log as a transparency log (RFC 8785 records, RFC
// 6962 leaves and tree), a signed checkpoint over exactly the bundle's
// records, and consistency proofs from the log's earlier checkpoints.
// Version 2's thought hashes are unchanged.
const BundleFormat = "baton-audit-bundle/3"

// Bundle is a self-contained, signed export of the audit trail: every
// hashed field, so it can be verified with no database and no baton
// (docs/audit.md says how; testdata/verify-bundle.mjs does it with
// Node's standard library alone).
type Bundle struct {
	Format      string `json:"format"`
	Algorithm   string `json:"algorithm"`
	GeneratedAt string `json:"generated_at"`
	// Origin names the log; PublicKey is its key as the log names it.
	// Check the signature with the key the log's operator publishes
	// (`baton audit key`), not with this copy, which travels with the
	// bundle.
	Origin    string `json:"origin"`
	PublicKey string `json:"public_key"`
	// Checkpoint is a signed tlog-checkpoint note over exactly Actions.
	Checkpoint string `json:"checkpoint"`
	// Consistency proves that Checkpoint extends each earlier checkpoint
	// of the log.
	Consistency []BundleConsistency `json:"consistency"`
	Actions     []BundleAction      `json:"actions"`
	Thoughts    []BundleThought     `json:"thoughts"`
	Sessions    []BundleSession     `json:"sessions"`
}

// BundleConsistency is an earlier checkpoint and the RFC 6962 consistency
// proof (hex hashes) from it to the bundle's checkpoint.
type BundleConsistency struct {
	Checkpoint string   `json:"checkpoint"`
	Proof      []string `json:"proof"`
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

const bundleAlgorithm = "actions: each record's hash is its RFC 6962 leaf hash, hex SHA-256 of the byte 0x00 followed by the " +
	"RFC 8785 (JCS) canonical JSON of its fields without the hash; one chain by position, previous_hash 64 zeros for the first; " +
	"the log's Merkle tree is RFC 6962's over those leaf hashes, and checkpoint is a C2SP tlog-checkpoint note (origin, size, " +
	"base64 root) signed as a C2SP signed note with Ed25519 by public_key's key; consistency holds RFC 6962 consistency proofs " +
	"(hex) from earlier checkpoints to it. thoughts: hash = hex SHA-256 of JavaScript's JSON.stringify({task_id, type, content, " +
	"previous_hash, recorded_at, recorded_by}) (that key order, no spaces), one chain per task_id by position, previous_hash null " +
	"for the first. sessions: merkle_root is Colibri's over its leaves: SHA256(left||right) on raw bytes, an odd last node " +
	"promoted, sha256(\"\") for no leaves."

// Export reads the whole audit trail into a bundle and signs, with key,
// a checkpoint over exactly its records (stored too, as any checkpoint).
// A log that does not verify is not exported: a signature over it would
// vouch for the break.
func Export(ctx context.Context, s baton.Store, key *tlog.Key, now time.Time) (*Bundle, error) {
	b := &Bundle{Format: BundleFormat, Algorithm: bundleAlgorithm, GeneratedAt: Stamp(now), Origin: key.Origin(),
		PublicKey: key.VerifierKey, Consistency: []BundleConsistency{},
		Actions: []BundleAction{}, Thoughts: []BundleThought{}, Sessions: []BundleSession{}}
	var earlier []*baton.Checkpoint
	err := s.View(ctx, func(tx baton.Tx) error {
		var err error
		if earlier, err = tx.Checkpoints(ctx, 0); err != nil {
			return err
		}
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
	if err != nil {
		return nil, err
	}
	var v Verifier
	leaves := b.leaves(&v)
	if len(v.Broken) > 0 {
		return nil, brokenLog(v.Broken[0].Position, v.Broken[0].Reason)
	}
	n := uint64(len(leaves))
	tree := tlog.NewTree()
	for _, l := range leaves {
		if err := tree.Append(l); err != nil {
			return nil, err
		}
	}
	root := tree.Root()
	idx := tlog.NewIndex(leaves)
	// The log must still extend every checkpoint it signed: one cut short
	// or rewritten under a checkpoint is not exported (nor signed again).
	for _, e := range earlier {
		if uint64(e.Size) > n {
			return nil, brokenLog(int64(n)+1, fmt.Sprintf("the log holds %d records but it signed a checkpoint at %d (records were deleted)", n, e.Size))
		}
		if r, err := idx.Root(uint64(e.Size)); err != nil || hex.EncodeToString(r) != e.Root {
			return nil, brokenLog(e.Size, fmt.Sprintf("the log no longer gives the root of its checkpoint at size %d (the records were rewritten)", e.Size))
		}
	}
	for i := len(earlier) - 1; i >= 0; i-- {
		e := earlier[i]
		if uint64(e.Size) == n {
			continue
		}
		p, err := idx.ConsistencyProof(uint64(e.Size), n)
		if err != nil {
			return nil, err
		}
		b.Consistency = append(b.Consistency, BundleConsistency{Checkpoint: e.Note, Proof: hexAll(p)})
	}
	signed, err := tlog.Sign(key.Signer, n, root)
	if err != nil {
		return nil, err
	}
	b.Checkpoint = string(signed.Note)
	head := Genesis
	if n > 0 {
		head = b.Actions[n-1].Hash
	}
	cp := &baton.Checkpoint{Size: int64(n), Root: hex.EncodeToString(root), Note: b.Checkpoint, Edge: hexAll(tree.Hashes()), Head: head, At: now}
	if err := s.Update(ctx, func(tx baton.Tx) error { return tx.AddCheckpoint(ctx, cp) }); err != nil {
		return nil, err
	}
	return b, nil
}

// Verify checks a bundle on its own: both kinds of chain, every session's
// root against its leaves (each leaf a record of the bundle), the
// checkpoint's signature by key (a note verifier key; empty, the bundle's
// own public_key, which proves only that the bundle is self-consistent),
// that the checkpoint's root is the Merkle root of exactly the bundle's
// records, and every consistency proof.
func (b *Bundle) Verify(key string) (*Report, error) {
	rep := newReport()
	if key == "" {
		key = b.PublicKey
	}
	var v Verifier
	leaves := b.leaves(&v)
	known := map[string]bool{} // the records a session's leaves may name
	if len(b.Sessions) > 0 {
		for _, a := range b.Actions {
			known[a.Hash] = true
		}
	}
	rep.Actions, rep.ActionBreaks = v.Count(), append(rep.ActionBreaks, v.Broken...)
	n := uint64(len(leaves))
	given := []Given{{Source: "bundle", Note: []byte(b.Checkpoint)}}
	for _, c := range b.Consistency {
		given = append(given, Given{Source: "bundle (earlier)", Note: []byte(c.Checkpoint)})
	}
	checks, root, err := checkCheckpoints(tlog.NewIndex(leaves), given, key)
	if err != nil {
		return nil, err
	}
	rep.Root = hex.EncodeToString(root)
	if c := &checks[0]; c.Status == "consistent" && uint64(c.Size) != n {
		c.Status, c.Position = "diverged", c.Size+1
		c.Detail = fmt.Sprintf("the bundle holds %d records but its checkpoint signs %d: records %d to %d are not covered", n, c.Size, c.Size+1, n)
	}
	for i, c := range b.Consistency {
		ch := &checks[i+1]
		if ch.Status != "consistent" {
			continue
		}
		p, err := unhexAll(c.Proof)
		if err == nil {
			var from []byte
			from, err = hex.DecodeString(ch.Root)
			if err == nil {
				err = tlog.VerifyConsistency(uint64(ch.Size), n, p, from, root)
			}
		}
		if err != nil {
			ch.Status, ch.Detail = "diverged", "the bundle's consistency proof from this checkpoint does not verify: "+err.Error()
		}
	}
	rep.Checkpoints = checks
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
	return rep, nil
}

// leaves checks the bundle's action chain with v and gives each record's
// leaf hash as its content gives it.
func (b *Bundle) leaves(v *Verifier) [][]byte {
	leaves := leafHashes(len(b.Actions), func(i int) ActionFields { return b.Actions[i].ActionFields })
	for i := range b.Actions {
		v.addLeaf(&b.Actions[i].ActionFields, b.Actions[i].Hash, leaves[i])
	}
	return leaves
}

func unhexAll(hs []string) ([][]byte, error) {
	out := make([][]byte, len(hs))
	for i, h := range hs {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != tlog.HashSize {
			return nil, fmt.Errorf("proof hash %d is not %d bytes of hex", i, tlog.HashSize)
		}
		out[i] = b
	}
	return out, nil
}
