package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peerDB is baton B's database: project peerproj, ids PEER-n, so nothing
// it holds can be mistaken for A's COL-n.
func peerDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "peer.db")
	if out, err := exec.Command(bin, "--db", db, "init", "--project", "peerproj", "--prefix", "PEER").CombinedOutput(); err != nil {
		t.Fatalf("baton init: %v\n%s", err, out)
	}
	return db
}

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stdioConfig names baton B twice over stdio: peer (every tool, for
// workers) and keeper (two tools, privileged).
func stdioConfig(dbB string) string {
	return fmt.Sprintf(`[[plugin]]
name = "peer"
command = [%[1]q, "--db", %[2]q, "mcp", "--preset", "full", "--agent", "peer-bot"]
profiles = ["worker"]

[[plugin]]
name = "keeper"
command = [%[1]q, "--db", %[2]q, "mcp", "--preset", "full", "--agent", "keeper-bot"]
privileged = true
tools = ["task_get", "task_update"]
`, bin, dbB)
}

// startA is baton A over stdio, run in dir, through the SDK's client.
func startA(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return connect(t, &mcp.CommandTransport{Command: cmd})
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tl.Name)
	}
	return out
}

// errCode is the code of a failed call's envelope.
func errCode(sc map[string]any) string {
	e, _ := sc["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// peerTask reads a task from B's database with B's CLI.
func peerTask(t *testing.T, dbB, id string) map[string]any {
	t.Helper()
	out, code := cliRun(t, "--db", dbB, "tasks", "task_get", "--task-id", id, "--json")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
		t.Fatalf("task_get %s in B: %d %s", id, code, out)
	}
	return m
}

func peerTaskCount(t *testing.T, dbB string) float64 {
	t.Helper()
	out, code := cliRun(t, "--db", dbB, "tasks", "task_list", "--project", "peerproj", "--json")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
		t.Fatalf("task_list in B: %d %s", code, out)
	}
	return m["total_count"].(float64)
}

// actionsOf are the actions in a database's exported audit bundle whose
// tool has the prefix, after `baton audit verify` found the log intact.
func actionsOf(t *testing.T, db, prefix string) []map[string]any {
	t.Helper()
	if out, code := cliRun(t, "--db", db, "audit", "verify"); code != 0 {
		t.Fatalf("audit verify: %d %s", code, out)
	}
	file := filepath.Join(t.TempDir(), "bundle.json")
	if out, code := cliRun(t, "--db", db, "audit", "export", file); code != 0 {
		t.Fatalf("audit export: %d %s", code, out)
	}
	b, _ := os.ReadFile(file)
	var bundle struct {
		Actions []map[string]any `json:"actions"`
	}
	if err := json.Unmarshal(b, &bundle); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, a := range bundle.Actions {
		if strings.HasPrefix(a["tool"].(string), prefix) {
			out = append(out, a)
		}
	}
	return out
}

