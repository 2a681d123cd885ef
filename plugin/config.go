// Package plugin proxies the tools of other MCP servers: baton.toml names
// them (a command speaking MCP on stdio, or a Streamable HTTP URL), and
// each of their tools becomes a baton tool named <plugin>_<tool>, subject
// to the same scopes, validation and audit as baton's own.
package plugin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// DefaultFile is the config file baton looks for in the working directory.
const DefaultFile = "baton.toml"

// Config is the parsed plugin file.
type Config struct {
	Path    string   `toml:"-"` // where it was read from; "" when there was no file
	Plugins []Plugin `toml:"plugin"`
}

// Plugin is one [[plugin]] table: an MCP server whose tools baton proxies.
type Plugin struct {
	// Name is the prefix of its tools: remote tool get_issue becomes
	// <name>_get_issue, in toolset plugin:<name>.
	Name string `toml:"name"`
	// Command starts a server speaking MCP on stdin/stdout; exactly one of
	// Command and URL is set.
	Command []string `toml:"command"`
	// URL is a Streamable HTTP endpoint.
	URL string `toml:"url"`
	// Headers are sent with every HTTP request (e.g. Authorization).
	Headers map[string]string `toml:"headers"`
	// Profiles get its tools by default; nil means every built-in profile,
	// an empty list none (the tools are then reached by grant only).
	Profiles []string `toml:"profiles"`
	// Privileged tools are never in a default set: only an explicit grant
	// (a profile's allowed_tools, a tool-scope file) gives them.
	Privileged bool `toml:"privileged"`
	// Tools, when set, is the allowlist of remote tools to proxy.
	Tools []string `toml:"tools"`
	// SchedulerBlocked keeps its tools out of scheduler sessions.
	SchedulerBlocked bool `toml:"scheduler_blocked"`
	// SchedulerCap is the scheduler cap (issues, prs, comments, messages)
	// each of its calls counts against; "" for none.
	SchedulerCap string `toml:"scheduler_cap"`
}

// keys are the [[plugin]] keys, for the hint on an unknown one.
var keys = []string{"name", "command", "url", "headers", "profiles", "privileged", "tools", "scheduler_blocked", "scheduler_cap"}

