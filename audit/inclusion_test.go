package audit_test

import (
	"encoding/json"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tlog"
)

// TestProveAction: an action's inclusion proof, under the latest
// checkpoint, verifies on its own (the record's fields, the path, the
// signed checkpoint) for every position, also after a JSON round trip;
// a changed field, a changed path hash, another key, or a position past
// the checkpoint fails.
func TestProveAction(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		l := newTamperLog(t, b)
		for _, pos := range []int64{1, 2, 17, 39, 40} {
			p, err := audit.ProveAction(l.ctx, l.s, pos)
			if err != nil {
				t.Fatalf("ProveAction(%d): %v", pos, err)
			}
			raw, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var back audit.InclusionProof
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			if signed, err := back.Check(l.key.VerifierKey); err != nil || !signed || back.Record.Position != pos || back.TreeSize != 40 {
				t.Fatalf("position %d: %v signed=%v %+v", pos, err, signed, back)
			}
			forged := back
			forged.Record.Agent = "mallory"
			if _, err := forged.Check(l.key.VerifierKey); err == nil {
				t.Errorf("position %d: a changed record verified", pos)
			}
			if len(back.Path) > 0 {
				bent := back
				bent.Path = append([]string{}, back.Path...)
				bent.Path[0] = audit.Sum([]byte("x"))
				if _, err := bent.Check(l.key.VerifierKey); err == nil {
					t.Errorf("position %d: a changed path verified", pos)
				}
			}
			_, other := newKeyFile(t, tlog.NewOrigin())
			if _, err := back.Check(other.VerifierKey); err == nil {
				t.Errorf("position %d: verified with another log's key", pos)
			}
		}
		if _, err := audit.ProveAction(l.ctx, l.s, 41); baton.ErrorCode(err) != baton.ErrNotFound {
			t.Errorf("a position past the checkpoint: %v", err)
		}
		l.exec(t, `UPDATE actions SET agent = 'mallory' WHERE position = 12`)
		if _, err := audit.ProveAction(l.ctx, l.s, 3); baton.ErrorCode(err) != baton.ErrConflict {
			t.Errorf("proving in a broken log: %v, want ERR_CONFLICT", err)
		}
	})
}