// TestPluginOverStdio: baton A proxies baton B, started by A from the
// baton.toml in its working directory.
func TestPluginOverStdio(t *testing.T) {
	t.Parallel()
	dbA, dbB, dir := newDB(t), peerDB(t), t.TempDir()
	writeFile(t, filepath.Join(dir, "baton.toml"), stdioConfig(dbB))

	worker := startA(t, dir, "--db", dbA, "mcp", "--agent", "alice", "--agent-type", "worker")
	names := toolNames(t, worker)
	for _, want := range []string{"peer_task_create", "peer_task_get", "peer_claim_next", "task_create"} {
		if !slices.Contains(names, want) {
			t.Fatalf("a worker's tools/list lacks %s", want)
		}
	}
	if slices.Contains(names, "keeper_task_get") || slices.Contains(names, "keeper_task_update") {
		t.Fatal("privileged plugin tools are listed without a grant")
	}
	for tl, err := range worker.Tools(context.Background(), nil) {
		if err == nil && tl.Name == "peer_task_create" &&
			(!strings.HasPrefix(tl.Description, "[peer] ") || tl.Meta["baton/toolset"] != "plugin:peer") {
			t.Fatalf("peer_task_create is listed as %+v", tl)
		}
	}

	sc, isErr := callTool(t, worker, "peer_task_create", map[string]any{"title": "From A", "project": "peerproj"})
	if isErr || sc["task_id"] != "PEER-1" {
		t.Fatalf("peer_task_create: %v", sc)
	}
	if got := peerTask(t, dbB, "PEER-1"); got["title"] != "From A" || got["created_by"] != "peer-bot" {
		t.Fatalf("B holds %v", got)
	}

	// A refuses bad arguments with its own envelope.
	sc, isErr = callTool(t, worker, "peer_task_create", map[string]any{"title": "", "project": "peerproj"})
	if d, _ := sc["error"].(map[string]any)["details"].(map[string]any); !isErr || errCode(sc) != baton.ErrInvalidInput || d["field"] != "title" {
		t.Fatalf("empty title: %v", sc)
	}
	// B's refusal comes back as B said it.
	sc, isErr = callTool(t, worker, "peer_task_get", map[string]any{"task_id": "PEER-404"})
	if !isErr || errCode(sc) != baton.ErrTaskNotFound {
		t.Fatalf("unknown task in B: %v", sc)
	}
	if n := peerTaskCount(t, dbB); n != 1 {
		t.Fatalf("B holds %v tasks, want 1", n)
	}
	// One action in A's log: the successful change, by A's caller.
	acts := actionsOf(t, dbA, "peer_")
	if len(acts) != 1 || acts[0]["tool"] != "peer_task_create" || acts[0]["agent"] != "alice" || acts[0]["subject"] != "plugin:peer:PEER-1" {
		t.Fatalf("A's plugin actions: %v", acts)
	}

	t.Run("a profile without the plugin", func(t *testing.T) {
		judge := startA(t, dir, "--db", dbA, "mcp", "--agent", "jo", "--agent-type", "judge")
		for _, n := range toolNames(t, judge) {
			if strings.HasPrefix(n, "peer_") || strings.HasPrefix(n, "keeper_") {
				t.Fatalf("a judge sees %s", n)
			}
		}
		sc, isErr := callTool(t, judge, "peer_task_create", map[string]any{"title": "x", "project": "peerproj"})
		if !isErr || errCode(sc) != baton.ErrPermissionDenied {
			t.Fatalf("a judge calling peer_task_create: %v", sc)
		}
	})

	t.Run("privileged by grant", func(t *testing.T) {
		cmd := exec.Command(bin, "--db", dbA, "profile", "allow", "worker", "keeper_task_update")
		cmd.Dir = dir // the plugins are known from baton.toml there
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("baton profile allow: %v\n%s", err, out)
		}
		granted := startA(t, dir, "--db", dbA, "mcp", "--agent", "alice", "--agent-type", "worker")
		names := toolNames(t, granted)
		if !slices.Contains(names, "keeper_task_update") || slices.Contains(names, "keeper_task_get") {
			t.Fatalf("after the grant: %v", names)
		}
		if sc, isErr := callTool(t, granted, "keeper_task_update", map[string]any{"task_id": "PEER-1", "status": "todo"}); isErr {
			t.Fatalf("keeper_task_update: %v", sc)
		}
		if got := peerTask(t, dbB, "PEER-1"); got["status"] != "todo" || got["updated_by"] != "keeper-bot" {
			t.Fatalf("B holds %v", got)
		}
	})

	t.Run("privileged by tool-scope file", func(t *testing.T) {
		scope := writeFile(t, filepath.Join(t.TempDir(), "scope.json"), `["keeper_task_get"]`)
		scoped := startA(t, dir, "--db", dbA, "mcp", "--agent", "alice", "--tool-scope-file", scope)
		if names := toolNames(t, scoped); !slices.Equal(names, []string{"keeper_task_get"}) {
			t.Fatalf("tools/list = %v", names)
		}
		if sc, isErr := callTool(t, scoped, "keeper_task_get", map[string]any{"task_id": "PEER-1"}); isErr || sc["title"] != "From A" {
			t.Fatalf("keeper_task_get: %v", sc)
		}
	})

	t.Run("baton tools", func(t *testing.T) {
		for _, c := range []struct {
			args      []string
			has, lack []string
		}{
			{[]string{"tools"}, []string{"peer_task_create", "plugin:peer", "keeper_task_get"}, nil},
			{[]string{"tools", "--profile", "worker"}, []string{"peer_task_create", "keeper_task_update"}, []string{"keeper_task_get"}},
			{[]string{"tools", "--profile", "judge"}, nil, []string{"peer_", "keeper_"}},
			{[]string{"tools", "--markdown"}, nil, []string{"peer_"}},
		} {
			cmd := exec.Command(bin, append([]string{"--db", dbA}, c.args...)...)
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %v", c.args, err)
			}
			for _, s := range c.has {
				if !bytes.Contains(out, []byte(s)) {
					t.Errorf("%v lacks %s", c.args, s)
				}
			}
			for _, s := range c.lack {
				if bytes.Contains(out, []byte(s)) {
					t.Errorf("%v lists %s", c.args, s)
				}
			}
		}
	})

	t.Run("closing A stops B", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("reads /proc")
		}
		a := startA(t, dir, "--db", dbA, "mcp", "--preset", "full", "--agent", "alice")
		if n := running(dbB); n < 2 {
			t.Fatalf("%d plugin processes while A runs, want at least 2", n)
		}
		a.Close()
		worker.Close()
		deadline := time.Now().Add(15 * time.Second)
		for running(dbB) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d plugin processes outlive the batons that started them", running(dbB))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// running counts the processes whose command line names db.
