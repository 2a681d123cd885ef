package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tlog"
)

// The tests here build an action log, rewrite it on disk as a database of
// schema version 27 holds it (hashes by the rule before migration 28,
// audit.ActionFields.LegacyHash, chained from audit.Genesis), queue it as
// migration 28 does, and open the file again: sqlite.Open re-hashes it
// (sqlcore.RechainActions) before anything else runs.

// awkward are field values whose JSON differs between the old rule (Go's
// encoding/json: U+2028 and U+2029 escaped) and the new one (RFC 8785:
// written as they are), with quotes, backslashes, controls, HTML
// characters and characters outside the BMP besides.
var awkward = []string{
	"agent\u2028alice",
	"line\u2029sep <&> \"q\" \\ \x01\x1f\b\f",
	"é 😀 \u007f",
	"",
}

// rechainChanges are n changes with awkward agents and subjects at fixed,
// distinct times.
func rechainChanges(n int, subject string) []audit.Change {
	base := time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)
	out := make([]audit.Change, n)
	for i := range out {
		sub := subject
		if sub == "" {
			sub = "subj\u2028" + awkward[i%len(awkward)]
		}
		out[i] = audit.Change{Agent: awkward[i%len(awkward)] + "-agent", Source: "mcp", Tool: "task_update",
			Subject: sub, In: map[string]any{"i": i, "text": awkward[(i+1)%len(awkward)]}, Out: map[string]any{"ok": true},
			At: base.Add(time.Duration(i) * time.Second)}
	}
	return out
}

// record appends the changes' actions, one transaction each.
func record(ctx context.Context, t *testing.T, s baton.Store, changes []audit.Change) {
	t.Helper()
	for _, c := range changes {
		if err := s.Update(ctx, func(tx baton.Tx) error { return audit.Record(ctx, tx, c) }); err != nil {
			t.Fatalf("record %s: %v", c.Tool, err)
		}
	}
}

