package audit_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestMerkleRule pins the tree rule on known leaves: internal nodes are
// SHA256(left||right) over raw bytes, an odd last node is promoted (not
// duplicated), the empty tree is sha256("") and depth counts levels,
// leaves included.
func TestMerkleRule(t *testing.T) {
	if audit.EmptyRoot != emptySHA || sha(nil) != emptySHA {
		t.Fatalf("EmptyRoot = %s, want sha256(\"\") = %s", audit.EmptyRoot, emptySHA)
	}
	l := leafHashes(17)
	cases := []struct {
		n     int
		depth int
		root  string // "" = only compared with refRoot
	}{
		{0, 0, emptySHA},
		{1, 1, l[0]},
		{2, 2, pair(t, l[0], l[1])},
		{3, 3, pair(t, pair(t, l[0], l[1]), l[2])},
		{4, 3, pair(t, pair(t, l[0], l[1]), pair(t, l[2], l[3]))},
		{5, 4, pair(t, pair(t, pair(t, l[0], l[1]), pair(t, l[2], l[3])), l[4])},
		{6, 4, pair(t, pair(t, pair(t, l[0], l[1]), pair(t, l[2], l[3])), pair(t, l[4], l[5]))},
		{7, 4, pair(t, pair(t, pair(t, l[0], l[1]), pair(t, l[2], l[3])), pair(t, pair(t, l[4], l[5]), l[6]))},
		{8, 4, ""},
		{9, 5, ""},
		{16, 5, ""},
		{17, 6, ""},
	}
	for _, c := range cases {
		leaves := l[:c.n]
		root, depth, err := audit.Root(leaves)
		if err != nil {
			t.Fatal(err)
		}
		ref, refDepth := refRoot(t, leaves)
		if root != ref || depth != c.depth || refDepth != c.depth || (c.root != "" && root != c.root) {
			t.Errorf("%d leaves: root %s depth %d; want %s (ref %s) depth %d", c.n, root, depth, c.root, ref, c.depth)
		}
		for i := range leaves {
			p, err := audit.Prove(leaves, i)
			if err != nil || p.Check() != nil || p.Root != root || refCheck(t, p) != root {
				t.Errorf("%d leaves: proof of leaf %d: %v %+v", c.n, i, err, p)
			}
		}
	}
	// Promotion, not duplication: with duplication 3 leaves would give
	// the root of [l0 l1 l2 l2].
	if dup := pair(t, pair(t, l[0], l[1]), pair(t, l[2], l[2])); cases[3].root == dup {
		t.Fatal("the odd rule duplicates the last node")
	}
	if _, _, err := audit.Root([]string{"not hex"}); err == nil {
		t.Error("a leaf that is not a hex SHA-256 was accepted")
	}
}

// refCheck folds a proof's path by hand and returns the root it reaches.
func refCheck(t testing.TB, p *audit.Proof) string {
	t.Helper()
	cur := p.Leaf
	for _, s := range p.Path {
		switch s.Side {
		case "left":
			cur = pair(t, s.Hash, cur)
		case "right":
			cur = pair(t, cur, s.Hash)
		default:
			t.Fatalf("side %q", s.Side)
		}
	}
	return cur
}

