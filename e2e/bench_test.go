package e2e

import (
	"strings"
	"testing"
)

// TestBenchCommand runs `baton bench` briefly in its stdio mode (agents as
// separate `baton mcp` processes on one database file) and its cold-start
// mode, and checks that each reports.
func TestBenchCommand(t *testing.T) {
	t.Parallel()
	out, code := cliRun(t, "bench", "--stdio", "--agents", "2", "--duration", "1s")
	if code != 0 || !strings.Contains(out, "2 agents") || !strings.Contains(out, "claim_next") || !strings.Contains(out, ", 0 errors") {
		t.Fatalf("bench --stdio: exit %d\n%s", code, out)
	}
	out, code = cliRun(t, "bench", "--cold-start", "2")
	if code != 0 || !strings.Contains(out, "tools/list") || !strings.Contains(out, "idle peak RSS") {
		t.Fatalf("bench --cold-start: exit %d\n%s", code, out)
	}
}
