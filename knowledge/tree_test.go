package knowledge

import (
	"fmt"
	"strings"
	"testing"
)

// render prints a tree one node a line, indented, files marked *, dropped
// children as (+n).
func render(t Tree) string {
	var b strings.Builder
	fmt.Fprintf(&b, "root %s", t.Root)
	if t.Truncated > 0 {
		fmt.Fprintf(&b, " (+%d)", t.Truncated)
	}
	b.WriteString("\n")
	var walk func(ns []*TreeNode, depth int)
	walk = func(ns []*TreeNode, depth int) {
		for _, n := range ns {
			fmt.Fprintf(&b, "%s%s [%s]", strings.Repeat("  ", depth), n.Name, n.FullPath)
			if n.IsFile {
				b.WriteString(" *")
			}
			if n.ChildrenTruncated > 0 {
				fmt.Fprintf(&b, " (+%d)", n.ChildrenTruncated)
			}
			b.WriteString("\n")
			walk(n.Children, depth+1)
		}
	}
	walk(t.Nodes, 1)
	return b.String()
}

func TestBuildTree(t *testing.T) {
	paths := []string{"poems/b.md", "poems/a.md", "poems", "poems-archive/x.md", "a/b/c/d/e.md", "notes/", "z.md"}
	cases := []struct {
		name             string
		prefix           string
		maxDepth, maxItm int
		want             string
	}{
		{"whole", "", 0, 0, `root /
  a [a]
    b [a/b]
      c [a/b/c]
        d [a/b/c/d]
          e.md [a/b/c/d/e.md] *
  notes [notes] *
  poems [poems] *
    a.md [poems/a.md] *
    b.md [poems/b.md] *
  poems-archive [poems-archive]
    x.md [poems-archive/x.md] *
  z.md [z.md] *
`},
		{"prefix on a segment boundary", "poems/", 0, 0, `root poems
  a.md [poems/a.md] *
  b.md [poems/b.md] *
`},
		{"depth folds deeper paths", "", 2, 0, `root /
  a [a]
    b [a/b] *
  notes [notes] *
  poems [poems] *
    a.md [poems/a.md] *
    b.md [poems/b.md] *
  poems-archive [poems-archive]
    x.md [poems-archive/x.md] *
  z.md [z.md] *
`},
		{"items per level", "", 1, 2, `root / (+3)
  a [a] *
  notes [notes] *
`},
		{"unknown prefix", "nothing", 0, 0, "root nothing\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(BuildTree(paths, tc.prefix, tc.maxDepth, tc.maxItm)); got != tc.want {
				t.Errorf("tree:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
