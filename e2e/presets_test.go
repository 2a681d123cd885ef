package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPresets: a client configured by `baton setup` (the file it wrote, run
// as written, from a subdirectory) lists the core preset; --preset over
// stdio and a token's preset over HTTP list that product's catalogue (its
// privileged tools only by grant).
func TestPresets(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; .ci/run installs it")
	}
	reg := tools.Registry()
	unprivileged := func(preset string) []string {
		var out []string
		for _, n := range tool.PresetTools(reg, preset) {
			if tl, _ := reg.Get(n); !tl.Spec().Annotations.Privileged {
				out = append(out, n)
			}
		}
		return out
	}
	sorted := func(names []string) []string { slices.Sort(names); return names }

	repo := filepath.Join(t.TempDir(), "shop")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("baton %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run(repo, "init", "--project", "shop", "--prefix", "SHOP")
	run(repo, "setup", "claude-code", "--agent", "claude")

	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	b, err := os.ReadFile(filepath.Join(repo, ".mcp.json"))
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf(".mcp.json: %v\n%s", err, b)
	}
	entry := cfg.MCPServers["baton"]
	if entry.Command != bin {
		t.Fatalf(".mcp.json runs %q, want %q", entry.Command, bin)
	}
	sub := filepath.Join(repo, "web")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(entry.Command, entry.Args...)
	cmd.Dir = sub
	if got, want := sorted(toolNames(t, connect(t, &mcp.CommandTransport{Command: cmd}))), unprivileged(tool.PresetCore); !slices.Equal(got, want) {
		t.Errorf("the configured client lists %v\nwant core %v", got, want)
	}

	for _, preset := range []string{tool.PresetAdjutant, tool.PresetColibri, tool.PresetSymphony} {
		cmd := exec.Command(bin, "mcp", "--agent", "a", "--preset", preset)
		cmd.Dir = repo
		if got, want := sorted(toolNames(t, connect(t, &mcp.CommandTransport{Command: cmd}))), unprivileged(preset); !slices.Equal(got, want) {
			t.Errorf("--preset %s lists %v\nwant %v", preset, got, want)
		}
	}

	db := filepath.Join(repo, ".baton", "baton.db")
	token := issueToken(t, db, "col-bot", "--preset", "colibri")
	srv := startHTTPAuth(t, db)
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}})
	if got, want := sorted(toolNames(t, cs)), unprivileged(tool.PresetColibri); !slices.Equal(got, want) {
		t.Errorf("a token with --preset colibri lists %v\nwant %v", got, want)
	}
	if out := run(repo, "tools", "--preset", "core", "--json"); !json.Valid([]byte(out)) {
		t.Errorf("baton tools --preset core --json = %q", out)
	}
	if _, code := cliRun(t, "mcp", "--preset", "nope"); code != 2 {
		t.Errorf("mcp --preset nope: exit %d, want 2", code)
	}
}
