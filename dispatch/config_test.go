package dispatch

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// TestConfigErrors: each broken rule of [dispatch] is refused with the
// field named, and every violation is in the details.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, toml, field, rule string
	}{
		{"syntax", "[dispatch\n", "", "syntax"},
		{"unknown key", "[dispatch]\nmax_agent = 2\n", "max_agent", "unknown_key"},
		{"unknown profile key", "[dispatch.profiles.worker]\ncommand = [\"x\"]\ntimout = \"1m\"\n", "profiles.worker.timout", "unknown_key"},
		{"no command", "[dispatch.profiles.worker]\ntimeout = \"1m\"\n", "profiles.worker.command", "required"},
		{"empty program", "[dispatch.profiles.worker]\ncommand = [\" \"]\n", "profiles.worker.command", "required"},
		{"unknown placeholder", "[dispatch.profiles.worker]\ncommand = [\"claude\", \"{promt}\"]\n", "profiles.worker.command[1]", "placeholder"},
		{"placeholder program", "[dispatch.profiles.worker]\ncommand = [\"{worktree}/agent\"]\n", "profiles.worker.command", "program"},
		{"bad duration", "[dispatch.profiles.worker]\ncommand = [\"x\"]\ntimeout = \"soon\"\n", "", "syntax"},
		{"short timeout", "[dispatch.profiles.worker]\ncommand = [\"x\"]\ntimeout = \"10ms\"\n", "profiles.worker.timeout", "range"},
		{"agents", "[dispatch]\nmax_agents = 1000\n", "max_agents", "range"},
		{"retries", "[dispatch]\nmax_retries = -1\n", "max_retries", "range"},
		{"lease", "[dispatch]\nlease = \"1s\"\n", "lease", "range"},
		{"backoff order", "[dispatch]\nbackoff = \"1m\"\nmax_backoff = \"10s\"\n", "max_backoff", "range"},
		{"profile name", "[dispatch.profiles.Worker]\ncommand = [\"x\"]\n", "profiles.Worker", "pattern"},
		{"reserved env", "[dispatch.profiles.worker]\ncommand = [\"x\"]\nenv = { BATON_DB = \"other\" }\n", "profiles.worker.env", "reserved"},
		{"program in a worktree", "[dispatch.profiles.worker]\ncommand = [\"/repo/.symphony-workspaces/SYM-1/agent.sh\"]\n", "profiles.worker.command", "program"},
		{"env name", "[dispatch.profiles.worker]\ncommand = [\"x\"]\nenv = { \"A-B\" = \"1\" }\n", "profiles.worker.env", "pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("baton.toml", []byte(tc.toml))
			e := baton.AsError(err)
			if e == nil || e.Code != baton.ErrConfigInvalid || e.Details["field"] != tc.field || e.Details["rule"] != tc.rule ||
				!strings.HasPrefix(e.Message, "baton.toml: [dispatch]: ") || e.Hint == "" {
				t.Fatalf("got %+v", e)
			}
		})
	}
	_, err := Parse("baton.toml", []byte("[dispatch]\nmax_agents = -1\nmax_retries = 500\n"))
	if e := baton.AsError(err); e == nil || len(e.Details["violations"].([]Violation)) != 2 || !strings.Contains(e.Message, "(and 1 more)") {
		t.Fatalf("two violations: %+v", e)
	}
}

