package audit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/baton-dev/baton/audit"
)

func TestCanonical(t *testing.T) {
	type s struct {
		B string `json:"b"`
		A int    `json:"a"`
	}
	got, err := audit.Canonical(map[string]any{"z": s{B: "<&>", A: 1}, "a": []any{1.5, "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":[1.5,"x"],"z":{"a":1,"b":"<&>"}}`; string(got) != want {
		t.Fatalf("canonical = %s, want %s", got, want)
	}
}

func TestThoughtHashIsOverTheSpecifiedFields(t *testing.T) {
	f := audit.ThoughtFields{TaskID: "T-1", Type: "decision", Content: "use zod", PreviousHash: audit.Genesis,
		RecordedAt: "2026-04-08T22:30:00.000Z", RecordedBy: "agent-alice"}
	canon := `{"content":"use zod","previous_hash":"` + audit.Genesis + `","recorded_at":"2026-04-08T22:30:00.000Z","recorded_by":"agent-alice","task_id":"T-1","type":"decision"}`
	sum := sha256.Sum256([]byte(canon))
	if got := f.Hash(); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("hash = %s, want sha256 of %s", got, canon)
	}
}

func chain(n int) []audit.Link {
	var links []audit.Link
	prev := audit.Genesis
	for i := 1; i <= n; i++ {
		h := audit.Sum([]byte(fmt.Sprintf("record %d %s", i, prev)))
		links = append(links, audit.Link{Position: int64(i), Stored: h, PreviousHash: prev, Computed: h})
		prev = h
	}
	return links
}

func TestVerify(t *testing.T) {
	if b := audit.Verify(chain(5)); len(b) != 0 {
		t.Fatalf("intact chain broken at %v", b)
	}
	changed := chain(5)
	changed[2].Computed = audit.Sum([]byte("edited"))
	if b := audit.Verify(changed); len(b) != 1 || b[0].Position != 3 || b[0].ExpectedHash != changed[2].Stored {
		t.Fatalf("changed record: %+v", b)
	}
	deleted := append(chain(5)[:2:2], chain(5)[3:]...)
	if b := audit.Verify(deleted); len(b) == 0 || b[0].Position != 3 {
		t.Fatalf("deleted record: %+v", b)
	}
	swapped := chain(5)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	if b := audit.Verify(swapped); len(b) == 0 || b[0].Position != 2 {
		t.Fatalf("reordered records: %+v", b)
	}
	if audit.IntegrityScore(8, 2) != 75 || audit.IntegrityScore(0, 0) != 100 {
		t.Fatal("integrity score")
	}
}

func leaves(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = audit.Sum([]byte(fmt.Sprint(i)))
	}
	return out
}

func TestMerkle(t *testing.T) {
	if root, depth, _ := audit.Root(nil); root != audit.Sum([]byte("")) || depth != 0 {
		t.Fatalf("empty tree = %s depth %d", root, depth)
	}
	one := leaves(1)
	if root, depth, _ := audit.Root(one); root != one[0] || depth != 1 {
		t.Fatalf("one leaf = %s depth %d", root, depth)
	}
	l := leaves(3)
	raw := func(h string) []byte { b, _ := hex.DecodeString(h); return b }
	ab := sha256.Sum256(append(raw(l[0]), raw(l[1])...))
	want := sha256.Sum256(append(ab[:], raw(l[2])...)) // the odd third leaf is promoted
	if root, depth, _ := audit.Root(l); root != hex.EncodeToString(want[:]) || depth != 3 {
		t.Fatalf("three leaves = %s depth %d", root, depth)
	}
	if _, depth, _ := audit.Root(leaves(8)); depth != 4 {
		t.Fatalf("8 leaves depth %d, want 4", depth)
	}
	if _, _, err := audit.Root([]string{"not hex"}); err == nil {
		t.Fatal("bad leaf accepted")
	}
}

func TestProofs(t *testing.T) {
	for n := 1; n <= 33; n++ {
		ls := leaves(n)
		root, _, _ := audit.Root(ls)
		for i := range ls {
			p, err := audit.Prove(ls, i)
			if err != nil {
				t.Fatal(err)
			}
			if p.Root != root || p.Check() != nil {
				t.Fatalf("n=%d i=%d: proof does not verify: %v", n, i, p.Check())
			}
		}
	}
	p, _ := audit.Prove(leaves(5), 3)
	p.Leaf = leaves(5)[2]
	if p.Check() == nil {
		t.Fatal("a proof for another leaf verified")
	}
	p, _ = audit.Prove(leaves(5), 3)
	if p.Path[0].Side == "left" {
		p.Path[0].Side = "right"
	} else {
		p.Path[0].Side = "left"
	}
	if p.Check() == nil {
		t.Fatal("a proof with a flipped side verified")
	}
	if _, err := audit.Prove(leaves(2), 2); err == nil {
		t.Fatal("out-of-range index accepted")
	}
}

// TestFastCanonicalMatches: the hand-written encoders of the hashed fields
// give exactly Canonical's bytes, for ordinary and awkward strings alike.
func TestFastCanonicalMatches(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "new\nline\ttab\r", "\b\f\x00\x1f", "<html> & ünïcödé ✓",
		"\u2028\u2029", "invalid \xff utf8", "emoji 🎉", "Θ-0001"}
	for _, s := range strs {
		tf := audit.ThoughtFields{TaskID: s, Type: s, Content: s, PreviousHash: s, RecordedAt: s, RecordedBy: s}
		if want, _ := audit.Digest(tf); tf.Hash() != want {
			t.Errorf("thought fields with %q: hash %s, canonical %s", s, tf.Hash(), want)
		}
		af := audit.ActionFields{Position: 42, Agent: s, Source: s, Tool: s, Subject: s, InputDigest: s, ResultDigest: s, At: s, PreviousHash: s}
		if want, _ := audit.Digest(af); af.Hash() != want {
			t.Errorf("action fields with %q: hash %s, canonical %s", s, af.Hash(), want)
		}
	}
}