// TestMerkleFinalizeLeaves finalizes a deep session limited to a sub-task
// with a known number of records: the leaves are exactly those records'
// hashes in joining order, the root and depth follow the rule, and records
// about the parent are left out.
func TestMerkleFinalizeLeaves(t *testing.T) {
	cases := []struct {
		name          string
		thoughts, ups int // thought_record gives two records (thought + action), task_update one
		leaves, depth int
	}{
		{"empty", 0, 0, 0, 0},
		{"one leaf", 0, 1, 1, 1},
		{"three leaves", 1, 1, 3, 3},
		{"five leaves", 2, 1, 5, 4},
		{"eight leaves", 4, 0, 8, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := testkit.New(t)
			clock := withClock(k, time.Second)
			parent := create(k, nil)
			child := create(k, map[string]any{"parent_id": parent})
			s := start(k, parent, "deep")
			var want []string // the child's records' hashes, in order
			for i := range max(c.thoughts, c.ups) {
				if i < c.thoughts {
					out := think(k, child, fmt.Sprintf("thought %d", i+1))
					acts := actions(k)
					want = append(want, out["hash"].(string), acts[len(acts)-1].Hash)
					think(k, parent, "about the parent")
				}
				if i < c.ups {
					k.OK("task_update", map[string]any{"task_id": child, "progress": i + 1})
					acts := actions(k)
					want = append(want, acts[len(acts)-1].Hash)
				}
			}
			var got []string
			for _, r := range records(k, s) {
				if r.TaskID == child {
					got = append(got, r.Hash)
				}
			}
			if !slices.Equal(got, want) || len(want) != c.leaves {
				t.Fatalf("the child's session records %v, want %v (%d)", got, want, c.leaves)
			}

			out := k.OK("merkle_finalize", map[string]any{"session_id": s, "task_id": child})
			if got, want := keys(out), []string{"finalized_at", "frozen", "leaf_count", "merkle_root", "session_id", "tree_depth"}; !slices.Equal(got, want) {
				t.Fatalf("output fields = %v, want %v", got, want)
			}
			root, depth := refRoot(t, want)
			libRoot, libDepth, _ := audit.Root(want)
			if out["session_id"] != s || out["merkle_root"] != root || root != libRoot || num(t, out["leaf_count"]) != c.leaves ||
				num(t, out["tree_depth"]) != c.depth || depth != c.depth || libDepth != c.depth || out["frozen"] != true ||
				out["finalized_at"] != stampOf(clock.Peek()) {
				t.Errorf("finalize = %v; want root %s, %d leaves, depth %d, frozen, finalized_at %s",
					out, root, c.leaves, c.depth, stampOf(clock.Peek()))
			}
			switch c.leaves {
			case 0:
				if out["merkle_root"] != emptySHA {
					t.Errorf("empty tree root %v, want sha256(\"\")", out["merkle_root"])
				}
			case 1:
				if out["merkle_root"] != want[0] {
					t.Errorf("one leaf: root %v, want the leaf itself", out["merkle_root"])
				}
			case 3:
				if r := pair(t, pair(t, want[0], want[1]), want[2]); out["merkle_root"] != r {
					t.Errorf("three leaves: root %v, want SHA256(SHA256(l0||l1)||l2) = %s", out["merkle_root"], r)
				}
			}
			// merkle_root reports the frozen root of the filtered tree.
			if r := k.OK("merkle_root", map[string]any{"session_id": s}); r["merkle_root"] != root || r["is_finalized"] != true ||
				num(t, r["leaf_count"]) != c.leaves {
				t.Errorf("merkle_root after a filtered finalize: %v", r)
			}
		})
	}
}

// TestMerkleFinalizeSession finalizes a whole session: leaf_count is its
// record count, the root the rule over its records, the session is frozen
// in the store, and a second finalize is ERR_ALREADY_FINALIZED and changes
// nothing.
func TestMerkleFinalizeSession(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	task := create(k, nil)
	s := start(k, task, "")
	for i := range 3 {
		think(k, task, fmt.Sprintf("thought %d", i+1))
	}
	k.OK("task_update", map[string]any{"task_id": task, "status": "todo"})
	recs := records(k, s)
	root, depth := refRoot(t, hashesOf(recs))

	out := k.OK("merkle_finalize", map[string]any{"session_id": s})
	at := stampOf(clock.Peek())
	if out["merkle_root"] != root || num(t, out["leaf_count"]) != len(recs) || num(t, out["tree_depth"]) != depth ||
		out["frozen"] != true || out["finalized_at"] != at {
		t.Fatalf("finalize = %v; want root %s over %d leaves, depth %d", out, root, len(recs), depth)
	}
	stored := session(k, s)
	if !stored.Finalized() || stampOf(stored.FinalizedAt) != at || stored.MerkleRoot != root || stored.LeafCount != len(recs) ||
		stored.TreeDepth != depth || stored.RootTask != "" {
		t.Errorf("stored session %+v", stored)
	}

	actionsBefore := len(actions(k))
	for _, args := range []map[string]any{{"session_id": s}, {"session_id": s, "task_id": task}} {
		e := fail(k, "merkle_finalize", args, baton.ErrAlreadyFinalized)
		if e.Details["session_id"] != s || e.Details["merkle_root"] != root || e.Details["finalized_at"] != at {
			t.Errorf("second finalize details %v, want the session, its frozen root and when", e.Details)
		}
	}
	if got := len(actions(k)); got != actionsBefore {
		t.Errorf("a refused finalize appended %d actions", got-actionsBefore)
	}
	if again := session(k, s); again.MerkleRoot != root || stampOf(again.FinalizedAt) != at || again.LeafCount != len(recs) {
		t.Errorf("a refused finalize changed the session: %+v", again)
	}

	cases := []struct {
		args       map[string]any
		code       string
		field, why string
	}{
		{map[string]any{"session_id": "A-0099"}, baton.ErrSessionNotFound, "", ""},
		{map[string]any{}, baton.ErrInvalidInput, "session_id", "required"},
		{map[string]any{"session_id": ""}, baton.ErrInvalidInput, "session_id", "minLength"},
		{map[string]any{"session_id": s, "task_id": strings.Repeat("C", 129)}, baton.ErrInvalidInput, "task_id", "maxLength"},
	}
	for _, c := range cases {
		e := fail(k, "merkle_finalize", c.args, c.code)
		if c.field != "" {
			invalid(t, e, c.field, c.why)
		}
	}
}