// TestConfigDefaults: an empty table, and a missing file, dispatch nothing
// with the documented defaults; a profile's own limit stays within the
// table's; the other tables of baton.toml are not [dispatch]'s business.
func TestConfigDefaults(t *testing.T) {
	c, err := Load(t.TempDir()+"/none.toml", false)
	if err != nil || len(c.Profiles) != 0 || c.MaxAgents != DefaultMaxAgents || c.Retries() != DefaultMaxRetries ||
		c.Poll.Duration != DefaultPoll || c.Lease.Duration != DefaultLease || c.OutputCap != DefaultOutputLimit {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	if _, err := Load(t.TempDir()+"/none.toml", true); baton.ErrorCode(err) != baton.ErrConfigInvalid {
		t.Fatalf("a named missing file: %v", err)
	}
	c, err = Parse("baton.toml", []byte(`
[[plugin]]
name = "x"
url = "http://127.0.0.1:1/mcp"
[embedding]
provider = "builtin"
[dispatch]
max_agents = 2
max_retries = 0
[dispatch.profiles.worker]
command = ["w"]
max_agents = 5
[dispatch.profiles.judge]
command = ["j"]
timeout = "90s"
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Profiles["worker"].MaxAgents != 2 || c.Profiles["worker"].Timeout.Duration != DefaultTimeout ||
		c.Profiles["judge"].Timeout.Duration != 90*time.Second || c.Retries() != 0 || c.Profiles["judge"].Name != "judge" ||
		!slices.Equal(c.ProfileNames(), []string{"judge", "worker"}) {
		t.Fatalf("config: %+v", c)
	}
}

// TestProgramPaths: a relative program is the config file's neighbour, not
// the worktree's; a bare name stays for PATH.
func TestProgramPaths(t *testing.T) {
	c, err := Parse("/etc/team/baton.toml", []byte("[dispatch.profiles.worker]\ncommand = [\"./scripts/agent.sh\", \"{prompt}\"]\n"+
		"[dispatch.profiles.judge]\ncommand = [\"claude\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Profiles["worker"].Command[0]; got != "/etc/team/scripts/agent.sh" {
		t.Errorf("worker program %q", got)
	}
	if got := c.Profiles["judge"].Command[0]; got != "claude" {
		t.Errorf("judge program %q", got)
	}
}

// TestBackoff: 10 s doubling per failure, capped at 5 min.
func TestBackoff(t *testing.T) {
	c, _ := Parse("baton.toml", nil)
	var got []time.Duration
	for n := 1; n <= 7; n++ {
		got = append(got, c.BackoffAfter(n))
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second}
	if !slices.Equal(got, want) {
		t.Fatalf("backoff %v, want %v", got, want)
	}
}

// TestExpand: placeholders are replaced inside arguments and every
// argument stays one, whatever the values hold.
func TestExpand(t *testing.T) {
	p := &Profile{Command: []string{"agent", "-p", "{prompt}", "--cfg={mcp_config}", "{issue}:{profile}", "{worktree}", "{prompt_file}", `{"json": 1}`}}
	got := p.Expand(Vars{Prompt: "fix it; rm -rf / {issue}", PromptFile: "/r/p.md", MCPConfig: "/r/mcp.json", Worktree: "/w t",
		Issue: "SYM-1", Profile: "worker"})
	want := []string{"agent", "-p", "fix it; rm -rf / {issue}", "--cfg=/r/mcp.json", "SYM-1:worker", "/w t", "/r/p.md", `{"json": 1}`}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

// TestDocumentedExamples: every TOML example in docs/dispatch.md is a
// valid [dispatch] table.
func TestDocumentedExamples(t *testing.T) {
	b, err := os.ReadFile("../docs/dispatch.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllSubmatch(b, -1)
	if len(blocks) < 4 {
		t.Fatalf("%d TOML examples", len(blocks))
	}
	var programs []string
	for _, m := range blocks {
		c, err := Parse("docs/dispatch.md", m[1])
		if err != nil {
			t.Fatalf("example:\n%s\n%v", m[1], err)
		}
		for _, p := range c.Profiles {
			programs = append(programs, p.Command[0])
		}
	}
	for _, want := range []string{"claude", "codex", "scripts/agent.sh"} {
		if !slices.ContainsFunc(programs, func(p string) bool { return p == want || strings.HasSuffix(p, "/"+want) }) {
			t.Errorf("no %s example in %v", want, programs)
		}
	}
}

// TestTail keeps the last bytes, whole runes, and counts what it dropped.
func TestTail(t *testing.T) {
	// 17 bytes; the last 9 start inside ö, whose half is dropped too.
	tl := newTail(9)
	_, _ = tl.Write([]byte("hello "))
	_, _ = tl.Write([]byte("wörld\nlast"))
	s, dropped := tl.String()
	if s != "rld\nlast" || dropped != 9 {
		t.Fatalf("tail %q, dropped %d", s, dropped)
	}
	if tl.LastLine() != "last" {
		t.Fatalf("last line %q", tl.LastLine())
	}
}
