package audit_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tlog"
)

// The tests here attack a real action log the way someone who can write
// the database would, with raw SQL beside the store, and check that the
// checkpoints a witness kept (their notes, copied out as they were
// signed) catch each attack and name where it is. They run on SQLite and,
// when BATON_TEST_POSTGRES_URL is set, on PostgreSQL.

// tamperLogSize is how many actions the log holds; a checkpoint is signed
// every checkpointEvery of them.
const (
	tamperLogSize   = 40
	checkpointEvery = 10
)

// backend opens an empty store and a second connection to its database
// (queries with ? placeholders go through rebind).
type backend struct {
	name string
	open func(t *testing.T) (s baton.Store, db *sql.DB, rebind func(string) string)
}

var backends = []backend{
	{"sqlite", func(t *testing.T) (baton.Store, *sql.DB, func(string) string) {
		path := filepath.Join(t.TempDir(), "baton.db")
		s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return s, db, func(q string) string { return q }
	}},
	{"postgres", func(t *testing.T) (baton.Store, *sql.DB, func(string) string) {
		if os.Getenv("BATON_TEST_POSTGRES_URL") == "" {
			t.Skip("BATON_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable): not run on PostgreSQL")
		}
		s := testkit.OpenPostgres(t, nil)
		return s, s.DB(), postgres.Rebind
	}},
}

// eachBackend runs fn as a subtest on every backend.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

// tamperLog is a signed log under attack.
type tamperLog struct {
	ctx    context.Context
	s      baton.Store
	db     *sql.DB
	rebind func(string) string
	key    *tlog.Key
	// witness holds the notes of the checkpoints at 10, 20, 30 and 40, as
	// a witness copied them when they were signed.
	witness []audit.Given
}

// newKeyFile makes a log key file named origin and returns its path and
// the key.
func newKeyFile(t *testing.T, origin string) (string, *tlog.Key) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.key")
	k, err := tlog.CreateKey(path, origin)
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return path, k
}

// tamperChange is the i-th action of the log (from 1).
func tamperChange(i int) audit.Change {
	return audit.Change{Agent: fmt.Sprintf("agent-%02d\u2028", i%7), Source: "mcp", Tool: "task_update",
		Subject: fmt.Sprintf("COL-%d", i), In: map[string]any{"i": i}, Out: map[string]any{"ok": true, "n": i},
		At: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)}
}

// appendActions records the actions from+1 to to, one transaction each.
func (l *tamperLog) appendActions(t *testing.T, from, to int) {
	t.Helper()
	for i := from + 1; i <= to; i++ {
		if err := l.s.Update(l.ctx, func(tx baton.Tx) error { return audit.Record(l.ctx, tx, tamperChange(i)) }); err != nil {
			t.Fatal(err)
		}
	}
}