// allActions reads the whole action log.
func allActions(ctx context.Context, t *testing.T, s baton.Store) []*baton.Action {
	t.Helper()
	var acts []*baton.Action
	if err := s.View(ctx, func(tx baton.Tx) (err error) {
		acts, err = tx.Actions(ctx, 0, 100_000)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return acts
}

// encodingJSONHash is the old rule written independently of audit: SHA-256
// over encoding/json's output (HTML escaping off, keys sorted) of the
// fields.
func encodingJSONHash(t *testing.T, f audit.ActionFields) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"agent": f.Agent, "at": f.At, "input_digest": f.InputDigest, "position": f.Position,
		"previous_hash": f.PreviousHash, "result_digest": f.ResultDigest, "source": f.Source, "subject": f.Subject, "tool": f.Tool}); err != nil {
		t.Fatal(err)
	}
	return audit.Sum(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// toLegacy rewrites every action's previous_hash and hash in the file as
// the old rule had them, chained from Genesis, and returns the old head.
// Each hash is checked against encodingJSONHash first, so the test's old
// log is what the old code wrote.
func toLegacy(t *testing.T, db *sql.DB, acts []*baton.Action) string {
	t.Helper()
	prev := audit.Genesis
	for _, a := range acts {
		f := audit.ActionOf(a)
		f.PreviousHash = prev
		old := f.LegacyHash()
		if ref := encodingJSONHash(t, f); old != ref {
			t.Fatalf("action %d: LegacyHash %s, encoding/json gives %s", a.Position, old, ref)
		}
		if _, err := db.Exec(`UPDATE actions SET previous_hash = ?, hash = ? WHERE position = ?`, prev, old, a.Position); err != nil {
			t.Fatal(err)
		}
		prev = old
	}
	return prev
}

// queueRechain puts the file back at version 27 with its action log queued
// for re-hashing, as migration 28 leaves an existing database.
func queueRechain(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []string{`INSERT INTO action_rechain (id, pending) VALUES (1, 1)`, `DELETE FROM audit_checkpoints`,
		`PRAGMA user_version = 27`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// rechainsOf reads the recorded re-chains.
func rechainsOf(ctx context.Context, t *testing.T, s baton.Store) []baton.ActionRechain {
	t.Helper()
	var rs []baton.ActionRechain
	if err := s.View(ctx, func(tx baton.Tx) (err error) {
		rs, err = tx.ActionRechains(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return rs
}

// upgradeLegacyLog records changes on a new file, rewrites the log by the
// old rule (running tamper on the file, if set, after that), queues the
// re-chain and opens the file again. It returns the reopened store, the
// actions as first recorded (the hashes the new rule gives) and the old
// head.
func upgradeLegacyLog(t *testing.T, changes []audit.Change, tamper func(db *sql.DB)) (*sqlite.Store, []*baton.Action, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s := open(t, path)
	record(ctx, t, s, changes)
	want := allActions(ctx, t, s)
	s.Close()
	db := rawDB(t, path)
	oldHead := toLegacy(t, db, want)
	if tamper != nil {
		tamper(db)
	}
	queueRechain(t, db)
	db.Close()
	return open(t, path), want, oldHead
}

// checkRechained asserts that the log reads back as the first n records
// want (new hashes and links) followed by one audit_rechain action
// chained to them whose hash its content gives, and that exactly one
// re-chain is recorded, of n records from oldHead, with firstBreak, at
// that action's position. It returns the re-chain action.
func checkRechained(ctx context.Context, t *testing.T, s baton.Store, want []*baton.Action, oldHead string, firstBreak int64) *baton.Action {
	t.Helper()
	got := allActions(ctx, t, s)
	if len(got) != len(want)+1 {
		t.Fatalf("%d actions after the upgrade, want %d and the re-chain's", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Position != w.Position || g.Agent != w.Agent || g.Subject != w.Subject || g.InputDigest != w.InputDigest {
			t.Errorf("action %d changed its content: %+v, want %+v", i+1, g, w)
		}
		if g.Hash != w.Hash || g.PreviousHash != w.PreviousHash {
			t.Errorf("action %d: hash %s prev %s, want %s %s", g.Position, g.Hash, g.PreviousHash, w.Hash, w.PreviousHash)
		}
		if h := audit.ActionOf(g).Hash(); g.Hash != h {
			t.Errorf("action %d: stored hash %s, its content gives %s", g.Position, g.Hash, h)
		}
	}
	re := got[len(got)-1]
	n := int64(len(want))
	if re.Tool != "audit_rechain" || re.Position != n+1 || re.PreviousHash != want[len(want)-1].Hash || re.Hash != audit.ActionOf(re).Hash() {
		t.Errorf("the last action is %+v, want tool audit_rechain at %d chained to %s with its own hash", re, n+1, want[len(want)-1].Hash)
	}
	in, err := audit.DigestValue(map[string]any{"from": "sha256(encoding/json)", "to": "rfc6962 leaf of rfc8785",
		"records": n, "old_head": oldHead, "first_break": firstBreak})
	if err != nil {
		t.Fatal(err)
	}
	if re.InputDigest != in {
		t.Errorf("the re-chain action's input digest %s does not commit to the old head, count and first break (%s)", re.InputDigest, in)
	}
	rs := rechainsOf(ctx, t, s)
	if len(rs) != 1 {
		t.Fatalf("%d re-chains recorded, want 1: %+v", len(rs), rs)
	}
	if r := rs[0]; r.Records != n || r.FirstBreak != firstBreak || r.OldHead != oldHead || r.Position != re.Position {
		t.Errorf("re-chain %+v, want records %d, first break %d, old head %s, position %d", r, n, firstBreak, oldHead, re.Position)
	}
	return re
}

// TestRechainActionsOnOpen: a log hashed by the old rule (awkward strings
// in agents and subjects, whose JSON the two rules write differently) is
// re-hashed by Open: every action reads back with the hash and link
// AppendAction gives today, an audit_rechain action chained to them
// records the re-chain (its input digest committing to the old head),
// ActionRechains reports it as verified whole (first break 0), and the
// log verifies. A second open changes nothing.
func TestRechainActionsOnOpen(t *testing.T) {
	ctx := context.Background()
	changes := rechainChanges(7, "")
	s, want, oldHead := upgradeLegacyLog(t, changes, nil)
	if oldHead == want[len(want)-1].Hash {
		t.Fatal("the old head equals the new one: the old rule was not applied")
	}
	re := checkRechained(ctx, t, s, want, oldHead, 0)
	rep, err := audit.VerifyStore(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Actions != int64(len(want))+1 {
		t.Errorf("after the upgrade: OK %v, %d actions (want %d), breaks %+v", rep.OK(), rep.Actions, len(want)+1, rep.ActionBreaks)
	}

	path := s.Path()
	s.Close()
	s = open(t, path)
	if got := allActions(ctx, t, s); len(got) != len(want)+1 || got[len(got)-1].Hash != re.Hash {
		t.Errorf("a second open changed the log: %d actions, last %+v", len(got), got[len(got)-1])
	}
	if rs := rechainsOf(ctx, t, s); len(rs) != 1 {
		t.Errorf("a second open recorded %d re-chains, want still 1", len(rs))
	}
}

// TestRechainActionsKeepsATamperedOldChainBroken: an action changed before
// the upgrade (its agent rewritten, its old hash kept) is re-hashed like
// the rest, so the new chain links, but the re-chain records the first
// position where the old chain broke and every verification after reports
// a break there: re-hashing does not launder the change.
func TestRechainActionsKeepsATamperedOldChainBroken(t *testing.T) {
	ctx := context.Background()
	const tampered = 4
	changes := rechainChanges(7, "")
	s, want, oldHead := upgradeLegacyLog(t, changes, func(db *sql.DB) {
		if _, err := db.Exec(`UPDATE actions SET agent = 'mallory' WHERE position = ?`, tampered); err != nil {
			t.Fatal(err)
		}
	})
	// The re-chain hashes the records as it finds them, the tampered
	// one included: the expected new chain is over that content.
	want[tampered-1].Agent = "mallory"
	got := allActions(ctx, t, s)
	prev := audit.Genesis
	for i := range want {
		f := audit.ActionOf(want[i])
		f.PreviousHash = prev
		want[i].PreviousHash, want[i].Hash = prev, f.Hash()
		prev = want[i].Hash
	}
	if len(got) > tampered && got[tampered-1].Agent != "mallory" {
		t.Fatalf("the tampered record reads back with agent %q", got[tampered-1].Agent)
	}
	checkRechained(ctx, t, s, want, oldHead, tampered)
	rep, err := audit.VerifyStore(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() {
		t.Fatal("the log verifies after a change made before the upgrade")
	}
	if len(rep.ActionBreaks) != 1 || rep.ActionBreaks[0].Position != tampered {
		t.Errorf("breaks %+v, want one at position %d", rep.ActionBreaks, tampered)
	}
}

// TestRechainActionsFinalizedSession: an audit session finalized before
// the upgrade, whose leaves are action hashes of the old rule, keeps
// verifying after it: its leaves become the actions' new hashes and its
// frozen root is recomputed over them, so a signed export of the upgraded
// store verifies, session included. A session whose frozen root had been
// tampered with before the upgrade keeps its leaves' mismatch: its root
// is not recomputed, and the export reports it.
func TestRechainActionsFinalizedSession(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s := open(t, path)
	if err := createProject(ctx, s, "colibri", "COL"); err != nil {
		t.Fatal(err)
	}
	var tasks [2]string
	var sessions [2]*baton.AuditSession
	if err := s.Update(ctx, func(tx baton.Tx) error {
		for i := range tasks {
			it := &baton.Item{Project: "colibri", Title: "t", Kind: baton.KindTask, Status: baton.StatusTodo, CreatedBy: "a"}
			if err := tx.CreateItem(ctx, it); err != nil {
				return err
			}
			tasks[i] = it.ID
			sessions[i] = &baton.AuditSession{TaskID: it.ID, AuditorID: "auditor", Reason: "upgrade", Scope: "shallow", StartedBy: "auditor"}
			if err := tx.StartSession(ctx, sessions[i]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Actions about each task join its session; one unrelated action
	// joins none.
	record(ctx, t, s, rechainChanges(3, tasks[0]))
	record(ctx, t, s, rechainChanges(1, ""))
	record(ctx, t, s, rechainChanges(2, tasks[1]))
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.AddThought(ctx, &baton.ThoughtRecord{TaskID: tasks[0], Type: "decision", Content: "keep \u2028 it", RecordedBy: "alice"})
	}); err != nil {
		t.Fatal(err)
	}
	for _, sess := range sessions {
		finalize(ctx, t, s, sess)
	}
	acts := allActions(ctx, t, s)
	s.Close()

	// The file as version 27 held it: old action hashes in the log and
	// in the sessions' leaves, roots over those leaves.
	db := rawDB(t, path)
	toLegacy(t, db, acts)
	if _, err := db.Exec(`UPDATE session_records SET hash = (SELECT hash FROM actions WHERE CAST(position AS TEXT) = session_records.record_id)
		WHERE kind = 'action'`); err != nil {
		t.Fatal(err)
	}
	oldRoots := map[string]string{}
	for _, sess := range sessions {
		leaves := column(t, db, `SELECT hash FROM session_records WHERE session_id = ? ORDER BY seq`, sess.ID)
		root, _, err := audit.Root(leaves)
		if err != nil {
			t.Fatal(err)
		}
		oldRoots[sess.ID] = root
		if _, err := db.Exec(`UPDATE audit_sessions SET merkle_root = ? WHERE id = ?`, root, sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	forged := audit.Sum([]byte("not the root"))
	if _, err := db.Exec(`UPDATE audit_sessions SET merkle_root = ? WHERE id = ?`, forged, sessions[1].ID); err != nil {
		t.Fatal(err)
	}
	queueRechain(t, db)
	db.Close()

	s = open(t, path)
	byPos := map[string]string{}
	for _, a := range allActions(ctx, t, s) {
		byPos[strconv.FormatInt(a.Position, 10)] = a.Hash
	}
	for i, sess := range sessions {
		var got *baton.AuditSession
		var recs []baton.SessionRecord
		if err := s.View(ctx, func(tx baton.Tx) (err error) {
			if got, err = tx.Session(ctx, sess.ID); err != nil {
				return err
			}
			recs, err = tx.SessionRecords(ctx, sess.ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var leaves []string
		actions := 0
		for _, r := range recs {
			if r.Kind == "action" {
				actions++
				if r.Hash != byPos[r.RecordID] {
					t.Errorf("%s: the leaf of action %s is %s, the action's hash is %s", sess.ID, r.RecordID, r.Hash, byPos[r.RecordID])
				}
			}
			leaves = append(leaves, r.Hash)
		}
		if want := []int{3, 2}[i]; actions != want {
			t.Errorf("%s holds %d actions, want %d", sess.ID, actions, want)
		}
		root, _, err := audit.Root(leaves)
		if err != nil {
			t.Fatal(err)
		}
		switch i {
		case 0:
			if got.MerkleRoot != root || root == oldRoots[sess.ID] {
				t.Errorf("%s: frozen root %s, its new leaves give %s (old root %s)", sess.ID, got.MerkleRoot, root, oldRoots[sess.ID])
			}
		case 1:
			if got.MerkleRoot != forged {
				t.Errorf("%s: the root tampered before the upgrade became %s, want it kept (%s)", sess.ID, got.MerkleRoot, forged)
			}
		}
	}

	keyPath := createKey(t)
	key, err := audit.OpenKey(ctx, s, keyPath, false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, err := audit.Export(ctx, s, key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := b.Verify(key.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 2 || len(rep.ActionBreaks) != 0 || len(rep.ThoughtBreaks) != 0 {
		t.Errorf("bundle: %d sessions, action breaks %+v, thought breaks %+v", rep.Sessions, rep.ActionBreaks, rep.ThoughtBreaks)
	}
	if why, broken := rep.SessionBreaks[sessions[0].ID]; broken {
		t.Errorf("the intact session %s does not verify after the upgrade: %s", sessions[0].ID, why)
	}
	if _, broken := rep.SessionBreaks[sessions[1].ID]; !broken {
		t.Errorf("the session %s whose root was tampered before the upgrade verifies", sessions[1].ID)
	}
}

// finalize freezes a session's root over its records, as merkle_finalize
// does.
func finalize(ctx context.Context, t *testing.T, s baton.Store, sess *baton.AuditSession) {
	t.Helper()
	if err := s.Update(ctx, func(tx baton.Tx) error {
		recs, err := tx.SessionRecords(ctx, sess.ID)
		if err != nil {
			return err
		}
		hashes := make([]string, len(recs))
		for i, r := range recs {
			hashes[i] = r.Hash
		}
		root, depth, err := audit.Root(hashes)
		if err != nil {
			return err
		}
		sess.MerkleRoot, sess.TreeDepth, sess.LeafCount, sess.FinalizedAt = root, depth, len(hashes), time.Now()
		return tx.FinalizeSession(ctx, sess)
	}); err != nil {
		t.Fatal(err)
	}
}

// createKey makes a log key file and returns its path.
func createKey(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.key")
	if _, err := tlog.CreateKey(path, tlog.NewOrigin()); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return path
}

// column reads one column of strings.
func column(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRechainActionsOldChainWithADeletedRecord: an old log one record of
// which was deleted before the upgrade (a gap in the positions) still
// opens; the re-chain records the break where the old chain broke (the
// record after the gap), and its own action goes after the last record.
func TestRechainActionsOldChainWithADeletedRecord(t *testing.T) {
	ctx := context.Background()
	const deleted = 3
	path := filepath.Join(t.TempDir(), "baton.db")
	s := open(t, path)
	record(ctx, t, s, rechainChanges(7, ""))
	acts := allActions(ctx, t, s)
	s.Close()
	db := rawDB(t, path)
	toLegacy(t, db, acts)
	if _, err := db.Exec(`DELETE FROM actions WHERE position = ?`, deleted); err != nil {
		t.Fatal(err)
	}
	queueRechain(t, db)
	db.Close()

	s2, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("the upgrade of a log with a record deleted fails: %v", err)
	}
	t.Cleanup(func() { s2.Close() })
	got := allActions(ctx, t, s2)
	last := got[len(got)-1]
	if len(got) != len(acts) || last.Tool != "audit_rechain" || last.Position <= acts[len(acts)-1].Position {
		t.Errorf("%d actions, last %+v: want the %d left and the re-chain's after position %d", len(got), last, len(acts)-1, acts[len(acts)-1].Position)
	}
	rs := rechainsOf(ctx, t, s2)
	if len(rs) != 1 || rs[0].FirstBreak != deleted+1 || rs[0].Position != last.Position {
		t.Errorf("re-chains %+v, want one with first break %d at position %d", rs, deleted+1, last.Position)
	}
	rep, err := audit.VerifyStore(ctx, s2)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() {
		t.Error("the log verifies after a record was deleted before the upgrade")
	}
}
