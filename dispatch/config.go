// Package dispatch runs agents on ready work: for each item a profile can
// take, it claims the item, makes (or reuses) the item's git worktree,
// writes an MCP client configuration that starts `baton mcp` bound to the
// item, starts the configured agent command there, renews the claim while
// the agent runs, records the run and its stream, and retries failures
// with backoff until a human has to look (DESIGN "Review, phases and the
// orchestrator").
package dispatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tomlconf"
	"github.com/baton-dev/baton/worktree"
)

// Defaults of the [dispatch] table.
const (
	DefaultMaxAgents   = 4
	DefaultMaxRetries  = 3
	DefaultTimeout     = 20 * time.Minute // Symphony's agent.turn_timeout_ms
	DefaultPoll        = 5 * time.Second  // Symphony's poll_interval_ms
	DefaultLease       = 2 * time.Minute
	DefaultBackoff     = 10 * time.Second // first retry; doubles per failure
	DefaultMaxBackoff  = 5 * time.Minute  // Symphony's agent.max_retry_backoff_ms
	DefaultGrace       = 10 * time.Second
	DefaultOutputLimit = 256 << 10

	maxAgentsLimit  = 256
	maxRetriesLimit = 100
	maxArgs         = 256
	maxArgLen       = 64 << 10
	maxEnv          = 64
)

// Placeholders are what a command's arguments may hold; each is replaced
// per run.
var Placeholders = []string{"prompt", "prompt_file", "mcp_config", "worktree", "issue", "profile"}

// placeholderRE finds {name} in an argument; names outside Placeholders
// are errors, so a misspelt one is not passed on to the agent as text.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([a-z_]+)\}`) })

// envKeyRE is an environment variable's name.
var envKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// Config is the [dispatch] table of baton.toml:
//
//	[dispatch]
//	max_agents = 4          # agents at once, per project, per dispatcher
//	max_retries = 3         # failed runs retried before the item is blocked for you
//	[dispatch.profiles.worker]
//	command = ["claude", "-p", "{prompt}", "--mcp-config", "{mcp_config}", "--output-format", "stream-json", "--verbose"]
//	timeout = "20m"
//
// Only profiles with a command are dispatched; work whose profile has
// none waits for someone to take it by hand.
type Config struct {
	Path       string              `toml:"-"`
	MaxAgents  int                 `toml:"max_agents"`
	MaxRetries *int                `toml:"max_retries"`
	Poll       Duration            `toml:"poll"`
	Lease      Duration            `toml:"lease"`
	Backoff    Duration            `toml:"backoff"`
	MaxBackoff Duration            `toml:"max_backoff"`
	Grace      Duration            `toml:"grace"`
	OutputCap  int                 `toml:"output_limit"`
	Profiles   map[string]*Profile `toml:"profiles"`
}

// Profile is one [dispatch.profiles.NAME] table: how to start an agent of
// that profile.
type Profile struct {
	Name      string            `toml:"-"`
	Command   []string          `toml:"command"`
	Timeout   Duration          `toml:"timeout"`
	MaxAgents int               `toml:"max_agents"` // 0: the table's max_agents
	Env       map[string]string `toml:"env"`
}

// Duration is a TOML string such as "20m".
type Duration struct{ time.Duration }

// UnmarshalText reads a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. \"90s\", \"20m\")", b)
	}
	d.Duration = v
	return nil
}

// Retries is how many failed runs of an item are retried.
func (c *Config) Retries() int {
	if c.MaxRetries == nil {
		return DefaultMaxRetries
	}
	return *c.MaxRetries
}

// Backoff is the wait before the retry that follows the n-th failed run in
// a row: backoff × 2^(n−1), at most max_backoff (10 s, 20 s, 40 s, ... 5 min).
func (c *Config) BackoffAfter(n int) time.Duration {
	d := c.Backoff.Duration
	for i := 1; i < n && d < c.MaxBackoff.Duration; i++ {
		d *= 2
	}
	return min(d, c.MaxBackoff.Duration)
}

