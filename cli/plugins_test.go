package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServer serves MCP over HTTP with one tool, named name, that echoes.
func mcpServer(t *testing.T, name string) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: name, Description: "Echo.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func pluginConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "baton.toml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPluginToolNameCollision: a plugin whose prefixed tool is already a
// baton tool is refused, naming both, instead of shadowing it.
func TestPluginToolNameCollision(t *testing.T) {
	env := newDB(t)
	env["BATON_CONFIG"] = pluginConfig(t, "[[plugin]]\nname = \"task\"\nurl = \""+mcpServer(t, "create")+"\"\n")
	r := baton(t, env, "tools")
	if r.code == 0 || !strings.Contains(r.stderr, "ERR_CONFIG_INVALID") || !strings.Contains(r.stderr, "plugin task offers task_create") {
		t.Fatalf("tools = %+v", r)
	}
}

// TestPluginConfigSources: --config wins over BATON_CONFIG, which wins over
// ./baton.toml; a named file must exist, the default one need not.
func TestPluginConfigSources(t *testing.T) {
	env := newDB(t)
	good := pluginConfig(t, "[[plugin]]\nname = \"ext\"\nurl = \""+mcpServer(t, "echo")+"\"\n")
	bad := pluginConfig(t, "[[plugin]]\nname = \"Ext\"\n")
	t.Chdir(t.TempDir())
	if r := baton(t, env, "tools"); r.code != 0 || strings.Contains(r.stdout, "ext_echo") {
		t.Fatalf("without a config: %+v", r)
	}
	env["BATON_CONFIG"] = good
	if r := baton(t, env, "tools"); r.code != 0 || !strings.Contains(r.stdout, "ext_echo") || !strings.Contains(r.stdout, "plugin:ext") {
		t.Fatalf("BATON_CONFIG: %+v", r)
	}
	env["BATON_CONFIG"] = bad
	if r := baton(t, env, "tools"); r.code == 0 || !strings.Contains(r.stderr, "ERR_CONFIG_INVALID") {
		t.Fatalf("a bad BATON_CONFIG: %+v", r)
	}
	// --config wins: baton mcp starts (and ends at once on empty stdin).
	if r := baton(t, env, "mcp", "--config", good); r.code != 0 {
		t.Fatalf("--config over BATON_CONFIG: %+v", r)
	}
	env["BATON_CONFIG"] = filepath.Join(t.TempDir(), "absent.toml")
	if r := baton(t, env, "mcp"); r.code == 0 || !strings.Contains(r.stderr, "absent.toml") {
		t.Fatalf("a missing BATON_CONFIG: %+v", r)
	}
}
