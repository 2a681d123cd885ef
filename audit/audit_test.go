package audit_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
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
	f := audit.ThoughtFields{TaskID: "T-1", Type: "decision", Content: "use zod", PreviousHash: "",
		RecordedAt: "2026-04-08T22:30:00.000Z", RecordedBy: "agent-alice"}
	// The catalogue's order, previous_hash null for the first record.
	want := `{"task_id":"T-1","type":"decision","content":"use zod","previous_hash":null,"recorded_at":"2026-04-08T22:30:00.000Z","recorded_by":"agent-alice"}`
	sum := sha256.Sum256([]byte(want))
	if got := f.Hash(); string(f.JSON()) != want || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("json = %s hash = %s, want sha256 of %s", f.JSON(), got, want)
	}
	f.PreviousHash = audit.Sum([]byte("x"))
	if want := `"previous_hash":"` + f.PreviousHash + `"`; !strings.Contains(string(f.JSON()), want) {
		t.Fatalf("json = %s, want %s", f.JSON(), want)
	}
}

// TestPoint17ThoughtHashMatchesJSONStringify checks the thought hash
// against vectors Node wrote (testdata/thought_vectors.js: JSON.stringify
// and crypto's SHA-256, as a Colibri client computes them), so the test
// needs no node. The vectors hold <, >, &, U+2028/U+2029, emoji, C0 and C1
// controls, DEL, quotes and backslashes, and null and string previous
// hashes.
func TestPoint17ThoughtHashMatchesJSONStringify(t *testing.T) {
	raw, err := os.ReadFile("testdata/thought_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct {
		TaskID       string  `json:"task_id"`
		Type         string  `json:"type"`
		Content      string  `json:"content"`
		PreviousHash *string `json:"previous_hash"`
		RecordedAt   string  `json:"recorded_at"`
		RecordedBy   string  `json:"recorded_by"`
		JSON         string  `json:"json"`
		Hash         string  `json:"hash"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	nulls := 0
	for i, v := range vectors {
		f := audit.ThoughtFields{TaskID: v.TaskID, Type: v.Type, Content: v.Content, RecordedAt: v.RecordedAt, RecordedBy: v.RecordedBy}
		if v.PreviousHash == nil {
			nulls++
		} else {
			f.PreviousHash = *v.PreviousHash
		}
		if got := string(f.JSON()); got != v.JSON {
			t.Errorf("vector %d (%q): json\n%s\nwant (node)\n%s", i, v.Content, got, v.JSON)
		}
		if got := f.Hash(); got != v.Hash {
			t.Errorf("vector %d (%q): hash %s, node %s", i, v.Content, got, v.Hash)
		}
		all.WriteString(v.Content + v.RecordedBy)
	}
	// The vectors must hold what tells JSON.stringify from encoding/json.
	for _, must := range []string{"<", ">", "&", "\u2028", "\u2029", "🚀", "\x1b", "\x00", "\x7f", "\u009b", "\u202e", "\"", "\\", "\b", "\f"} {
		if !strings.Contains(all.String(), must) {
			t.Errorf("no vector holds %q", must)
		}
	}
	if nulls == 0 || nulls == len(vectors) {
		t.Errorf("%d of %d vectors have a null previous_hash; want some of each", nulls, len(vectors))
	}
}

// TestPoint17InvalidUTF8HashesAsReplacement: bytes that are not UTF-8
// hash as U+FFFD, the character every client reading the record through
// JSON receives.
func TestPoint17InvalidUTF8HashesAsReplacement(t *testing.T) {
	bad := audit.ThoughtFields{TaskID: "T-1", Type: "risk", Content: "a\xffb\xed\xa0\x80c", RecordedAt: "x", RecordedBy: "y"}
	good := bad
	good.Content = "a\ufffdb\ufffd\ufffd\ufffdc"
	if string(bad.JSON()) != string(good.JSON()) || bad.Hash() != good.Hash() {
		t.Fatalf("json %q, want %q", bad.JSON(), good.JSON())
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
	full := chain(5)
	deleted := append(chain(5)[:2:2], chain(5)[3:]...)
	if b := audit.Verify(deleted); len(b) != 1 || b[0].Position != 4 || b[0].ExpectedHash != full[1].Stored || b[0].ActualHash != full[2].Stored {
		t.Fatalf("deleted record: %+v, want position 4 expecting %s, pointing to the deleted %s", b, full[1].Stored, full[2].Stored)
	}
	swapped := chain(5)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	if b := audit.Verify(swapped); len(b) == 0 || b[0].Position != 3 || b[0].ExpectedHash != full[0].Stored {
		t.Fatalf("reordered records: %+v", b)
	}
	if audit.IntegrityScore(8, 2) != 75 || audit.IntegrityScore(0, 0) != 100 {
		t.Fatal("integrity score")
	}
}

// thoughtChain is a thought chain of n links, the first pointing to null.
func thoughtChain(n int) []audit.Link {
	var links []audit.Link
	prev := ""
	for i := 1; i <= n; i++ {
		h := audit.Sum([]byte(fmt.Sprintf("thought %d %s", i, prev)))
		links = append(links, audit.Link{Position: int64(i), Stored: h, PreviousHash: prev, Computed: h})
		prev = h
	}
	return links
}

// TestPoint17VerifyReportsHashesNotPositions: a deleted record is named by
// hashes (what the chain expected, what the next record points to), never
// by "position N", wherever in the chain it was.
func TestPoint17VerifyReportsHashesNotPositions(t *testing.T) {
	if b := audit.VerifyThoughts(thoughtChain(4)); len(b) != 0 {
		t.Fatalf("intact thought chain: %+v", b)
	}
	if b := audit.Verify(thoughtChain(2)); len(b) != 1 || b[0].ExpectedHash != audit.Genesis {
		t.Fatalf("a chain starting from null read as an action chain: %+v", b)
	}
	for del := 0; del < 3; del++ {
		full := thoughtChain(4)
		links := append(thoughtChain(4)[:del:del], thoughtChain(4)[del+1:]...)
		b := audit.VerifyThoughts(links)
		want := ""
		if del > 0 {
			want = full[del-1].Stored
		}
		if len(b) != 1 || b[0].Position != int64(del+2) || b[0].ExpectedHash != want || b[0].ActualHash != full[del].Stored {
			t.Errorf("record %d deleted: %+v, want one break at %d expecting %q, found %s", del+1, b, del+2, want, full[del].Stored)
		}
		for _, br := range b {
			if strings.Contains(br.ExpectedHash+br.ActualHash, "position") {
				t.Errorf("record %d deleted: break names positions: %+v", del+1, br)
			}
		}
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

// TestFastCanonicalMatches: the hand-written encoders of the hashed
// fields give exactly the reference bytes: an action's hash is the RFC
// 6962 leaf hash of its RFC 8785 JSON (the reference implementation's),
// and the legacy rules, kept to check old chains at upgrade, give the old
// round trip's bytes, for ordinary and awkward strings alike.
func TestFastCanonicalMatches(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "new\nline\ttab\r", "\b\f\x00\x1f", "<html> & ünïcödé ✓",
		"\u2028\u2029", "invalid \xff utf8", "emoji 🎉", "Θ-0001"}
	for _, s := range strs {
		tf := audit.ThoughtFields{TaskID: s, Type: s, Content: s, PreviousHash: s, RecordedAt: s, RecordedBy: s}
		if old, _ := roundTrip(tf); tf.LegacyHash() != audit.Sum(old) {
			t.Errorf("thought fields with %q: legacy hash %s, old rule %s", s, tf.LegacyHash(), audit.Sum(old))
		}
		af := audit.ActionFields{Position: 42, Agent: s, Source: s, Tool: s, Subject: s, InputDigest: s, ResultDigest: s, At: s, PreviousHash: s}
		if old, _ := roundTrip(af); af.LegacyHash() != audit.Sum(old) {
			t.Errorf("action fields with %q: legacy hash %s, old rule %s", s, af.LegacyHash(), audit.Sum(old))
		}
		want, err := reference(af)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(af.JSON(), want) {
			t.Errorf("action fields with %q: JSON %s, RFC 8785 %s", s, af.JSON(), want)
		}
		leaf := sha256.Sum256(append([]byte{0}, want...))
		if af.Hash() != hex.EncodeToString(leaf[:]) {
			t.Errorf("action fields with %q: hash %s, leaf hash %x", s, af.Hash(), leaf)
		}
	}
}
