package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// initEnv is a fresh directory whose database, .baton/baton.db, init
// creates: the directory is the root AGENTS.md goes in.
func instructionsEnv(t *testing.T) (dir string, env map[string]string) {
	t.Helper()
	dir = t.TempDir()
	return dir, map[string]string{"BATON_DB": filepath.Join(dir, ".baton", "baton.db")}
}

func instructionsText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// initJSON is the part of `baton init --json` about instructions.
type initJSON struct {
	Created      bool `json:"created"`
	Instructions struct {
		Preset string `json:"preset"`
		Files  []struct {
			Path, Action, Reason string
		} `json:"files"`
	} `json:"instructions"`
}

func initAsJSON(t *testing.T, env map[string]string, args ...string) initJSON {
	t.Helper()
	r := baton(t, env, append([]string{"init", "--project", "shop", "--prefix", "SHOP", "--json"}, args...)...)
	var got initJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Instructions.Files == nil {
		t.Fatalf("init --json %v = %+v", args, r)
	}
	return got
}

var toolMention = regexp.MustCompile("`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`")

// TestPoint5InitWritesAgentInstructions: for every preset, init writes the
// loop into AGENTS.md naming that preset's tools (the loop's key tools
// among them) and no tool the preset lacks, and says how to run doctor.
func TestPoint5InitWritesAgentInstructions(t *testing.T) {
	reg := tools.Registry()
	core := []string{"claim_next", "get_issue", "update_issue_status", "add_comment", "add_finding", "add_learning",
		"report_progress", "set_status", "ask_owner", "wait_for_messages"}
	cases := []struct {
		preset string
		want   []string
	}{
		{tool.PresetCore, core},
		{tool.PresetSymphony, []string{"get_issue", "update_issue_status", "add_finding", "add_learning", "add_comment"}},
		{tool.PresetColibri, []string{"task_next_actions", "task_get", "task_update", "thought_record"}},
		{tool.PresetAdjutant, []string{"list_beads", "update_bead", "show_bead", "close_bead", "send_message", "read_messages", "set_status", "report_progress"}},
		{tool.PresetBotholomew, []string{"complete_task", "fail_task", "wait_task"}},
		{tool.PresetFull, core},
	}
	if len(cases) != len(tool.PresetNames()) {
		t.Fatalf("the table covers %d presets of %d: add the new one", len(cases), len(tool.PresetNames()))
	}
	for _, c := range cases {
		t.Run(c.preset, func(t *testing.T) {
			t.Parallel()
			dir, env := instructionsEnv(t)
			got := initAsJSON(t, env, "--preset", c.preset)
			agents := filepath.Join(dir, "AGENTS.md")
			if got.Instructions.Preset != c.preset || len(got.Instructions.Files) != 1 ||
				got.Instructions.Files[0].Path != agents || got.Instructions.Files[0].Action != "created" {
				t.Fatalf("init reported %+v, want AGENTS.md created for %s", got.Instructions, c.preset)
			}
			text := instructionsText(t, agents)
			if !strings.HasPrefix(text, "<!-- baton:begin -->\n") || !strings.HasSuffix(text, "<!-- baton:end -->\n") {
				t.Fatalf("AGENTS.md is not one marked section:\n%s", text)
			}
			have := tool.PresetTools(reg, c.preset)
			var mentioned []string
			for _, m := range toolMention.FindAllStringSubmatch(text, -1) {
				mentioned = append(mentioned, m[1])
				if !slices.Contains(have, m[1]) {
					t.Errorf("the %s instructions name %s, which the preset does not have", c.preset, m[1])
				}
			}
			for _, w := range c.want {
				if !slices.Contains(mentioned, w) {
					t.Errorf("the %s instructions do not name %s:\n%s", c.preset, w, text)
				}
			}
			if !strings.Contains(text, "`baton doctor`") || !strings.Contains(text, "preset "+c.preset) {
				t.Errorf("the %s instructions do not say how to run baton doctor, or which preset:\n%s", c.preset, text)
			}
		})
	}
}