// ProfileNames lists the configured profiles, sorted.
func (c *Config) ProfileNames() []string {
	out := make([]string, 0, len(c.Profiles))
	for n := range c.Profiles {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// keys are the [dispatch] and profile keys, for the message on an unknown one.
const (
	keys        = "max_agents, max_retries, poll, lease, backoff, max_backoff, grace, output_limit, profiles"
	profileKeys = "command, timeout, max_agents, env"
)

// Violation is one broken rule of the [dispatch] table.
type Violation = tomlconf.Violation

// Load reads the [dispatch] table of the TOML file at path. A missing
// file is ERR_CONFIG_INVALID when mustExist (a file asked for by name);
// otherwise it, or a file without the table, is a config with no
// profiles, which dispatches nothing.
func Load(path string, mustExist bool) (*Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !mustExist {
		return Parse(path, nil)
	}
	if err != nil {
		return nil, baton.Errorf(baton.ErrConfigInvalid, "cannot read the config %s: %v", path, err).
			WithDetails("file", path).
			WithHint("pass --config (or BATON_CONFIG) a readable TOML file, or leave both unset to use ./baton.toml")
	}
	return Parse(path, b)
}

// Parse decodes and checks the [dispatch] table of a file's contents and
// fills in the defaults; path names the file in errors. Every broken rule
// is in the error's details, the first in its message.
func Parse(path string, data []byte) (*Config, error) {
	var f struct {
		Dispatch Config `toml:"dispatch"`
	}
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		// Not TOML at all, or a value of the wrong type.
		v := tomlconf.Decoding(err, "dispatch")
		return nil, configError(path, []Violation{v})
	}
	var vs []Violation
	for _, k := range md.Undecoded() {
		switch {
		case len(k) == 2 && k[0] == "dispatch":
			vs = append(vs, Violation{Field: k[1], Rule: "unknown_key",
				Message: fmt.Sprintf("unknown key %q in [dispatch] (known keys: %s)", k[1], keys)})
		case len(k) == 4 && k[0] == "dispatch" && k[1] == "profiles":
			vs = append(vs, Violation{Field: "profiles." + k[2] + "." + k[3], Rule: "unknown_key",
				Message: fmt.Sprintf("unknown key %q in [dispatch.profiles.%s] (known keys: %s)", k[3], k[2], profileKeys)})
		}
	}
	c := &f.Dispatch
	c.Path = path
	vs = append(vs, c.validate()...)
	vs = append(vs, c.resolve(filepath.Dir(path))...)
	if len(vs) > 0 {
		return nil, configError(path, vs)
	}
	c.defaults()
	return c, nil
}

// resolve makes a program given as a relative path (./scripts/agent.sh)
// absolute, from the config file's directory: the agent runs in its
// worktree, where the worker's own commits could otherwise put a program
// of its choosing under that name. A program inside the worktrees' folder
// is refused for the same reason. A bare name is looked up in PATH.
func (c *Config) resolve(dir string) []Violation {
	var vs []Violation
	for _, name := range c.ProfileNames() {
		p := c.Profiles[name]
		if p == nil || len(p.Command) == 0 {
			continue
		}
		prog := p.Command[0]
		if !strings.ContainsRune(prog, '/') && !strings.ContainsRune(prog, filepath.Separator) {
			continue
		}
		if !filepath.IsAbs(prog) {
			abs, err := filepath.Abs(filepath.Join(dir, prog))
			if err != nil {
				continue
			}
			p.Command[0] = abs
		}
		if slices.Contains(strings.Split(filepath.ToSlash(p.Command[0]), "/"), worktree.DirName) {
			vs = append(vs, Violation{Field: "profiles." + name + ".command", Rule: "program",
				Message: fmt.Sprintf("the program %s is inside %s/, where agents write: give one outside the worktrees", prog, worktree.DirName)})
		}
	}
	return vs
}

func (c *Config) defaults() {
	if c.MaxAgents == 0 {
		c.MaxAgents = DefaultMaxAgents
	}
	for _, d := range []struct {
		v   *Duration
		def time.Duration
	}{{&c.Poll, DefaultPoll}, {&c.Lease, DefaultLease}, {&c.Backoff, DefaultBackoff}, {&c.MaxBackoff, DefaultMaxBackoff}, {&c.Grace, DefaultGrace}} {
		if d.v.Duration == 0 {
			d.v.Duration = d.def
		}
	}
	if c.OutputCap == 0 {
		c.OutputCap = DefaultOutputLimit
	}
	if c.Profiles == nil {
		c.Profiles = map[string]*Profile{}
	}
	for name, p := range c.Profiles {
		p.Name = name
		if p.Timeout.Duration == 0 {
			p.Timeout.Duration = DefaultTimeout
		}
		if p.MaxAgents == 0 || p.MaxAgents > c.MaxAgents {
			p.MaxAgents = c.MaxAgents
		}
	}
}

// validate checks the table as written (before defaults).
func (c *Config) validate() []Violation {
	var vs []Violation
	bad := func(field, rule, format string, args ...any) {
		vs = append(vs, Violation{Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	if c.MaxAgents < 0 || c.MaxAgents > maxAgentsLimit {
		bad("max_agents", "range", "max_agents = %d is outside 1..%d", c.MaxAgents, maxAgentsLimit)
	}
	if r := c.MaxRetries; r != nil && (*r < 0 || *r > maxRetriesLimit) {
		bad("max_retries", "range", "max_retries = %d is outside 0..%d", *r, maxRetriesLimit)
	}
	for _, d := range []struct {
		name     string
		v        time.Duration
		min, max time.Duration
	}{{"poll", c.Poll.Duration, 100 * time.Millisecond, time.Hour}, {"lease", c.Lease.Duration, 3 * time.Second, 24 * time.Hour},
		{"backoff", c.Backoff.Duration, time.Millisecond, 24 * time.Hour}, {"max_backoff", c.MaxBackoff.Duration, time.Millisecond, 7 * 24 * time.Hour},
		{"grace", c.Grace.Duration, 100 * time.Millisecond, 10 * time.Minute}} {
		if d.v != 0 && (d.v < d.min || d.v > d.max) {
			bad(d.name, "range", "%s = %q is outside %s..%s", d.name, d.v, d.min, d.max)
		}
	}
	if c.Backoff.Duration != 0 && c.MaxBackoff.Duration != 0 && c.MaxBackoff.Duration < c.Backoff.Duration {
		bad("max_backoff", "range", "max_backoff (%s) is below backoff (%s)", c.MaxBackoff.Duration, c.Backoff.Duration)
	}
	if c.OutputCap < 0 || c.OutputCap > 16<<20 {
		bad("output_limit", "range", "output_limit = %d is outside 1..%d bytes", c.OutputCap, 16<<20)
	}
	names := make([]string, 0, len(c.Profiles))
	for n := range c.Profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		p := c.Profiles[name]
		field := "profiles." + name
		if p == nil {
			continue
		}
		if err := (&baton.Profile{Name: name}).Validate(); err != nil {
			bad(field, "pattern", "profile name %q is not valid: a lowercase letter, then up to 39 lowercase letters, digits, _ or -", name)
		}
		switch {
		case len(p.Command) == 0 || strings.TrimSpace(p.Command[0]) == "":
			bad(field+".command", "required", "command is required: the program and its arguments, e.g. [\"claude\", \"-p\", \"{prompt}\", \"--mcp-config\", \"{mcp_config}\"]")
		case len(p.Command) > maxArgs:
			bad(field+".command", "maxItems", "command has %d arguments; at most %d", len(p.Command), maxArgs)
		}
		for i, arg := range p.Command {
			if len(arg) > maxArgLen {
				bad(fmt.Sprintf("%s.command[%d]", field, i), "maxLength", "argument %d is %d bytes; at most %d", i, len(arg), maxArgLen)
			}
			for _, m := range placeholderRE().FindAllStringSubmatch(arg, -1) {
				if !slices.Contains(Placeholders, m[1]) {
					bad(fmt.Sprintf("%s.command[%d]", field, i), "placeholder", "unknown placeholder {%s} (known: {%s})", m[1], strings.Join(Placeholders, "}, {"))
				}
			}
		}
		if len(p.Command) > 0 && placeholderRE().MatchString(p.Command[0]) {
			bad(field+".command", "program", "the program (command[0]) cannot be a placeholder")
		}
		if t := p.Timeout.Duration; t < 0 || (t != 0 && t < time.Second) || t > 48*time.Hour {
			bad(field+".timeout", "range", "timeout = %q is outside 1s..48h", t)
		}
		if p.MaxAgents < 0 || p.MaxAgents > maxAgentsLimit {
			bad(field+".max_agents", "range", "max_agents = %d is outside 1..%d", p.MaxAgents, maxAgentsLimit)
		}
		if len(p.Env) > maxEnv {
			bad(field+".env", "maxItems", "env sets %d variables; at most %d", len(p.Env), maxEnv)
		}
		for k := range p.Env {
			if !envKeyRE().MatchString(k) {
				bad(field+".env", "pattern", "%q is not an environment variable name", k)
			} else if strings.HasPrefix(k, "BATON_") {
				bad(field+".env", "reserved", "%s is set by the dispatcher", k)
			}
		}
	}
	return vs
}

// configError is ERR_CONFIG_INVALID for vs: the first in the message, all
// of them in details.
func configError(path string, vs []Violation) *baton.Error {
	return tomlconf.Error(path, "dispatch", vs, "see docs/dispatch.md for the [dispatch] table and its examples")
}

// Vars are a run's placeholder values.
type Vars struct {
	Prompt, PromptFile, MCPConfig, Worktree, Issue, Profile string
}

// Expand returns the profile's command with every placeholder replaced.
// Each argument stays one argument, whatever the values hold: no shell
// sees them.
func (p *Profile) Expand(v Vars) []string {
	vals := map[string]string{"prompt": v.Prompt, "prompt_file": v.PromptFile, "mcp_config": v.MCPConfig,
		"worktree": v.Worktree, "issue": v.Issue, "profile": v.Profile}
	out := make([]string, len(p.Command))
	for i, arg := range p.Command {
		out[i] = placeholderRE().ReplaceAllStringFunc(arg, func(m string) string {
			return vals[m[1:len(m)-1]]
		})
	}
	return out
}
