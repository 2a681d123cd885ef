package tlog_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/baton-dev/baton/tlog"
)

// refTree is an independent, deliberately plain implementation of RFC 6962
// section 2.1 over leaf data: MTH, PATH (inclusion proofs) and
// PROOF/SUBPROOF (consistency proofs), written straight from the RFC's
// recursive definitions. Subtree hashes are memoised by range only to keep
// the tests fast; nothing of package tlog or transparency-dev/merkle is used.
type refTree struct {
	data [][]byte
	memo map[[2]int][]byte
}

func newRefTree(data [][]byte) *refTree {
	return &refTree{data: data, memo: map[[2]int][]byte{}}
}

func refLeafHash(d []byte) []byte {
	h := sha256.Sum256(append([]byte{0x00}, d...))
	return h[:]
}

func refNodeHash(l, r []byte) []byte {
	b := make([]byte, 0, 1+len(l)+len(r))
	b = append(append(append(b, 0x01), l...), r...)
	h := sha256.Sum256(b)
	return h[:]
}

// split is the largest power of two smaller than n (n > 1).
func split(n int) int {
	k := 1
	for k<<1 < n {
		k <<= 1
	}
	return k
}

// mth is MTH(D[lo:hi]).
func (r *refTree) mth(lo, hi int) []byte {
	if v, ok := r.memo[[2]int{lo, hi}]; ok {
		return v
	}
	var h []byte
	switch n := hi - lo; n {
	case 0:
		e := sha256.Sum256(nil)
		h = e[:]
	case 1:
		h = refLeafHash(r.data[lo])
	default:
		k := split(n)
		h = refNodeHash(r.mth(lo, lo+k), r.mth(lo+k, hi))
	}
	r.memo[[2]int{lo, hi}] = h
	return h
}

// path is PATH(m, D[lo:hi]), the audit path of leaf lo+m.
func (r *refTree) path(m, lo, hi int) [][]byte {
	n := hi - lo
	if n <= 1 {
		return nil
	}
	k := split(n)
	if m < k {
		return append(r.path(m, lo, lo+k), r.mth(lo+k, hi))
	}
	return append(r.path(m-k, lo+k, hi), r.mth(lo, lo+k))
}

// subproof is SUBPROOF(m, D[lo:hi], b).
func (r *refTree) subproof(m, lo, hi int, b bool) [][]byte {
	n := hi - lo
	if m == n {
		if b {
			return nil
		}
		return [][]byte{r.mth(lo, hi)}
	}
	k := split(n)
	if m <= k {
		return append(r.subproof(m, lo, lo+k, b), r.mth(lo+k, hi))
	}
	return append(r.subproof(m-k, lo+k, hi, false), r.mth(lo, lo+k))
}

// consistency is PROOF(m, D[0:n]); empty when m is 0 or n (nothing to prove).
func (r *refTree) consistency(m, n int) [][]byte {
	if m == 0 || m == n {
		return nil
	}
	return r.subproof(m, 0, n, true)
}

// testData is n distinct leaf inputs.
func testData(n int) [][]byte {
	d := make([][]byte, n)
	for i := range d {
		d[i] = []byte(fmt.Sprintf("leaf %d", i))
	}
	return d
}

func leafHashes(data [][]byte) [][]byte {
	out := make([][]byte, len(data))
	for i, d := range data {
		out[i] = tlog.LeafHash(d)
	}
	return out
}

