package capabilities

import (
	"slices"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/system"
)

// TestPoint20RenderThemes: tools group into one line per theme; a tool the
// table does not know is described by its description's first clause
// unless that names a tool; plugin tools are counted per external server,
// or left out when include_mcp is false.
func TestPoint20RenderThemes(t *testing.T) {
	reg := tool.NewRegistry(system.Ping, system.Health)
	specs := []*tool.Spec{
		system.Ping.Spec(), system.Health.Spec(),
		{Name: "vault_retrieve", Toolset: "knowledge", Description: "Semantic search over the Knowledge Vault. Returns ranked results."},
		{Name: "vault_update", Toolset: "knowledge", Description: "Re-read a file; unlike server_ping it writes."},
		{Name: "vault_delete", Toolset: "knowledge", Description: "Use server_health first. Then delete."},
		{Name: "peer_a", Toolset: "plugin:peer", Description: "x"},
		{Name: "peer_b", Toolset: "plugin:peer", Description: "y"},
		{Name: "gh_issue", Toolset: "plugin:gh", Description: "z"},
	}
	s := render(specs, reg, true)
	want := []string{
		"Server — check the server answers and see its health and version",
		"Knowledge — semantic search over the Knowledge Vault, re-read a file and more",
	}
	if !slices.Equal(s.Internal, want) {
		t.Errorf("internal =\n%q\nwant\n%q", s.Internal, want)
	}
	if !slices.Equal(s.External, []string{"peer — 2 tools", "gh — 1 tool"}) || s.ExternalTools != 3 || s.InternalTools != 5 {
		t.Errorf("external = %q (%d), internal tools %d", s.External, s.ExternalTools, s.InternalTools)
	}
	s = render(specs, reg, false)
	if len(s.External) != 0 || s.ExternalTools != 0 || !s.SkippedMCP {
		t.Errorf("without MCP: %+v", s)
	}
}