// TestMerkleRootLiveThenFrozen: before finalize, merkle_root is the root
// over the records so far, changing as records join, with as_of the time
// of the last change; after finalize it is frozen even as new records about
// the task are made.
func TestMerkleRootLiveThenFrozen(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	task, other := create(k, nil), create(k, nil)
	s := start(k, task, "")
	startedAt := stampOf(clock.Peek())

	read := func() map[string]any {
		t.Helper()
		before := len(actions(k))
		out := k.OK("merkle_root", map[string]any{"session_id": s})
		if got, want := keys(out), []string{"as_of", "is_finalized", "leaf_count", "merkle_root", "session_id"}; !slices.Equal(got, want) {
			t.Fatalf("output fields = %v, want %v", got, want)
		}
		if len(actions(k)) != before {
			t.Fatal("merkle_root appended an action")
		}
		return out
	}
	live := func(asOf string) string {
		t.Helper()
		out := read()
		recs := records(k, s)
		root, _ := refRoot(t, hashesOf(recs))
		if out["session_id"] != s || out["merkle_root"] != root || out["is_finalized"] != false ||
			num(t, out["leaf_count"]) != len(recs) || out["as_of"] != asOf {
			t.Errorf("live root %v; want %s over %d records, as_of %s", out, root, len(recs), asOf)
		}
		return root
	}

	roots := []string{live(startedAt)}
	steps := []struct {
		name    string
		do      func()
		changes bool
	}{
		{"thought", func() { think(k, task, "first") }, true},
		{"task_update", func() { k.OK("task_update", map[string]any{"task_id": task, "status": "todo"}) }, true},
		{"unrelated thought", func() { think(k, other, "elsewhere") }, false},
		{"read-only call", func() { k.OK("task_get", map[string]any{"task_id": task}) }, false},
		{"second thought", func() { think(k, task, "second") }, true},
	}
	asOf := startedAt
	for _, st := range steps {
		st.do()
		if st.changes {
			asOf = stampOf(clock.Peek())
		}
		r := live(asOf)
		if changed := r != roots[len(roots)-1]; changed != st.changes {
			t.Errorf("after %s the root changed = %v, want %v", st.name, changed, st.changes)
		}
		roots = append(roots, r)
	}

	fin := k.OK("merkle_finalize", map[string]any{"session_id": s})
	finalizedAt := stampOf(clock.Peek())
	if fin["merkle_root"] != roots[len(roots)-1] {
		t.Errorf("finalized root %v differs from the live root %s just before", fin["merkle_root"], roots[len(roots)-1])
	}
	n := len(records(k, s))
	frozen := func(when string) {
		t.Helper()
		out := read()
		if out["merkle_root"] != fin["merkle_root"] || out["is_finalized"] != true || num(t, out["leaf_count"]) != n ||
			out["as_of"] != finalizedAt {
			t.Errorf("%s: merkle_root %v; want the frozen %v over %d leaves, as_of %s", when, out, fin["merkle_root"], n, finalizedAt)
		}
	}
	frozen("right after finalize")
	think(k, task, "after finalize")
	k.OK("task_update", map[string]any{"task_id": task, "status": "in_progress"})
	frozen("after new records about the task")
	if got := len(records(k, s)); got != n {
		t.Errorf("a finalized session grew from %d to %d records", n, got)
	}

	fail(k, "merkle_root", map[string]any{"session_id": "A-0099"}, baton.ErrSessionNotFound)
	invalid(t, fail(k, "merkle_root", map[string]any{}, baton.ErrInvalidInput), "session_id", "required")
}

