package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
)

// TestPoint20CapabilitiesCommand: `baton capabilities` writes the summary
// capabilities_refresh writes, for a profile or for every tool, and prints
// it; --json prints the tool's output; an unknown profile is refused.
func TestPoint20CapabilitiesCommand(t *testing.T) {
	env := newDB(t)
	dataDir := filepath.Dir(env["BATON_DB"])
	r := baton(t, env, "capabilities", "--profile", "worker")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "---\ntitle: Capabilities\n") || !strings.Contains(r.stdout, "## Internal capabilities") ||
		!strings.Contains(r.stdout, "- Issues — ") || !strings.Contains(r.stderr, "file created") {
		t.Fatalf("capabilities = %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(dataDir, "prompts", "worker", "capabilities.md"))
	if err != nil || string(b) != r.stdout {
		t.Fatalf("the file differs from what was printed (%v):\n%s", err, b)
	}
	// The same summary as the tool writes for a worker session.
	r = baton(t, env, "capabilities", "--json")
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || out["is_error"] != false ||
		!strings.HasSuffix(out["path"].(string), "prompts/capabilities.md") || out["created_file"] != true {
		t.Fatalf("capabilities --json = %+v (%v)", r, err)
	}
	// The toolset's own subcommand is still there.
	if r := baton(t, env, "capabilities", "capabilities_refresh", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"created_file":false`) {
		t.Fatalf("capabilities capabilities_refresh = %+v", r)
	}
	if r := baton(t, env, "capabilities", "--profile", "nobody"); r.code == 0 || !strings.Contains(r.stderr, "nobody") {
		t.Fatalf("unknown profile = %+v", r)
	}
	if r := baton(t, env, "capabilities", "extra"); r.code != cli.ExitUsage {
		t.Fatalf("stray argument = %+v", r)
	}
}
