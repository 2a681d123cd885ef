package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/baton-dev/baton/tools"
)

// TestTypeScriptClient drives baton with the reference TypeScript MCP
// client (@modelcontextprotocol/sdk, pinned in interop/ts), which rejects
// bare boolean property schemas in tools/list and validates every
// structuredContent against the tool's outputSchema, error results too.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; .ci/run installs it (apt-get install nodejs npm)")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "interop", "ts"))
	// go test never reaches the network: the client is installed by
	// .ci/run (or by hand), not here.
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the TypeScript client is not installed; run: npm ci --prefix interop/ts (.ci/run does)")
	}
	run := func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(node, append([]string{"client.mjs"}, args...)...)
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node client.mjs %v: %v\n%s", args, err, out)
		}
		var report map[string]any
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("report is not JSON: %q", out)
		}
		return report
	}
	check := func(name string, r map[string]any, agent string) {
		t.Helper()
		// The full preset: every tool but the privileged ones, which come
		// only by a grant, and the aliases, which are callable unlisted.
		want := 0
		for _, tl := range tools.All() {
			if !tl.Spec().Annotations.Privileged && tl.Spec().AliasOf == "" {
				want++
			}
		}
		if n := len(r["tools"].([]any)); n != want {
			t.Errorf("%s: %d tools listed, want the %d unprivileged ones", name, n, want)
		}
		created := r["created"].(map[string]any)
		if created["task_id"] != "COL-1" || created["created_by"] != agent {
			t.Errorf("%s: created = %v", name, created)
		}
		if r["got"].(map[string]any)["title"] != "From TypeScript" {
			t.Errorf("%s: got = %v", name, r["got"])
		}
		for key, code := range map[string]string{"transition": "ERR_INVALID_TRANSITION", "invalid": "ERR_INVALID_INPUT"} {
			res := r[key].(map[string]any)
			e := res["structuredContent"].(map[string]any)["error"].(map[string]any)
			if res["isError"] != true || e["code"] != code {
				t.Errorf("%s: %s = %v", name, key, res)
			}
		}
		if r["health"] != "ok" {
			t.Errorf("%s: health = %v", name, r["health"])
		}
	}
	check("stdio", run("stdio", bin, newDB(t)), "agent-ts")
	srv := startHTTP(t, newDB(t), "--agent", "agent-http")
	check("http", run("http", srv.url+"/mcp"), "agent-http")
}
