// Package tlog holds what makes baton's action log a transparency log in
// the sense of RFC 6962 and the C2SP specifications: the Merkle tree over
// the records' leaf hashes (with inclusion and consistency proofs), signed
// checkpoints in the tlog-checkpoint note format, the log's Ed25519 key,
// and the witness that keeps checkpoints outside the database. The tree
// and proofs are github.com/transparency-dev/merkle's, the note format
// golang.org/x/mod/sumdb/note's: the same code the Go checksum database
// and Sigstore's logs are checked with.
package tlog

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// HashSize is the size of every hash in the tree (SHA-256).
const HashSize = 32

var (
	hasher  = rfc6962.DefaultHasher
	factory = &compact.RangeFactory{Hash: hasher.HashChildren}
)

// LeafHash is RFC 6962's hash of a leaf's data: SHA-256(0x00 || data).
func LeafHash(data []byte) []byte { return hasher.HashLeaf(data) }

// EmptyRoot is the root of a tree with no leaves: SHA-256 of nothing.
func EmptyRoot() []byte { return hasher.EmptyRoot() }

// Tree is the right edge of a growing log (a compact range from leaf 0):
// at most one hash per level, enough to append leaves and give the root
// at any size without the leaves before. Its Hashes are what a stored
// checkpoint keeps, so the next one starts where it ended.
type Tree struct{ r *compact.Range }

// NewTree is an empty tree.
func NewTree() *Tree { return &Tree{r: factory.NewEmptyRange(0)} }

// ResumeTree is the tree of size leaves whose compact range is hashes (as
// Hashes returned them).
func ResumeTree(size uint64, hashes [][]byte) (*Tree, error) {
	r, err := factory.NewRange(0, size, copyAll(hashes))
	if err != nil {
		return nil, fmt.Errorf("tlog: the stored right edge of the tree does not fit size %d: %w", size, err)
	}
	return &Tree{r: r}, nil
}

// Append adds the next leaf by its leaf hash.
func (t *Tree) Append(leafHash []byte) error { return t.r.Append(leafHash, nil) }

// Size is the number of leaves.
func (t *Tree) Size() uint64 { return t.r.End() }

// Root is the RFC 6962 Merkle tree hash of the leaves so far.
func (t *Tree) Root() []byte {
	if t.r.End() == 0 {
		return EmptyRoot()
	}
	root, err := t.r.GetRootHash(nil)
	if err != nil { // cannot happen for a range starting at 0
		panic(err)
	}
	return root
}

// Hashes is the compact range: the roots of the perfect subtrees that
// cover the leaves, left to right.
func (t *Tree) Hashes() [][]byte { return copyAll(t.r.Hashes()) }

// copyAll copies hashes, so a tree never shares them with its caller.
func copyAll(hashes [][]byte) [][]byte {
	out := make([][]byte, len(hashes))
	for i, h := range hashes {
		out[i] = append([]byte(nil), h...)
	}
	return out
}

// Root is the Merkle tree hash of leaves (leaf hashes, in order).
func Root(leaves [][]byte) []byte {
	t := NewTree()
	for _, l := range leaves {
		if err := t.Append(l); err != nil {
			panic(err) // cannot happen: the range starts at 0
		}
	}
	return t.Root()
}

// Index holds every perfect subtree's hash over a list of leaves (each
// level half the one below: about twice the leaves in all), so the root
// at any size and any proof cost O(log n) lookups once it is built.
type Index struct {
	levels [][][]byte // levels[0] is the leaves
}

// NewIndex builds the index of leaves (leaf hashes, in order). The index
// keeps leaves, and the proofs it gives share its hashes: neither may be
// changed after. Each level's hashes sit in one slab, and a level of many
// nodes is hashed on every core: building the index is most of what
// verifying a large log costs after the records' own hashes.
func NewIndex(leaves [][]byte) *Index {
	x := &Index{levels: [][][]byte{leaves}}
	for cur := leaves; len(cur) > 1; {
		next := make([][]byte, len(cur)/2)
		slab := make([]byte, len(next)*HashSize)
		hashNodes(cur, next, slab)
		x.levels = append(x.levels, next)
		cur = next
	}
	return x
}

// parallelNodes is the level size from which hashNodes uses every core.
const parallelNodes = 4096

