package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/tool"
	skilltools "github.com/baton-dev/baton/tools/skills"
	"github.com/spf13/cobra"
)

// These tests build the command tree the way root() does once skillsCmd
// is registered there, so they run before and after that registration.

func writeSkill(t *testing.T, root, dir, content string) string {
	t.Helper()
	p := filepath.Join(root, ".agents", "skills", dir, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// skillsApp is an App whose registry holds the skill tools, with its
// database in a temporary directory.
func skillsApp(t *testing.T) (*App, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	a := &App{Registry: tool.NewRegistry(skilltools.SkillList, skilltools.SkillGet), Version: "test",
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" },
		dbPath: filepath.Join(t.TempDir(), "b.db"), mayCreate: true}
	t.Cleanup(func() {
		if a.store != nil {
			a.store.Close()
		}
	})
	return a, &out
}

// execute runs args against the toolset groups merged with skillsCmd and
// returns the exit code App.Run would.
func execute(t *testing.T, a *App, args ...string) int {
	t.Helper()
	root := &cobra.Command{Use: "baton", SilenceUsage: true, SilenceErrors: true}
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	for _, c := range mergeCommands(a.toolsetCmds(), a.skillsCmd()) {
		root.AddCommand(c)
	}
	a.materialize(root, args)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitTool
}

func TestSkillsReload(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeSkill(t, dir, "colibri-tier1-chains", "---\nname: colibri-tier1-chains\nversion: 1.0.0\n"+
		"description: Canonical Tier 1 (Sigma) round and writeback chains.\ncapabilities: [round-plan]\n---\nbody\n")
	writeSkill(t, dir, "unversioned", "---\ndescription: >\n  Folded over\n  two lines.\n---\n")
	writeSkill(t, dir, "renamed", "---\nname: old\ndescription: Renamed.\n---\n")
	writeSkill(t, dir, "broken", "---\ndescription: d\n")
	writeSkill(t, dir, "bare", "# no frontmatter\n")
	a, out := skillsApp(t)
	if code := execute(t, a, "skills", "reload"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	want := "colibri-tier1-chains 1.0.0: Canonical Tier 1 (Sigma) round and writeback chains.\n" +
		"renamed: Renamed.\n" +
		"unversioned: Folded over two lines.\n" +
		"warning: .agents/skills/renamed/SKILL.md: frontmatter name \"old\" differs from the directory name; the skill is listed as \"renamed\" (rename one to match)\n" +
		"error: .agents/skills/bare/SKILL.md: no frontmatter: the first line must be ---\n" +
		"error: .agents/skills/broken/SKILL.md: unterminated frontmatter: no closing --- line after line 1\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}

// TestSkillsReloadForces: reload parses again even what the size and mtime
// check cannot see, and the tools then read the reloaded registry.
func TestSkillsReloadForces(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	p := writeSkill(t, dir, "one", "---\ndescription: Version A.\n---\n")
	a, out := skillsApp(t)
	if code := execute(t, a, "skills", "skill_get", "--name", "one", "--json"); code != ExitOK || !strings.Contains(out.String(), `"Version A."`) {
		t.Fatalf("skill_get: exit %d: %s", code, out)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\ndescription: Version B.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := execute(t, a, "skills", "reload"); code != ExitOK || out.String() != "one: Version B.\n" {
		t.Fatalf("reload: exit %d: %q", code, out)
	}
	out.Reset()
	if code := execute(t, a, "skills", "skill_list", "--json"); code != ExitOK {
		t.Fatalf("skill_list: exit %d: %s", code, out)
	}
	var list struct {
		Skills []struct{ Description string } `json:"skills"`
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list.Skills) != 1 || list.Skills[0].Description != "Version B." {
		t.Fatalf("skill_list after reload = %s (%v)", out, err)
	}
}

func TestSkillsReloadWithoutSkills(t *testing.T) {
	t.Chdir(t.TempDir())
	a, out := skillsApp(t)
	if code := execute(t, a, "skills", "reload"); code != ExitOK || out.Len() != 0 {
		t.Fatalf("exit %d: %q", code, out)
	}
}

func TestSkillsReloadRefusesArguments(t *testing.T) {
	t.Chdir(t.TempDir())
	a, _ := skillsApp(t)
	if code := execute(t, a, "skills", "reload", "extra"); code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
}

// TestMergeCommands: the skills group keeps its tools and gains reload;
// there is one "skills" command, not two.
func TestMergeCommands(t *testing.T) {
	a, _ := skillsApp(t)
	cmds := mergeCommands(a.toolsetCmds(), a.skillsCmd())
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name())
	}
	if strings.Join(names, ",") != "skills" {
		t.Fatalf("top-level commands = %v", names)
	}
	var subs []string
	for _, c := range cmds[0].Commands() {
		subs = append(subs, c.Name())
	}
	if strings.Join(subs, ",") != "reload,skill_get,skill_list" {
		t.Fatalf("skills subcommands = %v", subs)
	}
	// Without a skills toolset the command stands alone.
	a.Registry = tool.NewRegistry()
	cmds = mergeCommands(a.toolsetCmds(), a.skillsCmd())
	if len(cmds) != 1 || cmds[0].Name() != "skills" || len(cmds[0].Commands()) != 1 {
		t.Fatalf("alone: %v", cmds)
	}
}
