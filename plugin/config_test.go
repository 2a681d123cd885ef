package plugin_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/plugin"
)

// TestConfigRules: one row per rule, each naming the plugin, the field and
// the rule the error must carry.
func TestConfigRules(t *testing.T) {
	const stdio = `command = ["baton", "mcp"]` + "\n"
	for _, c := range []struct {
		name, toml          string
		plugin, field, rule string
	}{
		{"syntax", "[[plugin]\nname = 'x'", "", "", "syntax"},
		{"wrong type", "[[plugin]]\nname = 3\n" + stdio, "", "", "syntax"},
		{"unknown top-level key", "debug = true\n", "", "debug", "unknown_key"},
		{"unknown plugin key", "[[plugin]]\nname = 'ok'\n" + stdio + "[[plugin]]\nname = 'peer'\nurl = 'http://h/mcp'\nprofile = ['worker']\n", "peer", "profile", "unknown_key"},
		{"name missing", "[[plugin]]\n" + stdio, "#1", "name", "required"},
		{"name pattern: uppercase", "[[plugin]]\nname = 'Peer'\n" + stdio, "Peer", "name", "pattern"},
		{"name pattern: leading digit", "[[plugin]]\nname = '1peer'\n" + stdio, "1peer", "name", "pattern"},
		{"name pattern: dash", "[[plugin]]\nname = 'my-peer'\n" + stdio, "my-peer", "name", "pattern"},
		{"name pattern: 32 characters", "[[plugin]]\nname = '" + "p" + strings.Repeat("a", 31) + "'\n" + stdio, "p" + strings.Repeat("a", 31), "name", "pattern"},
		{"duplicate name", "[[plugin]]\nname = 'peer'\n" + stdio + "[[plugin]]\nname = 'peer'\nurl = 'http://h/mcp'\n", "peer", "name", "duplicate"},
		{"command and url", "[[plugin]]\nname = 'peer'\nurl = 'http://h/mcp'\n" + stdio, "peer", "command", "exclusive"},
		{"neither command nor url", "[[plugin]]\nname = 'peer'\n", "peer", "command", "required"},
		{"empty command", "[[plugin]]\nname = 'peer'\ncommand = []\n", "peer", "command", "minItems"},
		{"blank program", "[[plugin]]\nname = 'peer'\ncommand = [' ', 'mcp']\n", "peer", "command", "minItems"},
		{"url not http", "[[plugin]]\nname = 'peer'\nurl = 'ftp://h/mcp'\n", "peer", "url", "format"},
		{"url relative", "[[plugin]]\nname = 'peer'\nurl = '/mcp'\n", "peer", "url", "format"},
		{"headers without url", "[[plugin]]\nname = 'peer'\n" + stdio + "headers = { Authorization = 'Bearer x' }\n", "peer", "headers", "url_only"},
		{"header name", "[[plugin]]\nname = 'peer'\nurl = 'http://h/mcp'\nheaders = { 'Bad Header' = 'x' }\n", "peer", "headers", "pattern"},
		{"reserved header", "[[plugin]]\nname = 'peer'\nurl = 'http://h/mcp'\nheaders = { 'mcp-session-id' = 'x' }\n", "peer", "headers", "reserved"},
		{"profile not built in", "[[plugin]]\nname = 'peer'\n" + stdio + "profiles = ['worker', 'boss']\n", "peer", "profiles", "enum"},
		{"empty tool name", "[[plugin]]\nname = 'peer'\n" + stdio + "tools = ['']\n", "peer", "tools", "minLength"},
		{"duplicate tool", "[[plugin]]\nname = 'peer'\n" + stdio + "tools = ['a', 'a']\n", "peer", "tools", "duplicate"},
		{"scheduler cap", "[[plugin]]\nname = 'peer'\n" + stdio + "scheduler_cap = 'pulls'\n", "peer", "scheduler_cap", "enum"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := plugin.Parse("baton.toml", []byte(c.toml))
			e := baton.AsError(err)
			if err == nil || e.Code != baton.ErrConfigInvalid {
				t.Fatalf("got %v, want ERR_CONFIG_INVALID", err)
			}
			if e.Details["rule"] != c.rule || e.Details["field"] != c.field || e.Details["plugin"] != c.plugin {
				t.Fatalf("details = plugin %q field %q rule %q, want %q %q %q (%s)",
					e.Details["plugin"], e.Details["field"], e.Details["rule"], c.plugin, c.field, c.rule, e.Message)
			}
			if !strings.HasPrefix(e.Message, "baton.toml") || e.Hint == "" {
				t.Fatalf("message %q, hint %q", e.Message, e.Hint)
			}
			if c.plugin != "" && !strings.Contains(e.Message, "plugin "+c.plugin) {
				t.Fatalf("the message does not name the plugin: %s", e.Message)
			}
		})
	}
}