// TestPoint5InitInstructionsIdempotent: a second init writes the same
// bytes and says so; another preset replaces only the section, and what
// people wrote before and after it stays byte for byte.
func TestPoint5InitInstructionsIdempotent(t *testing.T) {
	for _, c := range []struct{ name, before string }{
		{"no AGENTS.md", ""},
		{"AGENTS.md of the team's own", "# Team rules\n\nRun make check before pushing.\n"},
		{"without a final newline", "# Team rules\r\nTabs,\tnot spaces."},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, env := instructionsEnv(t)
			agents := filepath.Join(dir, "AGENTS.md")
			if c.before != "" {
				if err := os.WriteFile(agents, []byte(c.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			first := initAsJSON(t, env)
			want := map[bool]string{true: "created", false: "updated"}[c.before == ""]
			if first.Instructions.Files[0].Action != want {
				t.Fatalf("first init: %+v, want %s", first.Instructions.Files, want)
			}
			once := instructionsText(t, agents)
			if !strings.HasPrefix(once, c.before) || strings.Count(once, "<!-- baton:begin -->") != 1 {
				t.Fatalf("the team's text is not kept before one section:\n%q", once)
			}
			if second := initAsJSON(t, env); second.Instructions.Files[0].Action != "unchanged" || second.Created {
				t.Fatalf("second init: %+v", second)
			}
			if twice := instructionsText(t, agents); twice != once {
				t.Fatalf("a second init changed AGENTS.md:\n%q\nthen\n%q", once, twice)
			}
			if c.before != "" {
				if fi, _ := os.Stat(agents); fi.Mode().Perm() != 0o600 {
					t.Errorf("AGENTS.md's mode became %v", fi.Mode().Perm())
				}
			}

			// The team adds text after the section; another preset rewrites
			// the section alone.
			after := "\n## Later notes\n\nKeep this.\n"
			if err := os.WriteFile(agents, []byte(once+after), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := initAsJSON(t, env, "--preset", "colibri"); got.Instructions.Files[0].Action != "updated" {
				t.Fatalf("init --preset colibri: %+v", got.Instructions.Files)
			}
			text := instructionsText(t, agents)
			begin, end := strings.Index(text, "<!-- baton:begin -->"), strings.Index(text, "<!-- baton:end -->")+len("<!-- baton:end -->")
			if text[:begin] != once[:strings.Index(once, "<!-- baton:begin -->")] || text[end:] != "\n"+after {
				t.Fatalf("the text around the section changed:\n%q", text)
			}
			if section := text[begin:end]; !strings.Contains(section, "`task_next_actions`") || strings.Contains(section, "`claim_next`") {
				t.Fatalf("the section is not colibri's:\n%s", section)
			}
		})
	}
}

// TestPoint5InitClaudeMD: CLAUDE.md gets the section only when the project
// has one; one that imports AGENTS.md, or is a link to it, is not given a
// second copy.
func TestPoint5InitClaudeMD(t *testing.T) {
	t.Run("absent", func(t *testing.T) {
		dir, env := instructionsEnv(t)
		if got := initAsJSON(t, env); len(got.Instructions.Files) != 1 {
			t.Fatalf("files: %+v", got.Instructions.Files)
		}
		if _, err := os.Stat(filepath.Join(dir, "CLAUDE.md")); !os.IsNotExist(err) {
			t.Fatalf("init created CLAUDE.md (%v)", err)
		}
	})
	t.Run("present", func(t *testing.T) {
		dir, env := instructionsEnv(t)
		claude := filepath.Join(dir, "CLAUDE.md")
		if err := os.WriteFile(claude, []byte("# Claude\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		got := initAsJSON(t, env)
		if len(got.Instructions.Files) != 2 || got.Instructions.Files[1].Path != claude || got.Instructions.Files[1].Action != "updated" {
			t.Fatalf("files: %+v", got.Instructions.Files)
		}
		text := instructionsText(t, claude)
		if !strings.HasPrefix(text, "# Claude\n\n<!-- baton:begin -->") || text[len("# Claude\n\n"):] != instructionsText(t, filepath.Join(dir, "AGENTS.md")) {
			t.Fatalf("CLAUDE.md:\n%s", text)
		}
		if again := initAsJSON(t, env); again.Instructions.Files[1].Action != "unchanged" {
			t.Fatalf("second init: %+v", again.Instructions.Files)
		}
	})
	t.Run("imports AGENTS.md", func(t *testing.T) {
		dir, env := instructionsEnv(t)
		claude := filepath.Join(dir, "CLAUDE.md")
		if err := os.WriteFile(claude, []byte("@AGENTS.md\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		got := initAsJSON(t, env)
		if len(got.Instructions.Files) != 2 || got.Instructions.Files[1].Action != "skipped" || got.Instructions.Files[1].Reason == "" {
			t.Fatalf("files: %+v", got.Instructions.Files)
		}
		if text := instructionsText(t, claude); text != "@AGENTS.md\n" {
			t.Fatalf("CLAUDE.md changed: %q", text)
		}
	})
	t.Run("link to AGENTS.md", func(t *testing.T) {
		dir, env := instructionsEnv(t)
		if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Both\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("AGENTS.md", filepath.Join(dir, "CLAUDE.md")); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		if got := initAsJSON(t, env); len(got.Instructions.Files) != 1 {
			t.Fatalf("files: %+v", got.Instructions.Files)
		}
		if text := instructionsText(t, filepath.Join(dir, "AGENTS.md")); strings.Count(text, "<!-- baton:begin -->") != 1 {
			t.Fatalf("AGENTS.md:\n%s", text)
		}
		if fi, err := os.Lstat(filepath.Join(dir, "CLAUDE.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("CLAUDE.md is no longer a link (%v)", err)
		}
	})
}

// TestPoint5InitNoInstructions: --no-instructions writes nothing, and says
// so in --json.
func TestPoint5InitNoInstructions(t *testing.T) {
	dir, env := instructionsEnv(t)
	if got := initAsJSON(t, env, "--no-instructions"); len(got.Instructions.Files) != 0 || !got.Created {
		t.Fatalf("init --no-instructions: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "AGENTS.md")); !os.IsNotExist(err) {
		t.Fatalf("AGENTS.md written (%v)", err)
	}
	own := []byte("# Ours\n")
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), own, 0o644); err != nil {
		t.Fatal(err)
	}
	r := baton(t, env, "init", "--project", "shop", "--no-instructions")
	if b, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); r.code != 0 || !bytes.Equal(b, own) || strings.Contains(r.stdout, "AGENTS.md") {
		t.Fatalf("init --no-instructions = %+v; AGENTS.md %q", r, b)
	}
}

// TestPoint5InitRefusesWithoutChange: a bad preset, or an AGENTS.md whose
// section has no end marker, fails init before anything is written: no
// database, the file as it was.
func TestPoint5InitRefusesWithoutChange(t *testing.T) {
	t.Run("unknown preset", func(t *testing.T) {
		dir, env := instructionsEnv(t)
		r := baton(t, env, "init", "--preset", "nope")
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "core") {
			t.Fatalf("init --preset nope = %+v", r)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("init left %v", entries)
		}
	})
	t.Run("begin marker without end", func(t *testing.T) {
		dir, env := instructionsEnv(t)
		broken := []byte("# Rules\n<!-- baton:begin -->\nhalf a section\n")
		agents := filepath.Join(dir, "AGENTS.md")
		if err := os.WriteFile(agents, broken, 0o644); err != nil {
			t.Fatal(err)
		}
		r := baton(t, env, "init", "--json")
		var env2 struct {
			Error struct {
				Code    string         `json:"code"`
				Details map[string]any `json:"details"`
				Hint    string         `json:"next_action_hint"`
			} `json:"error"`
		}
		if r.code != cli.ExitTool || json.Unmarshal([]byte(r.stdout), &env2) != nil || env2.Error.Code != "ERR_INIT_FAILED" ||
			env2.Error.Details["file"] != "AGENTS.md" || !strings.Contains(env2.Error.Hint, "<!-- baton:end -->") {
			t.Fatalf("init with a broken section = %+v", r)
		}
		if b, _ := os.ReadFile(agents); !bytes.Equal(b, broken) {
			t.Fatalf("AGENTS.md changed: %q", b)
		}
		if _, err := os.Stat(filepath.Join(dir, ".baton", "baton.db")); !os.IsNotExist(err) {
			t.Fatalf("the database was created by a failed init (%v)", err)
		}
	})
}

// TestPoint2MemoryShowDefaultsToOnlyProject: with one project, memory show
// includes that project's memory without --project; with several it
// shows the global memory only, as before.
func TestPoint2MemoryShowDefaultsToOnlyProject(t *testing.T) {
	_, env := instructionsEnv(t)
	if r := baton(t, env, "init", "--project", "shop", "--no-instructions"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	if r := baton(t, env, "--agent", "w", "--agent-type", "worker", "issues", "update_memory",
		"--scope", "project", "--filename", "carts.md", "--content", "Carts live in SQLite"); r.code != 0 {
		t.Fatalf("update_memory: %+v", r)
	}
	if r := baton(t, env, "memory", "show", "--profile", "worker"); r.code != 0 || !strings.Contains(r.stdout, "Carts live in SQLite") {
		t.Fatalf("memory show with one project = %+v", r)
	}
	if r := baton(t, env, "init", "--project", "other", "--no-instructions"); r.code != 0 {
		t.Fatalf("init other: %+v", r)
	}
	if r := baton(t, env, "memory", "show", "--profile", "worker"); r.code != 0 || strings.Contains(r.stdout, "Carts") {
		t.Fatalf("memory show with two projects = %+v", r)
	}
	if r := baton(t, env, "memory", "show", "--profile", "worker", "--project", "shop"); r.code != 0 || !strings.Contains(r.stdout, "Carts") {
		t.Fatalf("memory show --project shop = %+v", r)
	}
}