// hashNodes fills next[i] (in slab) with the RFC 6962 node hash of
// cur[2i] and cur[2i+1]: SHA-256(0x01 || left || right).
func hashNodes(cur, next [][]byte, slab []byte) {
	work := func(from, to int) {
		var buf [1 + 2*HashSize]byte
		buf[0] = 0x01
		for i := from; i < to; i++ {
			copy(buf[1:], cur[2*i])
			copy(buf[1+HashSize:], cur[2*i+1])
			h := sha256.Sum256(buf[:])
			next[i] = slab[i*HashSize : (i+1)*HashSize : (i+1)*HashSize]
			copy(next[i], h[:])
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(next) < parallelNodes || workers == 1 {
		work(0, len(next))
		return
	}
	var wg sync.WaitGroup
	chunk := (len(next) + workers - 1) / workers
	for from := 0; from < len(next); from += chunk {
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			work(from, to)
		}(from, min(from+chunk, len(next)))
	}
	wg.Wait()
}

// Size is the number of leaves.
func (x *Index) Size() uint64 { return uint64(len(x.levels[0])) }

func (x *Index) node(id compact.NodeID) ([]byte, error) {
	if int(id.Level) >= len(x.levels) || id.Index >= uint64(len(x.levels[id.Level])) {
		return nil, fmt.Errorf("tlog: node %d/%d beyond the %d leaves", id.Level, id.Index, x.Size())
	}
	return x.levels[id.Level][id.Index], nil
}

// Root is the Merkle tree hash of the first size leaves.
func (x *Index) Root(size uint64) ([]byte, error) {
	if size > x.Size() {
		return nil, fmt.Errorf("tlog: tree size %d beyond the %d leaves", size, x.Size())
	}
	if size == 0 {
		return EmptyRoot(), nil
	}
	ids := compact.RangeNodes(0, size, nil)
	root, err := x.node(ids[len(ids)-1])
	if err != nil {
		return nil, err
	}
	for i := len(ids) - 2; i >= 0; i-- {
		left, err := x.node(ids[i])
		if err != nil {
			return nil, err
		}
		root = hasher.HashChildren(left, root)
	}
	return root, nil
}

func (x *Index) build(n proof.Nodes) ([][]byte, error) {
	hashes := make([][]byte, len(n.IDs))
	for i, id := range n.IDs {
		h, err := x.node(id)
		if err != nil {
			return nil, err
		}
		hashes[i] = h
	}
	return n.Rehash(hashes, hasher.HashChildren)
}

// InclusionProof proves that leaf index is in the tree of the first size
// leaves (RFC 6962, 2.1.1).
func (x *Index) InclusionProof(index, size uint64) ([][]byte, error) {
	if size > x.Size() {
		return nil, fmt.Errorf("tlog: tree size %d beyond the %d leaves", size, x.Size())
	}
	n, err := proof.Inclusion(index, size)
	if err != nil {
		return nil, err
	}
	return x.build(n)
}

// ConsistencyProof proves that the tree of the first size2 leaves extends
// that of the first size1 (RFC 6962, 2.1.2).
func (x *Index) ConsistencyProof(size1, size2 uint64) ([][]byte, error) {
	if size2 > x.Size() {
		return nil, fmt.Errorf("tlog: tree size %d beyond the %d leaves", size2, x.Size())
	}
	n, err := proof.Consistency(size1, size2)
	if err != nil {
		return nil, err
	}
	return x.build(n)
}

// VerifyInclusion checks an inclusion proof of leafHash at index against
// root of the tree of size leaves.
func VerifyInclusion(index, size uint64, leafHash []byte, p [][]byte, root []byte) error {
	return proof.VerifyInclusion(hasher, index, size, leafHash, p, root)
}

// VerifyConsistency checks that root2 (size2 leaves) extends root1 (size1).
func VerifyConsistency(size1, size2 uint64, p [][]byte, root1, root2 []byte) error {
	if size1 == size2 {
		// The library wants an empty proof and equal roots here; say which.
		if !bytes.Equal(root1, root2) {
			return fmt.Errorf("tlog: two different roots for the same size %d", size1)
		}
		if len(p) != 0 {
			return fmt.Errorf("tlog: a consistency proof between equal sizes must be empty")
		}
		return nil
	}
	return proof.VerifyConsistency(hasher, size1, size2, p, root1, root2)
}