func TestConfigReportsEveryViolation(t *testing.T) {
	_, err := plugin.Parse("baton.toml", []byte("[[plugin]]\nname = 'A'\n[[plugin]]\nname = 'b'\nurl = 'x'\n"))
	e := baton.AsError(err)
	vs, _ := e.Details["violations"].([]plugin.Violation)
	if len(vs) != 3 || !strings.Contains(e.Message, "(and 2 more)") {
		t.Fatalf("violations = %+v (%s)", vs, e.Message)
	}
}

func TestConfigValid(t *testing.T) {
	c, err := plugin.Parse("baton.toml", []byte(`
[[plugin]]
name = "peer"
command = ["baton", "--db", "/x.db", "mcp", "--agent", "peer"]
profiles = ["worker"]
tools = ["task_create"]
scheduler_cap = "issues"
scheduler_blocked = true

[[plugin]]
name = "gh"
url = "https://example.com/mcp"
headers = { Authorization = "Bearer t" }
privileged = true

[[plugin]]
name = "quiet"
url = "http://127.0.0.1:7421/mcp"
profiles = []
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Plugins) != 3 {
		t.Fatalf("plugins = %+v", c.Plugins)
	}
	peer, gh, quiet := c.Plugins[0], c.Plugins[1], c.Plugins[2]
	if !slices.Equal(peer.Command, []string{"baton", "--db", "/x.db", "mcp", "--agent", "peer"}) || peer.SchedulerCap != "issues" ||
		!peer.SchedulerBlocked || !slices.Equal(peer.Profiles, []string{"worker"}) {
		t.Errorf("peer = %+v", peer)
	}
	if gh.Headers["Authorization"] != "Bearer t" || !gh.Privileged || gh.Profiles != nil {
		t.Errorf("gh = %+v", gh)
	}
	// An empty list is "no profile by default", not "every profile".
	if quiet.Profiles == nil || len(quiet.Profiles) != 0 {
		t.Errorf("quiet profiles = %#v", quiet.Profiles)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "baton.toml")
	if c, err := plugin.Load(missing, false); err != nil || len(c.Plugins) != 0 {
		t.Fatalf("an absent default file: %v %+v", err, c)
	}
	if _, err := plugin.Load(missing, true); baton.AsError(err).Code != baton.ErrConfigInvalid {
		t.Fatalf("an absent named file: %v", err)
	}
	if err := os.WriteFile(missing, []byte("[[plugin]]\nname = 'p'\nurl = 'http://h/mcp'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := plugin.Load(missing, true)
	if err != nil || c.Path != missing || c.Plugins[0].Name != "p" {
		t.Fatalf("load: %v %+v", err, c)
	}
}

func TestInChain(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml")
	env := a + string(filepath.ListSeparator) + "/elsewhere.toml"
	if !plugin.InChain(a, env) || plugin.InChain(b, env) || plugin.InChain(a, "") {
		t.Fatal("InChain")
	}
}
