package knowledge

import (
	"slices"
	"strings"
)

// TreeNode is one node of the synthesised path tree (membot_tree): logical
// paths are opaque keys, and the tree comes from their "/" separators.
type TreeNode struct {
	Name     string
	FullPath string
	// IsFile is set when a path ends here (or deeper paths fold into it at
	// the depth limit); such a node may also have children.
	IsFile   bool
	Children []*TreeNode
	// ChildrenTruncated counts the children dropped by the per-level
	// limit.
	ChildrenTruncated int
}

// Tree is membot_tree's result.
type Tree struct {
	Root      string // "/", or the prefix without trailing "/"
	Nodes     []*TreeNode
	Truncated int // top-level nodes dropped by the per-level limit
}

// Tree defaults and bounds of membot_tree.
const (
	DefaultTreeDepth = 6
	DefaultTreeItems = 20
)

// BuildTree arranges current paths into a tree (membot-operations.md,
// membot_tree). With a prefix (matched on a segment boundary after its
// trailing "/" are stripped) only paths under it count and the prefix
// node's children are the top level. Siblings sort by name; each level
// keeps at most maxItems nodes; paths deeper than maxDepth fold into their
// ancestor at that depth, which is marked a file. maxDepth and maxItems
// <= 0 take the defaults.
func BuildTree(paths []string, prefix string, maxDepth, maxItems int) Tree {
	if maxDepth <= 0 {
		maxDepth = DefaultTreeDepth
	}
	if maxItems <= 0 {
		maxItems = DefaultTreeItems
	}
	prefix = strings.TrimRight(prefix, "/")
	t := Tree{Root: "/"}
	if prefix != "" {
		t.Root = prefix
	}
	root := &TreeNode{}
	for _, p := range paths {
		p = strings.TrimRight(p, "/")
		rel := p
		if prefix != "" {
			if !strings.HasPrefix(p, prefix+"/") {
				continue // the prefix itself, or outside it
			}
			rel = p[len(prefix)+1:]
		}
		segs := strings.Split(rel, "/")
		if len(segs) > maxDepth {
			segs = segs[:maxDepth]
		}
		n := root
		full := prefix
		for _, s := range segs {
			if full == "" {
				full = s
			} else {
				full += "/" + s
			}
			i := slices.IndexFunc(n.Children, func(c *TreeNode) bool { return c.Name == s })
			if i < 0 {
				n.Children = append(n.Children, &TreeNode{Name: s, FullPath: full})
				i = len(n.Children) - 1
			}
			n = n.Children[i]
		}
		n.IsFile = true
	}
	limit(root, maxItems)
	t.Nodes, t.Truncated = root.Children, root.ChildrenTruncated
	return t
}

// limit sorts n's children by name and keeps maxItems of them, at every
// level.
func limit(n *TreeNode, maxItems int) {
	slices.SortFunc(n.Children, func(a, b *TreeNode) int { return strings.Compare(a.Name, b.Name) })
	if len(n.Children) > maxItems {
		n.ChildrenTruncated = len(n.Children) - maxItems
		n.Children = n.Children[:maxItems]
	}
	for _, c := range n.Children {
		limit(c, maxItems)
	}
}
