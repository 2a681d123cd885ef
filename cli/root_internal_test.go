package cli

import (
	"io"
	"slices"
	"testing"
)

// TestRootForMCPBuildsOnlyMCP: an agent's `baton mcp`, wherever its flags
// stand, builds the mcp command alone; every other invocation (help
// included) builds the whole tree, mcp and the tools' commands with it.
func TestRootForMCPBuildsOnlyMCP(t *testing.T) {
	names := func(args ...string) []string {
		var out []string
		for _, c := range newApp7(nil, "", io.Discard, io.Discard).root(args...).Commands() {
			out = append(out, c.Name())
		}
		return out
	}
	for _, args := range [][]string{{"mcp"}, {"mcp", "--agent", "a", "--preset", "core"}, {"--db", "x.db", "mcp"}} {
		if got := names(args...); !slices.Equal(got, []string{"mcp"}) {
			t.Errorf("root(%q) has %q, want only mcp", args, got)
		}
	}
	for _, args := range [][]string{nil, {"init"}, {"help", "mcp"}, {"mcpx"}, {"tasks", "mcp"}, {"--help"}} {
		got := names(args...)
		for _, want := range []string{"mcp", "init", "serve", "tasks", "export"} {
			if !slices.Contains(got, want) {
				t.Errorf("root(%q) lacks %s: %q", args, want, got)
			}
		}
	}
}