// newTamperLog builds a log of 40 actions with its key and checkpoints at
// 10, 20, 30 and 40, each checked against the Merkle root of its first
// records computed here from the records themselves (so resuming from
// the stored tree edge gives the same root as starting over).
func newTamperLog(t *testing.T, b backend) *tamperLog {
	t.Helper()
	s, db, rebind := b.open(t)
	l := &tamperLog{ctx: context.Background(), s: s, db: db, rebind: rebind}
	path, _ := newKeyFile(t, tlog.NewOrigin())
	var err error
	if l.key, err = audit.OpenKey(l.ctx, s, path, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	for size := checkpointEvery; size <= tamperLogSize; size += checkpointEvery {
		l.appendActions(t, size-checkpointEvery, size)
		cp, made, err := audit.MakeCheckpoint(l.ctx, s, l.key, time.Now())
		if err != nil {
			t.Fatalf("checkpoint at %d: %v", size, err)
		}
		if want := rootOf(l.leaves(t)[:size]); !made || cp.Size != int64(size) || cp.Root != want {
			t.Fatalf("checkpoint at %d: made %v, size %d, root %s; want a new one at %d with root %s", size, made, cp.Size, cp.Root, size, want)
		}
		l.witness = append(l.witness, audit.Given{Source: "witness", Note: []byte(cp.Note)})
	}
	return l
}

// actions reads the log as the store gives it.
func (l *tamperLog) actions(t *testing.T) []*baton.Action {
	t.Helper()
	var acts []*baton.Action
	if err := l.s.View(l.ctx, func(tx baton.Tx) (err error) {
		acts, err = tx.Actions(l.ctx, 0, 1000)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return acts
}

// leaves are the records' leaf hashes as their content gives them.
func (l *tamperLog) leaves(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, a := range l.actions(t) {
		h, err := hex.DecodeString(audit.ActionOf(a).Hash())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

func rootOf(leaves [][]byte) string { return hex.EncodeToString(tlog.Root(leaves)) }

// exec runs one statement on the second connection.
func (l *tamperLog) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := l.db.ExecContext(l.ctx, l.rebind(query), args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// rewrite sets one record's content columns to a's, leaving its position,
// previous_hash and hash alone.
func (l *tamperLog) rewrite(t *testing.T, pos int64, a *baton.Action) {
	t.Helper()
	l.exec(t, `UPDATE actions SET agent = ?, source = ?, tool = ?, subject = ?, input_digest = ?, result_digest = ?, at = ?
		WHERE position = ?`, a.Agent, a.Source, a.Tool, a.Subject, a.InputDigest, a.ResultDigest, audit.Stamp(a.At), pos)
}

// rehashFrom recomputes previous_hash and hash of every record from
// position from on with the log's own rule, as a careful attacker would,
// so the chain links again.
func (l *tamperLog) rehashFrom(t *testing.T, from int64) {
	t.Helper()
	prev := audit.Genesis
	for _, a := range l.actions(t) {
		if a.Position >= from {
			f := audit.ActionOf(a)
			f.PreviousHash = prev
			a.Hash = f.Hash()
			l.exec(t, `UPDATE actions SET previous_hash = ?, hash = ? WHERE position = ?`, prev, a.Hash, a.Position)
		}
		prev = a.Hash
	}
}

// verify checks the log against its own checkpoints and the given ones.
func (l *tamperLog) verify(t *testing.T, given []audit.Given) *audit.Report {
	t.Helper()
	rep, err := audit.VerifyStoreWith(l.ctx, l.s, audit.VerifyOptions{Checkpoints: given})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// expect is what one checkpoint (by source and size) must say.
type expect struct {
	source    string
	size      int64
	status    string
	position  int64
	signature string // "verified" when empty
}

// consistent, truncated and diverged are expectations of a source's
// checkpoints at sizes.
func consistent(source string, sizes ...int64) []expect {
	out := make([]expect, len(sizes))
	for i, n := range sizes {
		out[i] = expect{source: source, size: n, status: "consistent"}
	}
	return out
}

func truncated(source string, size, pos int64) expect {
	return expect{source: source, size: size, status: "truncated", position: pos}
}

func diverged(source string, pos int64, sizes ...int64) []expect {
	out := make([]expect, len(sizes))
	for i, n := range sizes {
		out[i] = expect{source: source, size: n, status: "diverged", position: pos}
	}
	return out
}

// checkCheckpoints asserts the report checked exactly the checkpoints
// want lists, each with the status, position and signature listed.
func checkCheckpoints(t *testing.T, rep *audit.Report, want []expect) {
	t.Helper()
	key := func(source string, size int64) string { return fmt.Sprintf("%s@%d", source, size) }
	got := map[string]audit.CheckpointCheck{}
	for _, c := range rep.Checkpoints {
		k := key(c.Source, c.Size)
		if _, dup := got[k]; dup {
			t.Errorf("checkpoint %s reported twice", k)
		}
		got[k] = c
	}
	for _, w := range want {
		k := key(w.source, w.size)
		c, ok := got[k]
		if !ok {
			t.Errorf("checkpoint %s is not reported", k)
			continue
		}
		delete(got, k)
		sig := w.signature
		if sig == "" {
			sig = "verified"
		}
		if c.Status != w.status || c.Position != w.position || c.Signature != sig {
			t.Errorf("checkpoint %s: %s at %d, signature %s (%s); want %s at %d, signature %s",
				k, c.Status, c.Position, c.Signature, c.Detail, w.status, w.position, sig)
		}
	}
	for k, c := range got {
		t.Errorf("checkpoint %s reported but not expected: %+v", k, c)
	}
}

// checkProofs asserts that the largest consistent checkpoint of each
// source, and only it, carries a consistency proof to the log today, and
// that the proof verifies as any verifier would check it.
func checkProofs(t *testing.T, rep *audit.Report) {
	t.Helper()
	now, err := hex.DecodeString(rep.Root)
	if err != nil {
		t.Fatal(err)
	}
	latest := map[string]int64{}
	for _, c := range rep.Checkpoints {
		if c.Status == "consistent" {
			latest[c.Source] = max(latest[c.Source], c.Size)
		}
	}
	for _, c := range rep.Checkpoints {
		isLatest := c.Status == "consistent" && c.Size == latest[c.Source]
		switch {
		case !isLatest && c.Proof != nil:
			t.Errorf("%s@%d (%s) has a proof but is not its source's latest consistent checkpoint", c.Source, c.Size, c.Status)
		case isLatest && c.Proof == nil:
			t.Errorf("%s@%d is its source's latest consistent checkpoint but has no proof", c.Source, c.Size)
		case isLatest:
			p := make([][]byte, len(c.Proof))
			for i, h := range c.Proof {
				if p[i], err = hex.DecodeString(h); err != nil {
					t.Fatal(err)
				}
			}
			from, err := hex.DecodeString(c.Root)
			if err != nil {
				t.Fatal(err)
			}
			if err := tlog.VerifyConsistency(uint64(c.Size), uint64(rep.Actions), p, from, now); err != nil {
				t.Errorf("%s@%d: the consistency proof to %d does not verify: %v", c.Source, c.Size, rep.Actions, err)
			}
		}
	}
}

// TestTamperWitnessCatchesAttacks applies each attack to a fresh copy of a
// signed 40-record log and shows what VerifyStoreWith, given the
// witness's copies of the checkpoints at 10, 20, 30 and 40, reports: the
// log is not OK, each checkpoint says consistent, truncated (from the
// first missing position), diverged (from the first position after the
// largest checkpoint that still holds) or unsigned, and an unhashed
// change is an action break at its position. The untouched log is the
// control: everything consistent and OK. Every latest consistent
// checkpoint's consistency proof verifies.
func TestTamperWitnessCatchesAttacks(t *testing.T) {
	cases := []struct {
		name   string
		attack func(t *testing.T, l *tamperLog) []audit.Given // returns checkpoints given besides the witness's
		want   []expect
		breaks []int64 // positions of the action breaks
		ok     bool
	}{
		{
			name:   "untouched",
			attack: func(t *testing.T, l *tamperLog) []audit.Given { return nil },
			want:   slices.Concat(consistent("log", 10, 20, 30, 40), consistent("witness", 10, 20, 30, 40)),
			ok:     true,
		},
		{
			name: "delete the newest record and its checkpoint",
			attack: func(t *testing.T, l *tamperLog) []audit.Given {
				l.exec(t, `DELETE FROM actions WHERE position = 40`)
				l.exec(t, `DELETE FROM audit_checkpoints WHERE size >= 40`)
				return nil
			},
			want: slices.Concat(consistent("log", 10, 20, 30), consistent("witness", 10, 20, 30),
				[]expect{truncated("witness", 40, 40)}),
		},
		{
			name: "delete the newest 5 records and every checkpoint",
			attack: func(t *testing.T, l *tamperLog) []audit.Given {
				l.exec(t, `DELETE FROM actions WHERE position > 35`)
				l.exec(t, `DELETE FROM audit_checkpoints`)
				return nil
			},
			want: slices.Concat(consistent("witness", 10, 20, 30), []expect{truncated("witness", 40, 36)}),
		},
		{
			name: "rewrite record 25 and re-hash after it",
			attack: func(t *testing.T, l *tamperLog) []audit.Given {
				l.exec(t, `UPDATE actions SET agent = 'mallory' WHERE position = 25`)
				l.rehashFrom(t, 25)
				l.exec(t, `DELETE FROM audit_checkpoints`)
				return nil
			},
			want: slices.Concat(consistent("witness", 10, 20), diverged("witness", 21, 30, 40)),
		},
		{
			name: "swap records 15 and 16 and re-hash after them",
			attack: func(t *testing.T, l *tamperLog) []audit.Given {
				acts := l.actions(t)
				a15, a16 := acts[14], acts[15]
				l.rewrite(t, 15, a16)
				l.rewrite(t, 16, a15)
				l.rehashFrom(t, 15)
				l.exec(t, `DELETE FROM audit_checkpoints`)
				return nil
			},
			want: slices.Concat(consistent("witness", 10), diverged("witness", 11, 20, 30, 40)),
		},
		{
			name: "rewrite record 25 without re-hashing",
			attack: func(t *testing.T, l *tamperLog) []audit.Given {
				l.exec(t, `UPDATE actions SET agent = 'mallory' WHERE position = 25`)
				return nil
			},
			want: slices.Concat(consistent("log", 10, 20), diverged("log", 21, 30, 40),
				consistent("witness", 10, 20), diverged("witness", 21, 30, 40)),
			breaks: []int64{25},
		},
		{
			name: "a forged witness note",
			attack: func(t *testing.T, l *tamperLog) []audit.Given {
				// Another key under the log's own name signs a checkpoint
				// at 40 with a root the log does not give: were the
				// signature not checked, it would read as diverged.
				_, forger := newKeyFile(t, l.key.Origin())
				cp, err := tlog.Sign(forger.Signer, 40, tlog.EmptyRoot())
				if err != nil {
					t.Fatal(err)
				}
				return []audit.Given{{Source: "forged", Note: cp.Note}}
			},
			want: slices.Concat(consistent("log", 10, 20, 30, 40), consistent("witness", 10, 20, 30, 40),
				[]expect{{source: "forged", size: 40, status: "unsigned", signature: "invalid"}}),
		},
	}
	eachBackend(t, func(t *testing.T, b backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				l := newTamperLog(t, b)
				given := append(slices.Clone(l.witness), tc.attack(t, l)...)
				rep := l.verify(t, given)
				if rep.OK() != tc.ok {
					t.Errorf("OK() = %v, want %v", rep.OK(), tc.ok)
				}
				var breaks []int64
				for _, br := range rep.ActionBreaks {
					breaks = append(breaks, br.Position)
				}
				if !slices.Equal(breaks, tc.breaks) {
					t.Errorf("action breaks at %v, want %v: %+v", breaks, tc.breaks, rep.ActionBreaks)
				}
				checkCheckpoints(t, rep, tc.want)
				checkProofs(t, rep)
			})
		}
	})
}

// TestTamperGapInPositions: a record deleted from the middle of the log,
// the records after it re-linked and re-hashed with their positions kept,
// leaves a gap in the positions the records themselves carry (each
// record's position is hashed). The witness catches it (the checkpoint at
// 30 diverged from 21, the one at 40 cut short), and the log's own walk
// must report the gap at the record after it, as MakeCheckpoint refuses
// such a log ("a record is missing") and the upgrade's re-chain counts it
// as a break.
func TestTamperGapInPositions(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		l := newTamperLog(t, b)
		l.exec(t, `DELETE FROM actions WHERE position = 25`)
		l.rehashFrom(t, 26)
		l.exec(t, `DELETE FROM audit_checkpoints`)
		rep := l.verify(t, l.witness)
		if rep.OK() {
			t.Error("a log with a record deleted verifies against the witness")
		}
		checkCheckpoints(t, rep, slices.Concat(consistent("witness", 10, 20), diverged("witness", 21, 30),
			[]expect{truncated("witness", 40, 40)}))
		checkProofs(t, rep)
		// Without any checkpoint, the positions still show the deletion.
		rep = l.verify(t, nil)
		if len(rep.ActionBreaks) == 0 || rep.ActionBreaks[0].Position != 26 {
			t.Errorf("the log's own walk reports breaks %+v; want the gap before position 26 (record 25 is gone)", rep.ActionBreaks)
		}
		if _, _, err := audit.MakeCheckpoint(l.ctx, l.s, l.key, time.Now()); err == nil {
			t.Error("MakeCheckpoint signs a log with a gap in its positions")
		}
	})
}

// TestTamperMakeCheckpointRefusesABrokenLog: MakeCheckpoint checks every
// record after the latest checkpoint before it signs: a record changed
// without its hash, one deleted (a gap), the checkpoint's own last record
// gone, or the records under the checkpoint rewritten and re-hashed (its
// last record's hash is not the one it was signed over) is an
// ERR_CONFLICT naming the position, and no checkpoint is stored.
func TestTamperMakeCheckpointRefusesABrokenLog(t *testing.T) {
	cases := []struct {
		name   string
		attack string
		pos    int64
		rehash int64 // re-hash the chain from here after the attack, as a careful attacker would
	}{
		{"a record after the checkpoint changed", `UPDATE actions SET agent = 'mallory' WHERE position = 43`, 43, 0},
		{"a record after the checkpoint deleted", `DELETE FROM actions WHERE position = 42`, 42, 0},
		{"the checkpoint's last record deleted", `DELETE FROM actions WHERE position = 40`, 40, 0},
		// The stored tree edge still gives the checkpoint's root, but the
		// records under it are not those it was signed over any more.
		{"a record under the checkpoint rewritten and re-hashed", `UPDATE actions SET agent = 'mallory' WHERE position = 25`, 40, 25},
	}
	eachBackend(t, func(t *testing.T, b backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				l := newTamperLog(t, b)
				l.appendActions(t, tamperLogSize, tamperLogSize+5)
				l.exec(t, tc.attack)
				if tc.rehash > 0 {
					l.rehashFrom(t, tc.rehash)
				}
				cp, _, err := audit.MakeCheckpoint(l.ctx, l.s, l.key, time.Now())
				if err == nil {
					t.Fatalf("MakeCheckpoint signed the broken log: %+v", cp)
				}
				e := baton.AsError(err)
				if e.Code != baton.ErrConflict || e.Details["position"] != tc.pos {
					t.Errorf("error %v (details %v), want %s at position %d", err, e.Details, baton.ErrConflict, tc.pos)
				}
				if n := l.latestCheckpoint(t).Size; n != tamperLogSize {
					t.Errorf("the latest stored checkpoint is at %d, want still %d", n, tamperLogSize)
				}
			})
		}
	})
}

