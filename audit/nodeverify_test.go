package audit_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tlog"
)

// awkward are strings whose JSON forms differ between encoders: the line
// and paragraph separators (Go's encoding/json escapes them, JSON.stringify
// and RFC 8785 do not), HTML characters, C0 controls, DEL, quotes and
// backslashes, characters above U+FFFF (surrogate pairs in UTF-16, which
// RFC 8785 sorts and JSON.stringify writes by), and other non-ASCII.
var awkward = []string{
	"line\u2028sep\u2029para",
	"<script>&amp;</script>",
	"nul\u0000bell\u0007esc\u001bdel\u007f",
	"tab\tnl\ncr\rff\fbs\b",
	`quote " backslash \ slash /`,
	"emoji 🦊🚀 and 𝄞",
	"\U0001F600",
	"naïve café — Ωμέγα, 日本語, עברית",
	"\uFEFF\uFFFD\uE000\uFFFF",
	"",
}

// TestNodeVerifiesBundle exports a real store's audit bundle and checks it
// with testdata/verify-bundle.mjs: a verifier written from the standards
// alone (RFC 8785, RFC 6962/9162, C2SP signed-note and tlog-checkpoint),
// with nothing but Node's standard library. The bundle must verify there
// as it does in Go, and every forgery must fail in both.
func TestNodeVerifiesBundle(t *testing.T) {
	nodePath, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: ", err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	s, err := sqlite.Open(ctx, filepath.Join(dir, "baton.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	keyPath := newKey(t, dir, "audit")
	key, err := audit.OpenKey(ctx, s, keyPath, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	update := func(fn func(baton.Tx) error) {
		t.Helper()
		if err := s.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	var items []string
	update(func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "alpha", Prefix: "AL", Name: "Alpha ☃"}); err != nil {
			return err
		}
		for _, title := range []string{"first 🦊", "second\u2028item"} {
			it := &baton.Item{Project: "alpha", Title: title, Status: baton.StatusTodo, CreatedBy: "tester"}
			if err := tx.CreateItem(ctx, it); err != nil {
				return err
			}
			items = append(items, it.ID)
		}
		return nil
	})
	var session *baton.AuditSession
	update(func(tx baton.Tx) error {
		session = &baton.AuditSession{TaskID: items[0], AuditorID: "auditor-𝔸", Reason: "review\u2029it", Scope: "shallow",
			StartedBy: "tester", StartedAt: time.Now()}
		return tx.StartSession(ctx, session)
	})

	at := time.Now()
	n := 0
	// actions appends count actions, each with its own awkward strings.
	actions := func(count int) {
		t.Helper()
		update(func(tx baton.Tx) error {
			for range count {
				w := awkward[n%len(awkward)]
				v := awkward[(n+3)%len(awkward)]
				subject := items[n%len(items)]
				switch n % 4 {
				case 1:
					subject = "𝔰𝔲𝔟𝔧𝔢𝔠𝔱 " + v
				case 3:
					subject = w
				}
				c := audit.Change{Agent: "agent " + w, Source: "src " + v, Tool: "tool_" + v, Subject: subject,
					In: map[string]any{"text": w, "𝄞key": v, "\uE000": n, "n": 1.5e-7}, Out: map[string]any{"ok": true, "echo": v},
					At: at.Add(time.Duration(n) * time.Millisecond)}
				if err := audit.Record(ctx, tx, c); err != nil {
					return err
				}
				n++
			}
			return nil
		})
	}
	thought := func(task, content string) {
		t.Helper()
		update(func(tx baton.Tx) error {
			return tx.AddThought(ctx, &baton.ThoughtRecord{TaskID: task, Type: "decision", Content: content, RecordedBy: "agent " + content})
		})
	}
	checkpoint := func() {
		t.Helper()
		if _, made, err := audit.MakeCheckpoint(ctx, s, key, time.Now()); err != nil || !made {
			t.Fatalf("MakeCheckpoint: made %v, %v", made, err)
		}
	}

	actions(5)
	thought(items[0], awkward[0])
	thought(items[0], awkward[2])
	thought(items[1], awkward[5])
	checkpoint() // size 5
	actions(4)
	thought(items[0], awkward[8])
	checkpoint() // size 9
	actions(4)
	thought(items[1], awkward[1])
	update(func(tx baton.Tx) error {
		recs, err := tx.SessionRecords(ctx, session.ID)
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
		session.MerkleRoot, session.TreeDepth, session.LeafCount, session.FinalizedAt = root, depth, len(hashes), time.Now()
		return tx.FinalizeSession(ctx, session)
	})
	actions(2) // after the session: these join nothing

	b, err := audit.Export(ctx, s, key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Actions) != 15 || len(b.Consistency) != 2 || len(b.Thoughts) != 5 || len(b.Sessions) != 1 || len(b.Sessions[0].Leaves) < 4 {
		t.Fatalf("bundle: %d actions, %d consistency proofs, %d thoughts, %d sessions; want 15, 2, 5, 1 (with leaves)",
			len(b.Actions), len(b.Consistency), len(b.Thoughts), len(b.Sessions))
	}
	// The strings made it to the bundle unchanged (the NUL included).
	if !strings.Contains(b.Actions[2].Agent, "\u0000") || !strings.Contains(b.Actions[0].Agent, "\u2028") {
		t.Fatalf("the awkward strings did not survive the store: %q, %q", b.Actions[0].Agent, b.Actions[2].Agent)
	}

	verify := func(name string, b *audit.Bundle, vkey string, wantOK bool, wantOut string) {
		t.Helper()
		rep, err := b.Verify(vkey)
		if err != nil {
			t.Fatalf("%s: Go's Verify: %v", name, err)
		}
		if rep.OK() != wantOK {
			t.Errorf("%s: Go's Verify OK = %v, want %v: %+v", name, rep.OK(), wantOK, rep)
		}
		raw, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(cctx, nodePath, filepath.Join("testdata", "verify-bundle.mjs"), path, vkey)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
		code := 0
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			t.Fatalf("%s: running node: %v", name, err)
		}
		switch {
		case wantOK && code != 0:
			t.Errorf("%s: node exited %d, want 0:\n%s", name, code, out.String())
		case !wantOK && code != 1:
			t.Errorf("%s: node exited %d, want 1:\n%s", name, code, out.String())
		case !strings.Contains(out.String(), wantOut):
			t.Errorf("%s: node's report lacks %q:\n%s", name, wantOut, out.String())
		default:
			t.Logf("%s: node exited %d:\n%s", name, code, out.String())
		}
	}

	verify("bundle", b, key.VerifierKey, true, "OK: the bundle verifies")

	// clone copies the bundle deeply, through JSON, for each forgery.
	clone := func() *audit.Bundle {
		t.Helper()
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		var c audit.Bundle
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		return &c
	}

	// (a) A record changed and the chain re-hashed from there on: every
	// link holds, but the signed root does not.
	forged := clone()
	prev := forged.Actions[5].Hash
	forged.Actions[6].Agent = "mallory \U0001F608"
	for i := 6; i < len(forged.Actions); i++ {
		a := &forged.Actions[i]
		a.PreviousHash = prev
		a.Hash = a.ActionFields.Hash()
		prev = a.Hash
	}
	if rep, err := forged.Verify(key.VerifierKey); err != nil || len(rep.ActionBreaks) != 0 {
		t.Fatalf("the re-hashed chain should hold link by link: %v, %+v", err, rep)
	}
	verify("rehashed", forged, key.VerifierKey, false, "is not the records' Merkle tree hash")

	// (b) The last record dropped.
	short := clone()
	short.Actions = short.Actions[:len(short.Actions)-1]
	verify("truncated", short, key.VerifierKey, false, "the checkpoint signs 15 records, the bundle holds 14")

	// (c) Checked with another log's key.
	other, err := tlog.LoadKey(newKey(t, dir, "other"))
	if err != nil {
		t.Fatal(err)
	}
	verify("otherkey", clone(), other.VerifierKey, false, "is not signed by the key")

	// (d) A consistency proof with one byte flipped.
	flipped := clone()
	p := flipped.Consistency[0].Proof
	raw, _ := hex.DecodeString(p[len(p)-1])
	raw[7] ^= 0x01
	p[len(p)-1] = hex.EncodeToString(raw)
	verify("badproof", flipped, key.VerifierKey, false, "consistency 1: the proof from size")

	// (e) A thought's content changed.
	edited := clone()
	edited.Thoughts[1].Content += "!"
	verify("thought", edited, key.VerifierKey, false, "thought "+edited.Thoughts[1].ID+": its fields give")
}

// newKey makes a log key file in dir and returns its path. The key is
// one whose verifier key's base64 holds a '+', which a verifier must not
// take for a field separator (only the name cannot hold one).
func newKey(t *testing.T, dir, name string) string {
	t.Helper()
	for i := range 500 {
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.key", name, i))
		k, err := tlog.CreateKey(path, tlog.NewOrigin())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(k.VerifierKey, "+") > 2 {
			return path
		}
	}
	t.Fatal("no usable key in 500 tries")
	return ""
}
