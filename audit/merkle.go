package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// The Merkle tree of a session: leaves are record hashes (32 bytes each,
// from hex), an internal node is SHA256(left || right) over raw bytes, and a
// level with an odd count promotes its last node unchanged to the next
// level (as RFC 6962 does; duplicating it instead would let two different
// leaf lists share a root). The empty tree's root is SHA256("") and one
// leaf is its own root.

// EmptyRoot is the root of a tree without leaves: sha256("").
var EmptyRoot = Sum(nil)

func node(l, r []byte) []byte {
	h := sha256.New()
	h.Write(l)
	h.Write(r)
	return h.Sum(nil)
}

func decode(leaves []string) ([][]byte, error) {
	out := make([][]byte, len(leaves))
	for i, l := range leaves {
		b, err := hex.DecodeString(l)
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("leaf %d is not a hex SHA-256: %q", i, l)
		}
		out[i] = b
	}
	return out, nil
}

// Root returns the Merkle root and the tree's depth (levels, leaves
// included: 1 leaf is depth 1, 8 leaves depth 4; the empty tree 0).
func Root(leaves []string) (string, int, error) {
	level, err := decode(leaves)
	if err != nil {
		return "", 0, err
	}
	if len(level) == 0 {
		return EmptyRoot, 0, nil
	}
	depth := 1
	for len(level) > 1 {
		next := make([][]byte, 0, (len(level)+1)/2)
		for i := 0; i < len(level); i += 2 {
			if i+1 == len(level) {
				next = append(next, level[i])
				continue
			}
			next = append(next, node(level[i], level[i+1]))
		}
		level = next
		depth++
	}
	return hex.EncodeToString(level[0]), depth, nil
}

// Step is one sibling on the way from a leaf to the root.
type Step struct {
	Hash string `json:"hash" jsonschema:"The sibling's hash."`
	Side string `json:"side" jsonschema:"left or right: where the sibling stands."`
}

// Proof is a leaf's inclusion proof: hashing Leaf with each Step in turn
// gives Root.
type Proof struct {
	Leaf      string `json:"leaf"`
	LeafIndex int    `json:"leaf_index"`
	LeafCount int    `json:"leaf_count"`
	Path      []Step `json:"path"`
	Root      string `json:"root"`
}

// Prove builds the inclusion proof of leaves[index].
func Prove(leaves []string, index int) (*Proof, error) {
	level, err := decode(leaves)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(level) {
		return nil, fmt.Errorf("leaf index %d is outside the %d leaves", index, len(level))
	}
	p := &Proof{Leaf: leaves[index], LeafIndex: index, LeafCount: len(leaves), Path: []Step{}}
	i := index
	for len(level) > 1 {
		next := make([][]byte, 0, (len(level)+1)/2)
		for j := 0; j < len(level); j += 2 {
			if j+1 == len(level) {
				next = append(next, level[j])
				continue
			}
			switch i {
			case j:
				p.Path = append(p.Path, Step{Hash: hex.EncodeToString(level[j+1]), Side: "right"})
			case j + 1:
				p.Path = append(p.Path, Step{Hash: hex.EncodeToString(level[j]), Side: "left"})
			}
			next = append(next, node(level[j], level[j+1]))
		}
		i /= 2
		level = next
	}
	p.Root = hex.EncodeToString(level[0])
	return p, nil
}

// Check recomputes the root from the leaf and the path and reports whether
// it is the proof's root.
func (p *Proof) Check() error {
	cur, err := hex.DecodeString(p.Leaf)
	if err != nil || len(cur) != sha256.Size {
		return fmt.Errorf("leaf is not a hex SHA-256")
	}
	for n, s := range p.Path {
		sib, err := hex.DecodeString(s.Hash)
		if err != nil || len(sib) != sha256.Size {
			return fmt.Errorf("step %d is not a hex SHA-256", n+1)
		}
		switch s.Side {
		case "left":
			cur = node(sib, cur)
		case "right":
			cur = node(cur, sib)
		default:
			return fmt.Errorf("step %d has side %q; want left or right", n+1, s.Side)
		}
	}
	if got := hex.EncodeToString(cur); got != p.Root {
		return fmt.Errorf("the path leads to %s, not to the root %s", got, p.Root)
	}
	return nil
}
