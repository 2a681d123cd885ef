package membot

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

type treeIn struct {
	Prefix   string `json:"prefix,omitempty" jsonschema:"Only the subtree at this path (matched on a segment boundary: poems matches poems/... only); its children are the top level. Omit for the whole store."`
	MaxDepth int    `json:"max_depth,omitempty" jsonschema:"Segments deep to render; deeper paths fold into their ancestor at this depth, which is then marked a file."`
	MaxItems int    `json:"max_items,omitempty" jsonschema:"Most nodes kept per level; the rest are counted in children_truncated (truncated at the top)."`
}

// treeNode is a top-level node. Its children are nodes of the same shape,
// given as plain objects: the schema generator refuses recursive types.
type treeNode struct {
	Name              string           `json:"name" jsonschema:"The path segment."`
	FullPath          string           `json:"full_path" jsonschema:"The path up to and including this segment."`
	IsFile            bool             `json:"is_file" jsonschema:"A document's path ends here (a node may be a file and have children)."`
	Children          []map[string]any `json:"children,omitempty" jsonschema:"Nodes one segment deeper, each {name, full_path, is_file, children?, children_truncated?}, by name."`
	ChildrenTruncated int              `json:"children_truncated,omitempty" jsonschema:"Children dropped by max_items."`
}

type treeOut struct {
	Root      string     `json:"root" jsonschema:"/, or the prefix without trailing /."`
	Tree      []treeNode `json:"tree" jsonschema:"The top-level nodes, by name."`
	Truncated int        `json:"truncated,omitempty" jsonschema:"Top-level nodes dropped by max_items."`
}

// Tree bounds of membot_tree.
const (
	maxTreeDepth = 64
	maxTreeItems = 1000
)

// Tree is membot_tree: the path tree synthesised from the "/" segments of
// the current paths the session sees (there are no directories).
var Tree = tool.New(tool.Definition[treeIn, Op[treeOut]]{
	Name:    "membot_tree",
	Toolset: Toolset,
	Description: "`tree`: render the logical-path tree of the current documents, synthesised from the / segments of " +
		"their paths (there are no real directories; deleted and historical versions are hidden). " +
		"Use it to see how the store is organised and to pick a sensible path before writing.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"prefix":    tool.MaxLen(baton.MaxDocumentPath),
		"max_depth": tool.Range(1, maxTreeDepth).WithDefault(knowledge.DefaultTreeDepth),
		"max_items": tool.Range(1, maxTreeItems).WithDefault(knowledge.DefaultTreeItems),
	},
	Args: []string{"prefix"},
	Execute: func(ctx context.Context, c *tool.Call, in treeIn) (Op[treeOut], error) {
		prefix := strings.TrimRight(normPrefix(in.Prefix), "/")
		under := ""
		if prefix != "" {
			under = prefix + "/" // BuildTree keeps only what lies below the prefix
		}
		ds, err := current(ctx, c, under)
		if err != nil {
			return fail[treeOut](err)
		}
		paths := make([]string, len(ds))
		for i, d := range ds {
			paths[i] = d.Path
		}
		t := knowledge.BuildTree(paths, prefix, in.MaxDepth, in.MaxItems)
		out := treeOut{Root: t.Root, Tree: make([]treeNode, 0, len(t.Nodes)), Truncated: t.Truncated}
		for _, n := range t.Nodes {
			out.Tree = append(out.Tree, treeNode{Name: n.Name, FullPath: n.FullPath, IsFile: n.IsFile,
				Children: childMaps(n.Children), ChildrenTruncated: n.ChildrenTruncated})
		}
		return ok(out)
	},
})

// childMaps renders nodes below the top level as plain objects with the
// top level's keys.
func childMaps(ns []*knowledge.TreeNode) []map[string]any {
	if len(ns) == 0 {
		return nil
	}
	out := make([]map[string]any, len(ns))
	for i, n := range ns {
		m := map[string]any{"name": n.Name, "full_path": n.FullPath, "is_file": n.IsFile}
		if cs := childMaps(n.Children); cs != nil {
			m["children"] = cs
		}
		if n.ChildrenTruncated > 0 {
			m["children_truncated"] = n.ChildrenTruncated
		}
		out[i] = m
	}
	return out
}