func hx(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func equalHashes(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func deepCopy(p [][]byte) [][]byte {
	out := make([][]byte, len(p))
	for i := range p {
		out[i] = bytes.Clone(p[i])
	}
	return out
}

// testSizes is 0..70 and a few larger sizes around powers of two.
func testSizes() []int {
	var s []int
	for n := 0; n <= 70; n++ {
		s = append(s, n)
	}
	return append(s, 127, 128, 129, 1000, 1024, 1025)
}

// TestHashPrimitives shows LeafHash is SHA-256(0x00||data), EmptyRoot is
// SHA-256 of nothing (the well-known e3b0c442...b855) and HashSize is 32.
func TestHashPrimitives(t *testing.T) {
	if tlog.HashSize != 32 {
		t.Errorf("HashSize = %d, want 32", tlog.HashSize)
	}
	want := hx("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
	if got := tlog.EmptyRoot(); !bytes.Equal(got, want) {
		t.Errorf("EmptyRoot = %x, want %x", got, want)
	}
	if got := tlog.NewTree().Root(); !bytes.Equal(got, want) {
		t.Errorf("NewTree().Root() = %x, want %x", got, want)
	}
	if got := tlog.Root(nil); !bytes.Equal(got, want) {
		t.Errorf("Root(nil) = %x, want %x", got, want)
	}
	for _, d := range [][]byte{nil, {}, {0}, {1}, []byte("hello"), bytes.Repeat([]byte{0xff}, 100)} {
		if got, want := tlog.LeafHash(d), refLeafHash(d); !bytes.Equal(got, want) {
			t.Errorf("LeafHash(%x) = %x, want %x", d, got, want)
		}
	}
	// A leaf hash is not the hash of the bare data (domain separation).
	plain := sha256.Sum256([]byte("hello"))
	if bytes.Equal(tlog.LeafHash([]byte("hello")), plain[:]) {
		t.Error("LeafHash lacks the 0x00 prefix")
	}
}

// TestRFC6962Vectors checks the roots of the transparency-dev RFC 6962 test
// vectors (eight leaves, every size 0..8) with Tree, Root and Index.
func TestRFC6962Vectors(t *testing.T) {
	inputs := [][]byte{
		hx(""), hx("00"), hx("10"), hx("2021"), hx("3031"), hx("40414243"),
		hx("5051525354555657"), hx("606162636465666768696a6b6c6d6e6f"),
	}
	roots := [][]byte{
		hx("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
		hx("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"),
		hx("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"),
		hx("aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77"),
		hx("d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
		hx("4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4"),
		hx("76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef"),
		hx("ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c"),
		hx("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"),
	}
	leaves := leafHashes(inputs)
	idx := tlog.NewIndex(leaves)
	tr := tlog.NewTree()
	for n := 0; n <= len(inputs); n++ {
		if n > 0 {
			if err := tr.Append(leaves[n-1]); err != nil {
				t.Fatal(err)
			}
		}
		if got := tr.Root(); !bytes.Equal(got, roots[n]) {
			t.Errorf("Tree root at size %d = %x, want %x", n, got, roots[n])
		}
		if got := tlog.Root(leaves[:n]); !bytes.Equal(got, roots[n]) {
			t.Errorf("Root of %d leaves = %x, want %x", n, got, roots[n])
		}
		got, err := idx.Root(uint64(n))
		if err != nil {
			t.Fatalf("Index.Root(%d): %v", n, err)
		}
		if !bytes.Equal(got, roots[n]) {
			t.Errorf("Index.Root(%d) = %x, want %x", n, got, roots[n])
		}
		if got := newRefTree(inputs[:n]).mth(0, n); !bytes.Equal(got, roots[n]) {
			t.Fatalf("the test's reference MTH is wrong at size %d", n)
		}
	}
}

// TestRootsMatchReference shows Tree (appending one leaf at a time), Root,
// and Index.Root (both built over all leaves and over exactly n leaves)
// give RFC 6962's MTH for sizes 0..70 and some larger ones, and that
// Tree.Size and Index.Size count the leaves.
func TestRootsMatchReference(t *testing.T) {
	sizes := testSizes()
	max := sizes[len(sizes)-1]
	data := testData(max)
	leaves := leafHashes(data)
	ref := newRefTree(data)
	full := tlog.NewIndex(leaves)
	if full.Size() != uint64(max) {
		t.Fatalf("Index.Size = %d, want %d", full.Size(), max)
	}
	want := map[int]bool{}
	for _, n := range sizes {
		want[n] = true
	}
	tr := tlog.NewTree()
	for n := 0; n <= max; n++ {
		if n > 0 {
			if err := tr.Append(leaves[n-1]); err != nil {
				t.Fatal(err)
			}
		}
		if tr.Size() != uint64(n) {
			t.Fatalf("Tree.Size = %d after %d appends", tr.Size(), n)
		}
		if !want[n] {
			continue
		}
		r := ref.mth(0, n)
		if got := tr.Root(); !bytes.Equal(got, r) {
			t.Errorf("Tree root at size %d = %x, want %x", n, got, r)
		}
		if got := tlog.Root(leaves[:n]); !bytes.Equal(got, r) {
			t.Errorf("Root of %d leaves = %x, want %x", n, got, r)
		}
		got, err := full.Root(uint64(n))
		if err != nil || !bytes.Equal(got, r) {
			t.Errorf("Index(%d).Root(%d) = %x, %v; want %x", max, n, got, err, r)
		}
		own := tlog.NewIndex(leaves[:n:n])
		if own.Size() != uint64(n) {
			t.Errorf("Index over %d leaves has Size %d", n, own.Size())
		}
		got, err = own.Root(uint64(n))
		if err != nil || !bytes.Equal(got, r) {
			t.Errorf("Index(%d).Root(%d) = %x, %v; want %x", n, n, got, err, r)
		}
	}
}

// TestTreeHashes shows Hashes is the compact range of RFC 6962 subtree
// roots covering the leaves, left to right (largest first): what a stored
// checkpoint keeps to resume the tree.
func TestTreeHashes(t *testing.T) {
	data := testData(70)
	leaves := leafHashes(data)
	ref := newRefTree(data)
	tr := tlog.NewTree()
	for n := 0; n <= len(leaves); n++ {
		if n > 0 {
			if err := tr.Append(leaves[n-1]); err != nil {
				t.Fatal(err)
			}
		}
		var want [][]byte
		lo := 0
		for bit := 1 << 10; bit > 0; bit >>= 1 {
			if n&bit != 0 {
				want = append(want, ref.mth(lo, lo+bit))
				lo += bit
			}
		}
		if got := tr.Hashes(); !equalHashes(got, want) {
			t.Errorf("Hashes at size %d = %x, want %x", n, got, want)
		}
	}
}

// TestResumeTree shows a tree resumed from the Hashes of a tree of size m
// (as stored, i.e. copied) and grown further has the same roots, sizes and
// Hashes as a tree built from scratch, and that a wrong number of hashes
// for the size is refused.
func TestResumeTree(t *testing.T) {
	const extra = 37
	data := testData(64 + extra)
	leaves := leafHashes(data)
	ref := newRefTree(data)
	for m := 0; m <= 64; m++ {
		orig := tlog.NewTree()
		for _, l := range leaves[:m] {
			if err := orig.Append(l); err != nil {
				t.Fatal(err)
			}
		}
		stored := deepCopy(orig.Hashes())
		rt, err := tlog.ResumeTree(uint64(m), stored)
		if err != nil {
			t.Fatalf("ResumeTree(%d): %v", m, err)
		}
		if rt.Size() != uint64(m) {
			t.Fatalf("resumed Size = %d, want %d", rt.Size(), m)
		}
		if got, want := rt.Root(), ref.mth(0, m); !bytes.Equal(got, want) {
			t.Errorf("resumed root at %d = %x, want %x", m, got, want)
		}
		fresh := tlog.NewTree()
		for _, l := range leaves[:m] {
			if err := fresh.Append(l); err != nil {
				t.Fatal(err)
			}
		}
		for n := m; n < m+extra; n++ {
			if err := rt.Append(leaves[n]); err != nil {
				t.Fatal(err)
			}
			if err := fresh.Append(leaves[n]); err != nil {
				t.Fatal(err)
			}
			if rt.Size() != fresh.Size() {
				t.Fatalf("sizes %d vs %d", rt.Size(), fresh.Size())
			}
			if got, want := rt.Root(), fresh.Root(); !bytes.Equal(got, want) {
				t.Fatalf("resumed at %d, size %d: root %x, fresh %x", m, n+1, got, want)
			}
			if got, want := rt.Root(), ref.mth(0, n+1); !bytes.Equal(got, want) {
				t.Fatalf("resumed at %d, size %d: root %x, reference %x", m, n+1, got, want)
			}
			if !equalHashes(rt.Hashes(), fresh.Hashes()) {
				t.Fatalf("resumed at %d, size %d: Hashes differ", m, n+1)
			}
		}

		// Wrong counts of hashes for size m.
		h := deepCopy(orig.Hashes())
		if _, err := tlog.ResumeTree(uint64(m), append(h, tlog.LeafHash([]byte("x")))); err == nil {
			t.Errorf("ResumeTree(%d) with %d hashes (one too many) did not fail", m, len(h)+1)
		}
		if len(h) > 0 {
			if _, err := tlog.ResumeTree(uint64(m), h[:len(h)-1]); err == nil {
				t.Errorf("ResumeTree(%d) with %d hashes (one too few) did not fail", m, len(h)-1)
			}
			if _, err := tlog.ResumeTree(uint64(m), nil); err == nil {
				t.Errorf("ResumeTree(%d) with no hashes did not fail", m)
			}
		}
	}
}

// TestInclusionProofs shows Index.InclusionProof is exactly RFC 6962's PATH
// for every (index, size) with size <= 70, that it verifies against the
// reference root with VerifyInclusion, and that a flipped byte in any proof
// hash, a wrong root, a wrong leaf, a wrong index or a wrong size fails.
func TestInclusionProofs(t *testing.T) {
	const n = 70
	data := testData(n)
	leaves := leafHashes(data)
	ref := newRefTree(data)
	idx := tlog.NewIndex(leaves)
	for size := 1; size <= n; size++ {
		root := ref.mth(0, size)
		for i := 0; i < size; i++ {
			p, err := idx.InclusionProof(uint64(i), uint64(size))
			if err != nil {
				t.Fatalf("InclusionProof(%d, %d): %v", i, size, err)
			}
			if want := ref.path(i, 0, size); !equalHashes(p, want) {
				t.Fatalf("InclusionProof(%d, %d) = %x, RFC 6962 PATH is %x", i, size, p, want)
			}
			if err := tlog.VerifyInclusion(uint64(i), uint64(size), leaves[i], p, root); err != nil {
				t.Fatalf("VerifyInclusion(%d, %d): %v", i, size, err)
			}
			for j := range p {
				q := deepCopy(p)
				q[j][j%tlog.HashSize] ^= 0x01
				if tlog.VerifyInclusion(uint64(i), uint64(size), leaves[i], q, root) == nil {
					t.Fatalf("(%d, %d): proof with hash %d flipped verified", i, size, j)
				}
			}
			bad := bytes.Clone(root)
			bad[0] ^= 0x80
			if tlog.VerifyInclusion(uint64(i), uint64(size), leaves[i], p, bad) == nil {
				t.Fatalf("(%d, %d): proof verified against a wrong root", i, size)
			}
			other := leaves[(i+1)%n]
			if tlog.VerifyInclusion(uint64(i), uint64(size), other, p, root) == nil {
				t.Fatalf("(%d, %d): proof verified for a wrong leaf", i, size)
			}
			if size > 1 {
				if tlog.VerifyInclusion(uint64((i+1)%size), uint64(size), leaves[i], p, root) == nil {
					t.Fatalf("(%d, %d): proof verified at a wrong index", i, size)
				}
			}
			if size < n {
				if tlog.VerifyInclusion(uint64(i), uint64(size+1), leaves[i], p, ref.mth(0, size+1)) == nil {
					t.Fatalf("(%d, %d): proof verified for size %d", i, size, size+1)
				}
			}
		}
	}
	// The proof is not affected by extra leaves beyond size in the index.
	small := tlog.NewIndex(leaves[:5:5])
	p1, _ := small.InclusionProof(2, 5)
	p2, _ := idx.InclusionProof(2, 5)
	if !equalHashes(p1, p2) {
		t.Error("InclusionProof(2, 5) depends on leaves beyond 5")
	}
}

// TestInclusionProofsLarge shows exact RFC 6962 PATHs and verification for
// a sample of indexes and sizes in a tree of 1025 leaves.
func TestInclusionProofsLarge(t *testing.T) {
	const n = 1025
	data := testData(n)
	leaves := leafHashes(data)
	ref := newRefTree(data)
	idx := tlog.NewIndex(leaves)
	for _, size := range []int{1, 2, 3, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025} {
		root := ref.mth(0, size)
		for _, i := range []int{0, 1, 2, 127, 128, 255, 256, 500, 511, 512, 513, 999, 1022, 1023, 1024} {
			if i >= size {
				continue
			}
			p, err := idx.InclusionProof(uint64(i), uint64(size))
			if err != nil {
				t.Fatalf("InclusionProof(%d, %d): %v", i, size, err)
			}
			if !equalHashes(p, ref.path(i, 0, size)) {
				t.Fatalf("InclusionProof(%d, %d) is not RFC 6962's PATH", i, size)
			}
			if err := tlog.VerifyInclusion(uint64(i), uint64(size), leaves[i], p, root); err != nil {
				t.Fatalf("VerifyInclusion(%d, %d): %v", i, size, err)
			}
			if len(p) > 0 {
				q := deepCopy(p)
				q[len(q)/2][7] ^= 0x10
				if tlog.VerifyInclusion(uint64(i), uint64(size), leaves[i], q, root) == nil {
					t.Fatalf("(%d, %d): a flipped proof verified", i, size)
				}
			}
		}
	}
}

// TestInclusionProofErrors shows an index not below size, or a size beyond
// the index's leaves, is refused.
func TestInclusionProofErrors(t *testing.T) {
	idx := tlog.NewIndex(leafHashes(testData(10)))
	for _, c := range [][2]uint64{{0, 0}, {5, 5}, {6, 5}, {0, 11}, {10, 11}, {3, 1 << 40}} {
		if p, err := idx.InclusionProof(c[0], c[1]); err == nil {
			t.Errorf("InclusionProof(%d, %d) = %x, want an error", c[0], c[1], p)
		}
	}
	empty := tlog.NewIndex(nil)
	if _, err := empty.InclusionProof(0, 0); err == nil {
		t.Error("InclusionProof(0, 0) on an empty index did not fail")
	}
}

// TestConsistencyProofs shows Index.ConsistencyProof is exactly RFC 6962's
// PROOF for every 0 <= size1 <= size2 <= 70, that each verifies with
// VerifyConsistency against the reference roots, and that a flipped byte,
// a wrong root1 or root2, or a wrong size fails.
func TestConsistencyProofs(t *testing.T) {
	const n = 70
	data := testData(n)
	leaves := leafHashes(data)
	ref := newRefTree(data)
	idx := tlog.NewIndex(leaves)
	for s2 := 0; s2 <= n; s2++ {
		r2 := ref.mth(0, s2)
		for s1 := 0; s1 <= s2; s1++ {
			r1 := ref.mth(0, s1)
			p, err := idx.ConsistencyProof(uint64(s1), uint64(s2))
			if err != nil {
				t.Fatalf("ConsistencyProof(%d, %d): %v", s1, s2, err)
			}
			if want := ref.consistency(s1, s2); !equalHashes(p, want) {
				t.Fatalf("ConsistencyProof(%d, %d) = %x, RFC 6962 PROOF is %x", s1, s2, p, want)
			}
			if err := tlog.VerifyConsistency(uint64(s1), uint64(s2), p, r1, r2); err != nil {
				t.Fatalf("VerifyConsistency(%d, %d): %v", s1, s2, err)
			}
			for j := range p {
				q := deepCopy(p)
				q[j][(j*5)%tlog.HashSize] ^= 0x04
				if tlog.VerifyConsistency(uint64(s1), uint64(s2), q, r1, r2) == nil {
					t.Fatalf("(%d, %d): proof with hash %d flipped verified", s1, s2, j)
				}
			}
			if s1 == 0 {
				continue // every tree extends the empty one, whatever the roots
			}
			bad1 := bytes.Clone(r1)
			bad1[31] ^= 0x01
			if tlog.VerifyConsistency(uint64(s1), uint64(s2), p, bad1, r2) == nil {
				t.Fatalf("(%d, %d): verified with a wrong root1", s1, s2)
			}
			bad2 := bytes.Clone(r2)
			bad2[0] ^= 0x01
			if tlog.VerifyConsistency(uint64(s1), uint64(s2), p, r1, bad2) == nil {
				t.Fatalf("(%d, %d): verified with a wrong root2", s1, s2)
			}
			if s2 < n && s1 < s2 {
				if tlog.VerifyConsistency(uint64(s1), uint64(s2+1), p, r1, ref.mth(0, s2+1)) == nil {
					t.Fatalf("(%d, %d): proof verified for size2 %d", s1, s2, s2+1)
				}
			}
		}
	}
}

// TestConsistencyProofsLarge shows exact RFC 6962 consistency proofs that
// verify for a sample of size pairs in a tree of 1025 leaves.
func TestConsistencyProofsLarge(t *testing.T) {
	const n = 1025
	data := testData(n)
	ref := newRefTree(data)
	idx := tlog.NewIndex(leafHashes(data))
	sizes := []int{0, 1, 2, 3, 7, 8, 9, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025}
	for _, s1 := range sizes {
		for _, s2 := range sizes {
			if s1 > s2 {
				continue
			}
			p, err := idx.ConsistencyProof(uint64(s1), uint64(s2))
			if err != nil {
				t.Fatalf("ConsistencyProof(%d, %d): %v", s1, s2, err)
			}
			if !equalHashes(p, ref.consistency(s1, s2)) {
				t.Fatalf("ConsistencyProof(%d, %d) is not RFC 6962's PROOF", s1, s2)
			}
			r1, r2 := ref.mth(0, s1), ref.mth(0, s2)
			if err := tlog.VerifyConsistency(uint64(s1), uint64(s2), p, r1, r2); err != nil {
				t.Fatalf("VerifyConsistency(%d, %d): %v", s1, s2, err)
			}
			if len(p) > 0 {
				q := deepCopy(p)
				q[0][0] ^= 0xff
				if tlog.VerifyConsistency(uint64(s1), uint64(s2), q, r1, r2) == nil {
					t.Fatalf("(%d, %d): a flipped proof verified", s1, s2)
				}
			}
		}
	}
}

// TestConsistencyProofErrors shows size1 > size2 and size2 beyond the leaves
// are refused by ConsistencyProof, and VerifyConsistency refuses size2 <
// size1.
func TestConsistencyProofErrors(t *testing.T) {
	idx := tlog.NewIndex(leafHashes(testData(10)))
	for _, c := range [][2]uint64{{5, 4}, {1, 0}, {0, 11}, {10, 11}, {11, 11}} {
		if p, err := idx.ConsistencyProof(c[0], c[1]); err == nil {
			t.Errorf("ConsistencyProof(%d, %d) = %x, want an error", c[0], c[1], p)
		}
	}
	r4, _ := idx.Root(4)
	r5, _ := idx.Root(5)
	p, _ := idx.ConsistencyProof(4, 5)
	if tlog.VerifyConsistency(5, 4, p, r5, r4) == nil {
		t.Error("VerifyConsistency(5, 4) did not fail")
	}
}

// TestVerifyConsistencyEqualSizes shows that for equal sizes equal roots
// with an empty proof pass, while different roots, or a non-empty proof,
// fail.
func TestVerifyConsistencyEqualSizes(t *testing.T) {
	idx := tlog.NewIndex(leafHashes(testData(9)))
	r7, _ := idx.Root(7)
	r8, _ := idx.Root(8)
	for _, size := range []uint64{0, 1, 7, 8} {
		r, _ := idx.Root(size)
		if err := tlog.VerifyConsistency(size, size, nil, r, bytes.Clone(r)); err != nil {
			t.Errorf("VerifyConsistency(%d, %d) with equal roots: %v", size, size, err)
		}
		if err := tlog.VerifyConsistency(size, size, [][]byte{}, r, r); err != nil {
			t.Errorf("VerifyConsistency(%d, %d) with an empty non-nil proof: %v", size, size, err)
		}
		if tlog.VerifyConsistency(size, size, [][]byte{r}, r, r) == nil {
			t.Errorf("VerifyConsistency(%d, %d) accepted a non-empty proof", size, size)
		}
	}
	if tlog.VerifyConsistency(7, 7, nil, r7, r8) == nil {
		t.Error("VerifyConsistency(7, 7) accepted two different roots")
	}
	if tlog.VerifyConsistency(0, 0, nil, tlog.EmptyRoot(), r8) == nil {
		t.Error("VerifyConsistency(0, 0) accepted two different roots")
	}
}

// TestIndexRootBeyondSize shows Index.Root refuses a size beyond its leaves,
// also on an empty index, and gives the empty root at size 0.
func TestIndexRootBeyondSize(t *testing.T) {
	idx := tlog.NewIndex(leafHashes(testData(10)))
	for _, s := range []uint64{11, 12, 16, 1 << 33, ^uint64(0)} {
		if r, err := idx.Root(s); err == nil {
			t.Errorf("Index(10).Root(%d) = %x, want an error", s, r)
		}
	}
	empty := tlog.NewIndex(nil)
	if empty.Size() != 0 {
		t.Errorf("empty Index has Size %d", empty.Size())
	}
	r, err := empty.Root(0)
	if err != nil || !bytes.Equal(r, tlog.EmptyRoot()) {
		t.Errorf("empty Index.Root(0) = %x, %v; want the empty root", r, err)
	}
	if _, err := empty.Root(1); err == nil {
		t.Error("empty Index.Root(1) did not fail")
	}
}