// latestCheckpoint is the largest stored checkpoint.
func (l *tamperLog) latestCheckpoint(t *testing.T) *baton.Checkpoint {
	t.Helper()
	var cps []*baton.Checkpoint
	if err := l.s.View(l.ctx, func(tx baton.Tx) (err error) {
		cps, err = tx.Checkpoints(l.ctx, 1)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 {
		t.Fatalf("%d checkpoints stored, want one", len(cps))
	}
	return cps[0]
}

// TestTamperMakeCheckpointResumes: with nothing new since the latest
// checkpoint, MakeCheckpoint signs nothing and returns that checkpoint;
// with new records it resumes from the stored tree edge, and the root it
// signs is the root VerifyStore computes over the whole log, which also
// finds every stored checkpoint consistent with a verifying proof.
func TestTamperMakeCheckpointResumes(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		l := newTamperLog(t, b)
		before := l.latestCheckpoint(t)
		cp, made, err := audit.MakeCheckpoint(l.ctx, l.s, l.key, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if made || cp.Size != before.Size || cp.Note != before.Note || cp.Root != before.Root {
			t.Errorf("nothing new: made %v, checkpoint at %d (%s); want the one at %d returned", made, cp.Size, cp.Root, before.Size)
		}
		// Resume from the edge at 40 (a perfect subtree under 32 and one
		// of 8), then from the one at 47 (four subtrees), then check.
		sizes := []int64{10, 20, 30, 40}
		for _, add := range []int{0, 7, 1} {
			if add > 0 {
				size := int(cp.Size) + add
				l.appendActions(t, int(cp.Size), size)
				if cp, made, err = audit.MakeCheckpoint(l.ctx, l.s, l.key, time.Now()); err != nil || !made || cp.Size != int64(size) {
					t.Fatalf("checkpoint at %d: %+v, made %v, %v", size, cp, made, err)
				}
				sizes = append(sizes, cp.Size)
			}
			rep, err := audit.VerifyStore(l.ctx, l.s)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Root != cp.Root || rep.Actions != cp.Size || !rep.OK() {
				t.Errorf("VerifyStore gives root %s over %d records (OK %v); the checkpoint at %d signs %s",
					rep.Root, rep.Actions, rep.OK(), cp.Size, cp.Root)
			}
			checkCheckpoints(t, rep, consistent("log", sizes...))
			checkProofs(t, rep)
		}
	})
}