func running(db string) int {
	n := 0
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(db)) {
			n++
		}
	}
	return n
}

// recorder is a reverse proxy in front of baton B that counts the tool
// calls reaching B and the requests carrying the config's header.
type recorder struct {
	calls, withHeader atomic.Int32
}

func (r *recorder) wrap(t *testing.T, target string) string {
	t.Helper()
	u, _ := url.Parse(target)
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1 // pass SSE through as it comes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			r.calls.Add(1)
		}
		if req.Header.Get("X-Baton-Plugin") == "a" {
			r.withHeader.Add(1)
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestPluginOverHTTP: baton A proxies baton B served over Streamable
// HTTP; bad arguments never reach B.
func TestPluginOverHTTP(t *testing.T) {
	t.Parallel()
	dbA, dbB := newDB(t), peerDB(t)
	b := startHTTP(t, dbB, "--insecure-local", "--agent", "peer-http")
	rec := &recorder{}
	cfg := writeFile(t, filepath.Join(t.TempDir(), "plugins.toml"), fmt.Sprintf(`[[plugin]]
name = "peer"
url = %q
headers = { X-Baton-Plugin = "a" }
tools = ["task_create", "task_get"]
`, rec.wrap(t, b.url)+"/mcp"))

	a := startA(t, t.TempDir(), "--db", dbA, "mcp", "--preset", "full", "--config", cfg, "--agent", "alice")
	names := toolNames(t, a)
	if !slices.Contains(names, "peer_task_create") || !slices.Contains(names, "peer_task_get") || slices.Contains(names, "peer_task_list") {
		t.Fatalf("the allowlist is not applied: %v", names)
	}
	sc, isErr := callTool(t, a, "peer_task_create", map[string]any{"title": "Over HTTP", "project": "peerproj"})
	if isErr || sc["task_id"] != "PEER-1" {
		t.Fatalf("peer_task_create: %v", sc)
	}
	if got := peerTask(t, dbB, "PEER-1"); got["title"] != "Over HTTP" || got["created_by"] != "peer-http" {
		t.Fatalf("B holds %v", got)
	}
	if rec.calls.Load() != 1 || rec.withHeader.Load() == 0 {
		t.Fatalf("B saw %d calls, %d requests with the configured header", rec.calls.Load(), rec.withHeader.Load())
	}
	for _, args := range []map[string]any{
		{"title": "x", "project": "peerproj", "priority": "whenever"},
		{"title": "x", "project": "peerproj", "created_by": "mallory"},
		{"project": "peerproj"},
	} {
		sc, isErr := callTool(t, a, "peer_task_create", args)
		if !isErr || errCode(sc) != baton.ErrInvalidInput {
			t.Fatalf("%v: %v", args, sc)
		}
	}
	if n := rec.calls.Load(); n != 1 {
		t.Fatalf("bad arguments reached B: %d calls", n)
	}
	sc, isErr = callTool(t, a, "peer_task_get", map[string]any{"task_id": "PEER-404"})
	if !isErr || errCode(sc) != baton.ErrTaskNotFound {
		t.Fatalf("unknown task in B: %v", sc)
	}
	if acts := actionsOf(t, dbA, "peer_"); len(acts) != 1 || acts[0]["tool"] != "peer_task_create" {
		t.Fatalf("A's plugin actions: %v", acts)
	}
}

// TestPluginStartupFailures: a plugin that cannot start, or a config that
// breaks a rule, stops baton mcp and baton serve with a message naming it.
func TestPluginStartupFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := newDB(t)
	gone := writeFile(t, filepath.Join(dir, "gone.toml"), "[[plugin]]\nname = \"gone\"\ncommand = [\"/nonexistent/mcp-server\"]\n")
	typo := writeFile(t, filepath.Join(dir, "typo.toml"), "[[plugin]]\nname = \"peer\"\nurl = \"http://127.0.0.1:1/mcp\"\nprofile = [\"worker\"]\n")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"mcp, plugin cannot start", []string{"mcp", "--config", gone}, []string{"ERR_INIT_FAILED", "plugin gone"}},
		{"serve, plugin cannot start", []string{"serve", "--insecure-local", "--addr", "127.0.0.1:0", "--config", gone}, []string{"ERR_INIT_FAILED", "plugin gone"}},
		{"unknown key", []string{"mcp", "--config", typo}, []string{"ERR_CONFIG_INVALID", "plugin peer", `"profile"`}},
		{"missing file", []string{"mcp", "--config", filepath.Join(dir, "none.toml")}, []string{"ERR_CONFIG_INVALID", "none.toml"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"--db", db}, c.args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("baton started")
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("baton did not stop: %s", stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %s: %s", w, stderr.String())
				}
			}
		})
	}
}
