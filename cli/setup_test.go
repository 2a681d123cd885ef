package cli_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	_ "modernc.org/sqlite"
)

// initRepo makes a git repository with a baton database at its top and
// works from a subdirectory of it.
func initRepo(t *testing.T) (repo, db string) {
	t.Helper()
	repo = gitRepo(t)
	t.Chdir(repo)
	if r := baton(t, nil, "init", "--project", "shop", "--prefix", "SHOP"); r.code != 0 {
		t.Fatalf("init = %+v", r)
	}
	sub := filepath.Join(repo, "pkg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	return repo, filepath.Join(repo, ".baton", "baton.db")
}

// TestSetupClients: `baton setup CLIENT` merges a baton server into each
// client's configuration, leaving other servers and settings as they were,
// with absolute paths and the preset; a second run changes nothing.
func TestSetupClients(t *testing.T) {
	repo, db := initRepo(t)
	bin, _ := os.Executable()
	bin, _ = filepath.EvalSymlinks(bin)
	codexHome := t.TempDir()
	env := map[string]string{"CODEX_HOME": codexHome}
	cases := []struct {
		client, file, key string
		existing          string
	}{
		{"claude-code", filepath.Join(repo, ".mcp.json"), "mcpServers",
			`{"mcpServers": {"other": {"command": "other-server", "args": ["--x"]}}, "zeta": 1}`},
		{"cursor", filepath.Join(repo, ".cursor", "mcp.json"), "mcpServers", ""},
		{"vscode", filepath.Join(repo, ".vscode", "mcp.json"), "servers",
			`{"inputs": [], "servers": {"other": {"type": "http", "url": "http://x"}}}`},
		{"gemini", filepath.Join(repo, ".gemini", "settings.json"), "mcpServers",
			`{"theme": "dark", "mcpServers": {"other": {"command": "o"}}}`},
	}
	for _, c := range cases {
		t.Run(c.client, func(t *testing.T) {
			if c.existing != "" {
				if err := os.MkdirAll(filepath.Dir(c.file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(c.file, []byte(c.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := baton(t, env, "setup", c.client, "--print")
			if r.code != 0 {
				t.Fatalf("setup --print = %+v", r)
			}
			after, _ := os.ReadFile(c.file)
			if string(after) != c.existing {
				t.Fatalf("--print changed %s", c.file)
			}
			if r := baton(t, env, "setup", c.client); r.code != 0 || !strings.Contains(r.stdout, "wrote "+c.file) {
				t.Fatalf("setup = %+v", r)
			}
			got, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, []byte(r.stdout)) {
				t.Fatalf("--print showed\n%s\nbut setup wrote\n%s", r.stdout, got)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal(got, &top); err != nil {
				t.Fatalf("%s is not JSON: %v\n%s", c.file, err, got)
			}
			var old map[string]json.RawMessage
			if c.existing != "" {
				_ = json.Unmarshal([]byte(c.existing), &old)
			}
			for k, v := range old {
				if k == c.key {
					continue
				}
				if !jsonEqual(t, top[k], v) {
					t.Errorf("setting %s changed: %s -> %s", k, v, top[k])
				}
			}
			var servers map[string]struct {
				Command string
				Args    []string
			}
			var oldServers map[string]json.RawMessage
			_ = json.Unmarshal(old[c.key], &oldServers)
			var rawServers map[string]json.RawMessage
			_ = json.Unmarshal(top[c.key], &rawServers)
			for name, v := range oldServers {
				if !jsonEqual(t, rawServers[name], v) {
					t.Errorf("server %s changed: %s -> %s", name, v, rawServers[name])
				}
			}
			_ = json.Unmarshal(top[c.key], &servers)
			b := servers["baton"]
			if b.Command != bin || !slices.Equal(b.Args, []string{"mcp", "--db", db, "--agent", c.client, "--preset", "core"}) {
				t.Fatalf("baton server = %+v, want %s with the database %s", b, bin, db)
			}
			if r := baton(t, env, "setup", c.client); r.code != 0 || !strings.Contains(r.stdout, "nothing to change") {
				t.Fatalf("second setup = %+v", r)
			}
			again, _ := os.ReadFile(c.file)
			if !bytes.Equal(again, got) {
				t.Fatalf("second setup changed the file")
			}
		})
	}

	t.Run("codex", func(t *testing.T) {
		file := filepath.Join(codexHome, "config.toml")
		existing := "model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other\"\n\n[mcp_servers.baton]\ncommand = \"old-baton\"\n\n[mcp_servers.baton.env]\nX = \"1\"\n\n[profiles.fast]\nmodel = \"o4-mini\"\n"
		if err := os.WriteFile(file, []byte(existing), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := baton(t, env, "setup", "codex", "--preset", "symphony"); r.code != 0 {
			t.Fatalf("setup codex = %+v", r)
		}
		got, _ := os.ReadFile(file)
		var cfg struct {
			Model      string
			MCPServers map[string]struct {
				Command string
				Args    []string
				Env     map[string]string
			} `toml:"mcp_servers"`
			Profiles map[string]map[string]string
		}
		if _, err := toml.Decode(string(got), &cfg); err != nil {
			t.Fatalf("config.toml no longer parses: %v\n%s", err, got)
		}
		b := cfg.MCPServers["baton"]
		if cfg.Model != "o3" || cfg.MCPServers["other"].Command != "other" || cfg.Profiles["fast"]["model"] != "o4-mini" ||
			b.Command != bin || b.Env != nil || !slices.Contains(b.Args, "symphony") || !slices.Contains(b.Args, db) {
			t.Fatalf("config.toml after setup:\n%s", got)
		}
		if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
			t.Errorf("setup changed the file's mode to %v", fi.Mode().Perm())
		}
		if r := baton(t, env, "setup", "codex", "--preset", "symphony"); r.code != 0 || !strings.Contains(r.stdout, "nothing to change") {
			t.Fatalf("second setup codex = %+v", r)
		}
	})

	for _, bad := range [][]string{{"setup", "emacs"}, {"setup", "cursor", "--preset", "huge"}, {"setup"}} {
		if r := baton(t, env, bad...); r.code != 2 {
			t.Errorf("%v = %+v, want a usage error", bad, r)
		}
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// TestDoctor: doctor names the database and why, and exits 1 on a
// problem: no database, or a client configured for another database.
func TestDoctor(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	r := baton(t, nil, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "problem") || !strings.Contains(r.stdout, "baton init") {
		t.Fatalf("doctor without a database = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".baton")); !os.IsNotExist(err) {
		t.Fatal("doctor created .baton")
	}

	repo, db := initRepo(t)
	r = baton(t, nil, "doctor", "--json")
	var d struct {
		OK       bool
		Database struct{ Path, Reason string }
		Checks   []struct{ Name, Status, Detail string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("doctor --json = %+v", r)
	}
	names := map[string]string{}
	for _, c := range d.Checks {
		names[c.Name] = c.Status
	}
	if r.code != 0 || !d.OK || d.Database.Path != db || !strings.Contains(d.Database.Reason, "walking up") ||
		names["schema"] != "ok" || names["wal"] != "ok" || names["claims"] != "ok" || names["disk"] == "" || names["postgresql"] != "ok" {
		t.Fatalf("doctor --json on a healthy set-up = %+v\n%s", d, r.stdout)
	}

	// A client configured for another database is a problem.
	other := `{"mcpServers": {"baton": {"command": "baton", "args": ["mcp", "--db", "/elsewhere/baton.db"]}}}`
	if err := os.WriteFile(filepath.Join(repo, ".mcp.json"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	r = baton(t, nil, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "/elsewhere/baton.db") || !strings.Contains(r.stdout, "baton setup claude-code") {
		t.Fatalf("doctor with a misconfigured client = %+v", r)
	}
	if r := baton(t, nil, "setup", "claude-code"); r.code != 0 {
		t.Fatalf("setup = %+v", r)
	}
	if r := baton(t, nil, "doctor"); r.code != 0 {
		t.Fatalf("doctor after setup = %+v", r)
	}
}

// TestProjectFromEnvironment: BATON_PROJECT (and --project) fill the
// project field of every tool command that leaves it out.
func TestProjectFromEnvironment(t *testing.T) {
	env := newDB(t)
	if r := baton(t, env, "init", "--project", "shop", "--prefix", "SHOP"); r.code != 0 {
		t.Fatalf("second project: %+v", r)
	}
	if r := baton(t, env, "tasks", "task_create", "--title", "x"); r.code != 2 || !strings.Contains(r.stderr, "project") {
		t.Fatalf("task_create with two projects and none named = %+v", r)
	}
	env["BATON_PROJECT"] = "shop"
	if r := baton(t, env, "tasks", "task_create", "--title", "x", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"SHOP-1"`) {
		t.Fatalf("task_create with BATON_PROJECT = %+v", r)
	}
	delete(env, "BATON_PROJECT")
	if r := baton(t, env, "--project", "shop", "issues", "create_issue", "--title", "y", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"SHOP-2"`) {
		t.Fatalf("create_issue with --project = %+v", r)
	}
}

// TestSetupCodexHeaders: a [mcp_servers.baton] table written by hand with
// a comment, spaces or a quoted key is replaced, never duplicated; a file
// that is not TOML is refused and left as it was.
func TestSetupCodexHeaders(t *testing.T) {
	initRepo(t)
	for name, existing := range map[string]string{
		"comment": "[mcp_servers.baton] # added by hand\ncommand = \"old\"\n",
		"spaces":  "[ mcp_servers . baton ]\ncommand = \"old\"\n[mcp_servers.baton.env]\nX = \"1\"\n",
		"quoted":  "model = \"o3\"\n[mcp_servers.\"baton\"]\ncommand = \"old\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			file := filepath.Join(home, "config.toml")
			if err := os.WriteFile(file, []byte(existing), 0o600); err != nil {
				t.Fatal(err)
			}
			if r := baton(t, map[string]string{"CODEX_HOME": home}, "setup", "codex"); r.code != 0 {
				t.Fatalf("setup codex = %+v", r)
			}
			got, _ := os.ReadFile(file)
			var cfg struct {
				MCPServers map[string]struct{ Command string } `toml:"mcp_servers"`
			}
			if _, err := toml.Decode(string(got), &cfg); err != nil || cfg.MCPServers["baton"].Command == "old" || strings.Count(string(got), "mcp_servers") != 1 {
				t.Fatalf("config.toml after setup (%v):\n%s", err, got)
			}
		})
	}
	home := t.TempDir()
	file := filepath.Join(home, "config.toml")
	broken := "model = \n[mcp_servers\n"
	if err := os.WriteFile(file, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := baton(t, map[string]string{"CODEX_HOME": home}, "setup", "codex"); r.code == 0 || !strings.Contains(r.stderr, "not valid TOML") {
		t.Fatalf("setup codex on a broken file = %+v", r)
	}
	if got, _ := os.ReadFile(file); string(got) != broken {
		t.Fatalf("setup changed a file it refused:\n%s", got)
	}
}

// TestNoPasswordLeaves: a PostgreSQL password is never printed by doctor
// (text or --json) and never written into a client's file by setup.
func TestNoPasswordLeaves(t *testing.T) {
	repo, _ := initRepo(t)
	url := "postgres://bob:s3cret@127.0.0.1:1/x?sslmode=disable"
	for _, args := range [][]string{{"--db", url, "doctor"}, {"--db", url, "doctor", "--json"}} {
		r := baton(t, nil, args...)
		if r.code == 0 || strings.Contains(r.stdout+r.stderr, "s3cret") {
			t.Fatalf("%v = %+v", args, r)
		}
	}
	r := baton(t, nil, "--db", url, "setup", "claude-code")
	if r.code != 2 || strings.Contains(r.stdout+r.stderr, "s3cret") {
		t.Fatalf("setup with a password in the URL = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(repo, ".mcp.json")); !os.IsNotExist(err) {
		t.Fatal("setup wrote a client file for a URL with a password")
	}
}

// TestDoctorChangesNothing: doctor on an older schema, or a file not in
// WAL, reports it and leaves the file exactly as it was.
func TestDoctorChangesNothing(t *testing.T) {
	_, db := initRepo(t)
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	var version int64
	if err := conn.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{"PRAGMA journal_mode=DELETE", fmt.Sprintf("PRAGMA user_version=%d", version-1)} {
		if _, err := conn.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	r := baton(t, nil, "doctor", "--json")
	if !strings.Contains(r.stdout, "migrates it to") || !strings.Contains(r.stdout, "not checked") {
		t.Fatalf("doctor on an older schema = %+v", r)
	}
	conn, _ = sql.Open("sqlite", db)
	defer conn.Close()
	var after int64
	var mode string
	_ = conn.QueryRow("PRAGMA user_version").Scan(&after)
	_ = conn.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if after != version-1 || mode != "delete" {
		t.Fatalf("doctor changed the file: user_version %d (was %d), journal mode %s", after, version-1, mode)
	}
}