// TestMerkleProof: proofs exist only against a frozen root; every record of
// a finalized session gets one that checks (by audit.Proof.Check and by
// hand) and leads to the frozen root; records outside it are not found.
func TestMerkleProof(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	task, other := create(k, nil), create(k, nil)
	outside := think(k, task, "before the session")["thought_id"].(string)
	s := start(k, task, "")
	for i := range 3 {
		think(k, task, fmt.Sprintf("thought %d", i+1))
		k.OK("task_update", map[string]any{"task_id": task, "progress": 10 * (i + 1)})
	}
	elsewhere := think(k, other, "another task")["thought_id"].(string)
	recs := records(k, s)

	e := fail(k, "merkle_proof", map[string]any{"session_id": s, "record_id": recs[0].RecordID}, baton.ErrConflict)
	if e.Type != "not_finalized" {
		t.Errorf("proof before finalize: type %q, want not_finalized", e.Type)
	}
	root := k.OK("merkle_finalize", map[string]any{"session_id": s})["merkle_root"].(string)
	_, depth := refRoot(t, hashesOf(recs))

	before := len(actions(k))
	for i, r := range recs {
		out := k.OK("merkle_proof", map[string]any{"session_id": s, "record_id": r.RecordID})
		var p audit.Proof
		b, _ := json.Marshal(out)
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		if out["session_id"] != s || out["record_id"] != r.RecordID || out["kind"] != r.Kind || p.Leaf != r.Hash ||
			p.LeafIndex != i || p.LeafCount != len(recs) || p.Root != root || out["algorithm"] == "" {
			t.Errorf("proof of %s: %v", r.RecordID, out)
		}
		if err := p.Check(); err != nil {
			t.Errorf("proof of %s does not check: %v", r.RecordID, err)
		}
		if got := refCheck(t, &p); got != root {
			t.Errorf("proof of %s folds to %s by hand, not the frozen root %s", r.RecordID, got, root)
		}
		if len(p.Path) > depth-1 {
			t.Errorf("proof of %s has %d steps in a tree of depth %d", r.RecordID, len(p.Path), depth)
		}
		// A proof is for its own leaf only.
		forged := p
		forged.Leaf = recs[(i+1)%len(recs)].Hash
		if forged.Check() == nil {
			t.Errorf("proof of %s also checks for another leaf", r.RecordID)
		}
	}
	if got := len(actions(k)); got != before {
		t.Errorf("merkle_proof appended %d actions", got-before)
	}

	for _, id := range []string{outside, elsewhere, "Θ-9999", "999", "0"} {
		fail(k, "merkle_proof", map[string]any{"session_id": s, "record_id": id}, baton.ErrNotFound)
	}
	fail(k, "merkle_proof", map[string]any{"session_id": "A-0099", "record_id": recs[0].RecordID}, baton.ErrSessionNotFound)
	invalid(t, fail(k, "merkle_proof", map[string]any{"session_id": s}, baton.ErrInvalidInput), "record_id", "required")
}

// TestMerkleProofFilteredSession: after finalizing a deep session with a
// task_id, only that task's records are leaves; each has a proof against
// the frozen root, the others are not found.
func TestMerkleProofFilteredSession(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	parent := create(k, nil)
	child := create(k, map[string]any{"parent_id": parent})
	s := start(k, parent, "deep")
	for i := range 3 {
		think(k, child, fmt.Sprintf("child %d", i+1))
		think(k, parent, fmt.Sprintf("parent %d", i+1))
	}
	k.OK("task_update", map[string]any{"task_id": child, "status": "todo"})
	var in, out []baton.SessionRecord
	for _, r := range records(k, s) {
		if r.TaskID == child {
			in = append(in, r)
		} else {
			out = append(out, r)
		}
	}
	fin := k.OK("merkle_finalize", map[string]any{"session_id": s, "task_id": child})
	if root, _ := refRoot(t, hashesOf(in)); fin["merkle_root"] != root || num(t, fin["leaf_count"]) != len(in) {
		t.Fatalf("filtered finalize %v, want root %s over the child's %d records", fin, root, len(in))
	}
	for i, r := range in {
		res := k.OK("merkle_proof", map[string]any{"session_id": s, "record_id": r.RecordID})
		var p audit.Proof
		b, _ := json.Marshal(res)
		_ = json.Unmarshal(b, &p)
		if p.Check() != nil || p.Root != fin["merkle_root"] || p.LeafIndex != i || p.LeafCount != len(in) || p.Leaf != r.Hash {
			t.Errorf("proof of %s: %+v", r.RecordID, p)
		}
	}
	for _, r := range out {
		fail(k, "merkle_proof", map[string]any{"session_id": s, "record_id": r.RecordID}, baton.ErrNotFound)
	}
}
