package audit

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tlog"
)

// OpenKey returns the action log's signing key from the private key file
// at path. The log's name and public key live in the database (audit_log)
// and the private key in the file, never in the database: whoever can
// write the database cannot sign for the log, and a PostgreSQL
// deployment keeps the file where its servers run.
//
// With create, a log without a key gets one (the file made mode 0600) and
// is named after it. A file that is not the log's key, or a log whose key
// file is gone, is an error saying which: a new key would sign checkpoints
// nobody can tie to the old ones.
func OpenKey(ctx context.Context, s baton.Store, path string, create bool, now time.Time) (*tlog.Key, error) {
	var id *baton.LogIdentity
	if err := s.View(ctx, func(tx baton.Tx) (err error) { id, err = tx.LogIdentity(ctx); return err }); err != nil {
		return nil, err
	}
	k, err := tlog.LoadKey(path)
	switch {
	case errors.Is(err, tlog.ErrNoKey) && id != nil:
		return nil, baton.Errorf(baton.ErrInitFailed, "the action log's key file %s is missing; the log %s is signed by %s", path, id.Origin, id.PublicKey).
			WithHint("restore the key file from your backup (or point [audit] key_file of baton.toml at it); a new key could not sign for this log")
	case errors.Is(err, tlog.ErrNoKey) && !create:
		return nil, baton.Errorf(baton.ErrNotFound, "the action log has no key yet (no %s)", path).
			WithHint("run `baton audit checkpoint` (or baton init, or baton serve) once to make it")
	case errors.Is(err, tlog.ErrNoKey):
		k, err = tlog.CreateKey(path, tlog.NewOrigin())
		if errors.Is(err, tlog.ErrKeyExists) { // made by another process meanwhile
			k, err = tlog.LoadKey(path)
		}
		if err != nil {
			return nil, baton.Errorf(baton.ErrInitFailed, "making the action log's key at %s: %v", path, err).
				WithHint("make the directory writable, or name another file with [audit] key_file in baton.toml")
		}
	case err != nil:
		return nil, baton.Errorf(baton.ErrInitFailed, "reading the action log's key: %v", err).
			WithHint("fix the file, or name the right one with [audit] key_file in baton.toml")
	}
	if id == nil {
		if err := s.Update(ctx, func(tx baton.Tx) error {
			if err := tx.SetLogIdentity(ctx, &baton.LogIdentity{Origin: k.Origin(), PublicKey: k.VerifierKey, CreatedAt: now}); err != nil {
				return err
			}
			id, err = tx.LogIdentity(ctx)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if id.PublicKey != k.VerifierKey {
		return nil, baton.Errorf(baton.ErrInitFailed, "the key file %s is not the action log's key: it is %s, the log is signed by %s",
			path, k.VerifierKey, id.PublicKey).
			WithHint("point [audit] key_file of baton.toml at this log's key file")
	}
	return k, nil
}

// MakeCheckpoint signs and stores a checkpoint of the action log as it is
// now, resuming the tree from the latest stored checkpoint, so its cost is
// that of the records since (a log of a million records is not read
// again). Every new record is checked first: it must link to the one
// before and its content must give its hash; a log broken there is not
// signed. With nothing new since the latest checkpoint, that one is
// returned and made is false.
func MakeCheckpoint(ctx context.Context, s baton.Store, key *tlog.Key, now time.Time) (cp *baton.Checkpoint, made bool, err error) {
	var tree *tlog.Tree
	prev := Genesis // the hash of the last record the tree holds
	err = s.View(ctx, func(tx baton.Tx) error {
		latest, err := tx.Checkpoints(ctx, 1)
		if err != nil {
			return err
		}
		if len(latest) == 1 {
			cp = latest[0]
			if tree, err = resume(cp); err != nil {
				return err
			}
			if cp.Size > 0 {
				last, err := tx.Actions(ctx, cp.Size-1, 1)
				if err != nil {
					return err
				}
				if len(last) == 0 || last[0].Position != cp.Size {
					return brokenLog(cp.Size, "the record this log's latest checkpoint ends at is gone (the log was cut short)")
				}
				// The tree resumes from the checkpoint's edge, so the records
				// it covers must be the ones it was signed over: the record
				// at its size still has the hash it had, and its content
				// still gives it (a log rewritten below it fails here, not
				// signed over).
				var h [32]byte
				ActionOf(last[0]).LeafHash(&h)
				if last[0].Hash != cp.Head || hex.EncodeToString(h[:]) != cp.Head {
					return brokenLog(cp.Size, "the record the latest checkpoint ends at is no longer the one it was signed over (the log was rewritten)")
				}
				prev = last[0].Hash
			}
		} else {
			tree = tlog.NewTree()
		}
		var h [32]byte
		for {
			acts, err := tx.Actions(ctx, int64(tree.Size()), batch)
			if err != nil {
				return err
			}
			for _, a := range acts {
				f := ActionOf(a)
				f.LeafHash(&h)
				switch {
				case a.Position != int64(tree.Size())+1:
					return brokenLog(int64(tree.Size())+1, "a record is missing")
				case a.PreviousHash != prev:
					return brokenLog(a.Position, "its previous_hash is not the hash of the record before it")
				case hex.EncodeToString(h[:]) != a.Hash:
					return brokenLog(a.Position, "its content no longer gives its hash")
				}
				if err := tree.Append(append([]byte(nil), h[:]...)); err != nil {
					return err
				}
				prev = a.Hash
			}
			if len(acts) < batch {
				return nil
			}
		}
	})
	if err != nil {
		return nil, false, err
	}
	if cp != nil && uint64(cp.Size) == tree.Size() {
		return cp, false, nil
	}
	signed, err := tlog.Sign(key.Signer, tree.Size(), tree.Root())
	if err != nil {
		return nil, false, err
	}
	cp = &baton.Checkpoint{Size: int64(tree.Size()), Root: hex.EncodeToString(tree.Root()), Note: string(signed.Note),
		Edge: hexAll(tree.Hashes()), Head: prev, At: now}
	if err := s.Update(ctx, func(tx baton.Tx) error { return tx.AddCheckpoint(ctx, cp) }); err != nil {
		return nil, false, err
	}
	return cp, true, nil
}

func brokenLog(pos int64, why string) error {
	return baton.Errorf(baton.ErrConflict, "the action log is broken at position %d: %s; no checkpoint is signed over a broken log", pos, why).
		WithDetails("position", pos).
		WithHint("run `baton audit verify` to see every break")
}

// resume rebuilds the tree's right edge a stored checkpoint kept.
func resume(cp *baton.Checkpoint) (*tlog.Tree, error) {
	hashes := make([][]byte, len(cp.Edge))
	for i, e := range cp.Edge {
		b, err := hex.DecodeString(e)
		if err != nil || len(b) != tlog.HashSize {
			return nil, fmt.Errorf("audit: the stored checkpoint at size %d has a damaged tree edge", cp.Size)
		}
		hashes[i] = b
	}
	t, err := tlog.ResumeTree(uint64(cp.Size), hashes)
	if err != nil {
		return nil, err
	}
	if hex.EncodeToString(t.Root()) != cp.Root {
		return nil, fmt.Errorf("audit: the stored checkpoint at size %d: its tree edge does not give its root", cp.Size)
	}
	return t, nil
}

func hexAll(hs [][]byte) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = hex.EncodeToString(h)
	}
	return out
}
