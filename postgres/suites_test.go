package postgres_test

import (
	"os"
	"os/exec"
	"testing"
)

// suites are the packages whose tests build their stores through testkit:
// every tool through the registry, the MCP server and the orchestrator.
var suites = []string{"../tools/...", "../tool/...", "../mcpserver/...", "../orchestrator/..."}

// TestToolSuites runs those packages' tests once more with every store on
// PostgreSQL (BATON_TEST_STORE=postgres), so each tool is shown to behave
// the same on both backends, through the one test command.
func TestToolSuites(t *testing.T) {
	t.Parallel()
	if os.Getenv("BATON_TEST_POSTGRES_URL") == "" {
		t.Skip("BATON_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable); .ci/run sets it")
	}
	if testing.Short() {
		t.Skip("-short: the tool suites on PostgreSQL take minutes")
	}
	args := []string{"test", "-count=1"}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, suites...)...)
	cmd.Env = append(os.Environ(), "BATON_TEST_STORE=postgres")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tool suites fail on PostgreSQL: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
