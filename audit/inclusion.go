package audit

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tlog"
)

// InclusionProofFormat names an action's inclusion proof, for readers
// elsewhere.
const InclusionProofFormat = "baton-inclusion-proof/1"

// InclusionProof shows that one action is in the log a signed checkpoint
// commits to: the record's fields (whose RFC 8785 JSON gives LeafHash as
// its RFC 6962 leaf), its RFC 6962 inclusion path (hex, leaf to root), and
// the checkpoint whose root the path reaches. Anyone can check it with
// SHA-256 and the log's public key.
type InclusionProof struct {
	Format     string       `json:"format"`
	Record     BundleAction `json:"record"`
	LeafIndex  int64        `json:"leaf_index"` // position - 1
	TreeSize   int64        `json:"tree_size"`
	LeafHash   string       `json:"leaf_hash"`
	Path       []string     `json:"inclusion_path"`
	Root       string       `json:"root"`
	Checkpoint string       `json:"checkpoint"`
}

// ProveAction proves the action at position is in the log under the
// latest stored checkpoint, which must cover it. The log is read and checked up to
// that checkpoint: a log that no longer gives the checkpoint's root
// proves nothing, and says so.
func ProveAction(ctx context.Context, s baton.Store, position int64) (*InclusionProof, error) {
	var cps []*baton.Checkpoint
	if err := s.View(ctx, func(tx baton.Tx) (err error) { cps, err = tx.Checkpoints(ctx, 0); return err }); err != nil {
		return nil, err
	}
	var cp *baton.Checkpoint
	if len(cps) > 0 && cps[0].Size >= position { // the latest, the one a witness holds last
		cp = cps[0]
	}
	if position < 1 || cp == nil {
		return nil, baton.Errorf(baton.ErrNotFound, "no signed checkpoint covers position %d", position).
			WithDetails("position", position).
			WithHint("sign one with `baton audit checkpoint`, then prove a position from 1 to its size")
	}
	var v Verifier
	var record BundleAction
	leaves, err := readLeaves(ctx, s, &v, cp.Size, func(a *baton.Action, f ActionFields) {
		if a.Position == position {
			record = BundleAction{ActionFields: f, Hash: a.Hash}
		}
	})
	if err != nil {
		return nil, err
	}
	if len(v.Broken) > 0 {
		return nil, brokenLog(v.Broken[0].Position, v.Broken[0].Reason)
	}
	idx := tlog.NewIndex(leaves)
	if int64(len(leaves)) < cp.Size {
		return nil, brokenLog(int64(len(leaves))+1, "the log is shorter than its checkpoint (records were deleted)")
	}
	if r, err := idx.Root(uint64(cp.Size)); err != nil || hex.EncodeToString(r) != cp.Root {
		return nil, brokenLog(cp.Size, "the log no longer gives the root of its checkpoint")
	}
	path, err := idx.InclusionProof(uint64(position-1), uint64(cp.Size))
	if err != nil {
		return nil, err
	}
	return &InclusionProof{Format: InclusionProofFormat, Record: record, LeafIndex: position - 1, TreeSize: cp.Size,
		LeafHash: hex.EncodeToString(leaves[position-1]), Path: hexAll(path), Root: cp.Root, Checkpoint: cp.Note}, nil
}

// Check verifies the proof on its own: the record's fields give its leaf
// hash, the path leads from that leaf to the root, and the checkpoint,
// signed by key (a note verifier key; none checked when empty), commits
// to that size and root. It reports whether the signature was checked.
func (p *InclusionProof) Check(key string) (signed bool, err error) {
	if p.Format != InclusionProofFormat {
		return false, fmt.Errorf("format %q is not %s", p.Format, InclusionProofFormat)
	}
	var leaf [32]byte
	p.Record.ActionFields.LeafHash(&leaf)
	if hex.EncodeToString(leaf[:]) != p.LeafHash || p.Record.Hash != p.LeafHash {
		return false, errors.New("the record's fields do not give its leaf hash")
	}
	if p.Record.Position != p.LeafIndex+1 {
		return false, fmt.Errorf("the record is at position %d, not leaf %d", p.Record.Position, p.LeafIndex)
	}
	path, err := unhexAll(p.Path)
	if err != nil {
		return false, err
	}
	root, err := hex.DecodeString(p.Root)
	if err != nil {
		return false, errors.New("the root is not hex")
	}
	if err := tlog.VerifyInclusion(uint64(p.LeafIndex), uint64(p.TreeSize), leaf[:], path, root); err != nil {
		return false, fmt.Errorf("the inclusion path does not lead to the root: %v", err)
	}
	var cp *tlog.Checkpoint
	if key != "" {
		cp, err = tlog.Open([]byte(p.Checkpoint), key)
	} else {
		cp, err = tlog.Parse([]byte(p.Checkpoint))
	}
	if err != nil {
		return false, err
	}
	if int64(cp.Size) != p.TreeSize || hex.EncodeToString(cp.Root) != p.Root {
		return false, fmt.Errorf("the checkpoint commits to size %d and another root, not to this proof's", cp.Size)
	}
	return key != "", nil
}
