package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// client is an MCP client `baton setup` can configure: where its
// configuration lives and how a stdio server is written there.
type client struct {
	name string
	// file is the configuration's path: under the team's root for
	// project-scoped files, under home for user-scoped ones.
	file func(root, home string, getenv func(string) string) string
	// format is "json" (servers under key) or "toml" (Codex).
	format string
	key    string // the JSON object that holds the servers
	// entry is the server's JSON object in this client's shape.
	entry func(bin string, args []string) map[string]any
}

func stdioEntry(typed bool) func(string, []string) map[string]any {
	return func(bin string, args []string) map[string]any {
		e := map[string]any{"command": bin, "args": args}
		if typed {
			e["type"] = "stdio"
		}
		return e
	}
}

// clients are the supported MCP clients, by the name `baton setup` takes.
var clients = []client{
	{name: "claude-code", format: "json", key: "mcpServers", entry: stdioEntry(true),
		file: func(root, _ string, _ func(string) string) string { return filepath.Join(root, ".mcp.json") }},
	{name: "codex", format: "toml", entry: stdioEntry(false),
		file: func(_, home string, getenv func(string) string) string {
			if h := getenv("CODEX_HOME"); h != "" {
				return filepath.Join(h, "config.toml")
			}
			return filepath.Join(home, ".codex", "config.toml")
		}},
	{name: "cursor", format: "json", key: "mcpServers", entry: stdioEntry(false),
		file: func(root, _ string, _ func(string) string) string { return filepath.Join(root, ".cursor", "mcp.json") }},
	{name: "vscode", format: "json", key: "servers", entry: stdioEntry(true),
		file: func(root, _ string, _ func(string) string) string { return filepath.Join(root, ".vscode", "mcp.json") }},
	{name: "gemini", format: "json", key: "mcpServers", entry: stdioEntry(false),
		file: func(root, _ string, _ func(string) string) string {
			return filepath.Join(root, ".gemini", "settings.json")
		}},
}

func clientNames() []string {
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = c.name
	}
	return names
}

func (a *App) setupCmd() *cobra.Command {
	var print bool
	var file, name, preset string
	cmd := &cobra.Command{
		Use:   "setup CLIENT",
		Short: "Configure an MCP client (" + strings.Join(clientNames(), ", ") + ") to use this project's baton",
		Long: "setup writes the MCP client's configuration for this project: a stdio server that runs this baton\n" +
			"binary on the team's database (absolute paths, so it works from any worktree) with the chosen\n" +
			"tool preset. It merges into an existing file, leaving every other server and setting as it was,\n" +
			"and writing it again changes nothing. --print shows the configuration instead of writing it.\n\n" +
			"Files: claude-code .mcp.json, cursor .cursor/mcp.json, vscode .vscode/mcp.json and gemini\n" +
			".gemini/settings.json at the repository's top; codex $CODEX_HOME/config.toml (~/.codex).",
		Args:      argsBetween(1, 1, "one client name: "+strings.Join(clientNames(), ", ")),
		ValidArgs: clientNames(),
		RunE: func(c *cobra.Command, args []string) error {
			i := slices.IndexFunc(clients, func(cl client) bool { return cl.name == args[0] })
			if i < 0 {
				return usageError("unknown client %q: choose one of %s", args[0], strings.Join(clientNames(), ", "))
			}
			cl := clients[i]
			if !slices.Contains(tool.PresetNames(), preset) {
				return usageError("unknown preset %q: choose one of %s", preset, strings.Join(tool.PresetNames(), ", "))
			}
			loc := a.location()
			if !loc.Exists {
				return a.fail(loc.missing())
			}
			if redactURL(loc.Path) != loc.Path {
				// Client files are often committed: a password must not
				// land in one.
				return usageError("the database URL holds a password, which setup will not write into %s's configuration: "+
					"give it to the client another way (PGPASSWORD or ~/.pgpass for the user running it) and run setup with --db URL-without-password", cl.name)
			}
			bin, err := os.Executable()
			if err != nil {
				return a.fail(baton.Errorf(baton.ErrInternal, "cannot find the baton binary: %v", err))
			}
			if bin, err = filepath.EvalSymlinks(bin); err != nil {
				return a.fail(baton.Errorf(baton.ErrInternal, "cannot resolve the baton binary: %v", err))
			}
			if name == "" {
				name = "baton"
			}
			agent := a.agent
			if agent == "" {
				agent = cl.name
			}
			serverArgs := []string{"mcp", "--db", loc.Path, "--agent", agent, "--preset", preset}
			if a.project != "" {
				serverArgs = append(serverArgs, "--project", a.project)
			}
			if file == "" {
				home, _ := os.UserHomeDir()
				file = cl.file(loc.Root, home, a.Getenv)
			}
			old, err := os.ReadFile(file)
			if err != nil && !os.IsNotExist(err) {
				return a.fail(baton.Errorf(baton.ErrConfigInvalid, "cannot read %s: %v", file, err))
			}
			var merged []byte
			if cl.format == "toml" {
				merged, err = mergeTOMLServer(old, name, bin, serverArgs)
			} else {
				merged, err = mergeJSONServer(old, cl.key, name, cl.entry(bin, serverArgs))
			}
			if err != nil {
				return a.fail(baton.Errorf(baton.ErrConfigInvalid, "%s: %v", file, err).
					WithHint("fix the file by hand, or print the configuration with --print and add it yourself"))
			}
			if strings.Contains(bin, "go-build") {
				fmt.Fprintf(a.Stderr, "warning: %s is a temporary `go run` build; install baton (go install ./cmd/baton) and run setup with that binary\n", bin)
			}
			// --json: what setup did, or with --print the configuration as a string (output.go).
			report := map[string]any{"client": cl.name, "file": file, "server": name, "preset": preset, "agent": agent, "database": loc.Path}
			if print {
				if wantJSON(c) {
					report["config"] = string(merged)
					return a.printJSON(report)
				}
				_, err := a.Stdout.Write(merged)
				return err
			}
			if bytes.Equal(old, merged) {
				if wantJSON(c) {
					report["changed"] = false
					return a.printJSON(report)
				}
				fmt.Fprintf(a.Stdout, "%s already runs baton as %q (preset %s); nothing to change\n", file, name, preset)
				return nil
			}
			if err := writeFileAtomic(file, merged); err != nil {
				return a.fail(baton.Errorf(baton.ErrConfigInvalid, "cannot write %s: %v", file, err))
			}
			if wantJSON(c) {
				report["changed"] = true
				return a.printJSON(report)
			}
			fmt.Fprintf(a.Stdout, "wrote %s: server %q runs %s on %s (preset %s, agent %s)\n", file, name, bin, loc.Path, preset, agent)
			return nil
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the merged configuration instead of writing it")
	cmd.Flags().StringVar(&file, "file", "", "the configuration file to merge into (default: the client's own)")
	cmd.Flags().StringVar(&name, "name", "baton", "the server's name in the client's configuration")
	cmd.Flags().StringVar(&preset, "preset", tool.PresetCore, "the tool preset the agent gets: "+strings.Join(tool.PresetNames(), ", "))
	a.jsonFlag(cmd, `{"client", "file", "server", "preset", "agent", "database", "changed": false when the file had it already};
with --print, "config" (the merged file's text) instead of "changed".`)
	return cmd
}

// writeFileAtomic replaces a file whole, so an interrupted write never
// leaves a client with half a configuration.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		_ = os.Chmod(tmp.Name(), fi.Mode().Perm())
	}
	return os.Rename(tmp.Name(), path)
}