// NameRE is the rule for a plugin's name: its tools' prefix.
var NameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]{0,30}$`) })

// headerRE is the token rule of HTTP header names (RFC 9110).
var headerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$") })

// Violation is one broken rule of the config file.
type Violation struct {
	Plugin  string `json:"plugin,omitempty"` // its name, or "#2" when it has none
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Load reads the config at path. A missing file is an empty config when
// mustExist is false (the default baton.toml is optional), an error when
// it is true (a file named with --config or BATON_CONFIG).
func Load(path string, mustExist bool) (*Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !mustExist {
		return &Config{}, nil
	}
	if err != nil {
		return nil, baton.Errorf(baton.ErrConfigInvalid, "cannot read the plugin config %s: %v", path, err).
			WithDetails("file", path).
			WithHint("pass --config (or BATON_CONFIG) a readable TOML file, or leave both unset to use ./%s if it exists", DefaultFile)
	}
	c, err := Parse(path, b)
	if err != nil {
		return nil, err
	}
	c.Path = path
	return c, nil
}

// Parse decodes and validates a config file's contents; path names it in
// errors. Every broken rule is reported, the first in the message.
func Parse(path string, data []byte) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		v := Violation{Field: "", Rule: "syntax", Message: err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			v.Message = fmt.Sprintf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return nil, configError(path, []Violation{v})
	}
	vs := unknownKeys(data, md)
	vs = append(vs, c.validate()...)
	if len(vs) > 0 {
		return nil, configError(path, vs)
	}
	return &c, nil
}

// unknownKeys reports the keys nothing decoded: a misspelt key would
// otherwise be ignored without a word.
func unknownKeys(data []byte, md toml.MetaData) []Violation {
	var raw struct {
		Plugin []map[string]any `toml:"plugin"`
	}
	_, _ = toml.Decode(string(data), &raw)
	var vs []Violation
	for _, k := range md.Undecoded() {
		if k[0] == "embedding" || k[0] == "dispatch" {
			continue // [embedding] and [dispatch]: packages embedding and dispatch read and check them
		}
		if len(k) < 2 || k[0] != "plugin" {
			vs = append(vs, Violation{Field: k.String(), Rule: "unknown_key",
				Message: fmt.Sprintf("unknown key %q: the file holds only [[plugin]] tables, [embedding] and [dispatch]", k.String())})
			continue
		}
		if len(k) > 2 {
			continue // inside a table a known key should not hold; its parent is reported
		}
		who := ""
		for i, p := range raw.Plugin {
			if _, ok := p[k[1]]; ok {
				name, _ := p["name"].(string)
				who = ref(name, i)
				break
			}
		}
		vs = append(vs, Violation{Plugin: who, Field: k[1], Rule: "unknown_key",
			Message: fmt.Sprintf("unknown key %q (known keys: %s)", k[1], strings.Join(keys, ", "))})
	}
	return vs
}

// ref names a plugin in messages: its name, or its position.
func ref(name string, i int) string {
	if name != "" {
		return name
	}
	return fmt.Sprintf("#%d", i+1)
}

func (c *Config) validate() []Violation {
	var vs []Violation
	seen := map[string]bool{}
	for i, p := range c.Plugins {
		who := ref(p.Name, i)
		bad := func(field, rule, format string, args ...any) {
			vs = append(vs, Violation{Plugin: who, Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
		}
		switch {
		case p.Name == "":
			bad("name", "required", "name is required: it is the prefix of the plugin's tools")
		case !NameRE().MatchString(p.Name):
			bad("name", "pattern", "name %q must match %s (a lowercase letter, then up to 30 lowercase letters, digits or _)", p.Name, NameRE())
		case seen[p.Name]:
			bad("name", "duplicate", "name %q is used by another plugin", p.Name)
		}
		seen[p.Name] = true
		switch {
		case p.Command != nil && p.URL != "":
			bad("command", "exclusive", "command and url are both set: give exactly one")
		case p.Command == nil && p.URL == "":
			bad("command", "required", "one of command (a stdio server) or url (Streamable HTTP) is required")
		case p.Command != nil && (len(p.Command) == 0 || strings.TrimSpace(p.Command[0]) == ""):
			bad("command", "minItems", "command must name a program, e.g. [\"baton\", \"mcp\"]")
		case p.URL != "":
			if u, err := url.Parse(p.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad("url", "format", "url %q must be an absolute http:// or https:// URL", p.URL)
			}
		}
		if len(p.Headers) > 0 && p.URL == "" {
			bad("headers", "url_only", "headers apply to url plugins only")
		}
		for _, h := range sortedKeys(p.Headers) {
			if !headerRE().MatchString(h) {
				bad("headers", "pattern", "header name %q is not a valid HTTP header name", h)
			} else if http.CanonicalHeaderKey(h) == "Mcp-Session-Id" || http.CanonicalHeaderKey(h) == "Mcp-Protocol-Version" {
				bad("headers", "reserved", "header %s is set by the MCP transport", h)
			}
		}
		for _, pr := range p.Profiles {
			if !baton.IsBuiltinProfile(pr) {
				bad("profiles", "enum", "profile %q is not built in (built-in: %s)", pr, strings.Join(baton.BuiltinProfiles, ", "))
			}
		}
		for j, t := range p.Tools {
			if strings.TrimSpace(t) == "" {
				bad("tools", "minLength", "tools[%d] is empty", j)
			} else if slices.Index(p.Tools, t) < j {
				bad("tools", "duplicate", "tools lists %q twice", t)
			}
		}
		if _, ok := tool.SchedulerCaps[p.SchedulerCap]; p.SchedulerCap != "" && !ok {
			bad("scheduler_cap", "enum", "scheduler_cap %q is not one of %s", p.SchedulerCap, strings.Join(sortedKeys(tool.SchedulerCaps), ", "))
		}
	}
	return vs
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// configError is ERR_CONFIG_INVALID for vs: the first in the message, all
// of them in details.
func configError(path string, vs []Violation) *baton.Error {
	v := vs[0]
	where := path
	if v.Plugin != "" {
		where += fmt.Sprintf(": plugin %s", v.Plugin)
	}
	msg := fmt.Sprintf("%s: %s", where, v.Message)
	if len(vs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(vs)-1)
	}
	return baton.Errorf(baton.ErrConfigInvalid, "%s", msg).
		WithDetails("file", path, "plugin", v.Plugin, "field", v.Field, "rule", v.Rule, "violations", vs).
		WithHint("fix %s in %s; each [[plugin]] needs name and exactly one of command or url", fieldName(v), path)
}

func fieldName(v Violation) string {
	if v.Field == "" {
		return "the TOML syntax"
	}
	return v.Field
}