// member is one key of a JSON object, its value kept as written.
type member struct {
	key string
	val json.RawMessage
}

// readObject reads a JSON object keeping its keys' order, so a merge
// changes only what it means to.
func readObject(b []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, member{tok.(string), raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return out, nil
}

func writeObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// set replaces the member named key, or appends it.
func set(ms []member, key string, val json.RawMessage) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].val = val
			return ms
		}
	}
	return append(ms, member{key, val})
}

// mergeJSONServer puts the server entry under obj.key.name, keeping every
// other key of the file and of the servers object in place.
func mergeJSONServer(old []byte, key, name string, entry map[string]any) ([]byte, error) {
	var top []member
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if top, err = readObject(old); err != nil {
			return nil, err
		}
	}
	var servers []member
	for _, m := range top {
		if m.key == key {
			var err error
			if servers, err = readObject(m.val); err != nil {
				return nil, fmt.Errorf("%s: %v", key, err)
			}
		}
	}
	e, err := json.Marshal(entry)
	if err != nil {
		return nil, err
	}
	servers = set(servers, name, e)
	top = set(top, key, writeObject(servers))
	var out bytes.Buffer
	if err := json.Indent(&out, writeObject(top), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// mergeTOMLServer replaces the [mcp_servers.NAME] table of a Codex
// config.toml (with its sub-tables), or appends one, leaving every other
// line of the file as it was.
func mergeTOMLServer(old []byte, name, bin string, args []string) ([]byte, error) {
	var before map[string]any
	if _, err := toml.Decode(string(old), &before); err != nil {
		return nil, fmt.Errorf("not valid TOML: %v", err)
	}
	header := "[mcp_servers." + tomlKey(name) + "]"
	var b strings.Builder
	b.WriteString(header + "\n")
	b.WriteString("command = " + tomlString(bin) + "\n")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	b.WriteString("args = [" + strings.Join(quoted, ", ") + "]\n")
	table := b.String()

	lines := strings.SplitAfter(string(old), "\n")
	var out strings.Builder
	inside, replaced := false, false
	for _, line := range lines {
		if path, ok := tableHeader(line); ok {
			switch {
			case len(path) == 2 && path[0] == "mcp_servers" && path[1] == name && !replaced:
				inside, replaced = true, true
				out.WriteString(table)
				continue
			case inside && len(path) > 2 && path[0] == "mcp_servers" && path[1] == name:
				continue // a sub-table of ours (env): replaced with the rest
			default:
				inside = false
			}
		}
		if !inside {
			out.WriteString(line)
		}
	}
	s := out.String()
	if !replaced {
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		if s != "" {
			s += "\n"
		}
		s += table
	}
	var after map[string]any
	if _, err := toml.Decode(s, &after); err != nil {
		// Never write a file the client could not read.
		return nil, fmt.Errorf("merging would make it invalid TOML (%v)", err)
	}
	return []byte(s), nil
}

// tableHeader reads a TOML table header line, `[a."b".c]  # comment`, into
// its key path; array-of-tables headers ([[x]]) and other lines are not.
func tableHeader(line string) ([]string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") || strings.HasPrefix(t, "[[") {
		return nil, false
	}
	var path []string
	var cur strings.Builder
	quote := rune(0)
	for i, r := range t[1:] {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
		case r == '.':
			path = append(path, strings.TrimSpace(cur.String()))
			cur.Reset()
		case r == ']':
			path = append(path, strings.TrimSpace(cur.String()))
			rest := strings.TrimSpace(t[1+i+1:])
			return path, rest == "" || strings.HasPrefix(rest, "#")
		default:
			cur.WriteRune(r)
		}
	}
	return nil, false
}

// tomlKey writes a bare key when it can, else a quoted one.
func tomlKey(k string) string {
	for _, r := range k {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return tomlString(k)
		}
	}
	return k
}

// tomlString is a TOML basic string; JSON's escapes are valid TOML ones.
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
