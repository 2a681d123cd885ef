package phases_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/phases"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func code(t *testing.T, err error, want string) *baton.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got no error", want)
	}
	e := baton.AsError(err)
	if e.Code != want {
		t.Fatalf("want %s, got %s: %v", want, e.Code, err)
	}
	return e
}

func TestOrderIsThePipeline(t *testing.T) {
	got := phases.Order()
	want := []baton.Phase{baton.PhaseResearch, baton.PhaseArchitecture, baton.PhaseGrooming, baton.PhaseReady}
	if !slices.Equal(got, want) {
		t.Fatalf("Order() = %v, want %v", got, want)
	}
	got[0] = "changed" // a copy: callers cannot reorder the pipeline
	if phases.Order()[0] != baton.PhaseResearch {
		t.Fatal("Order returned the package's own slice")
	}
}

// The built-in contracts are the supplement's default set, and each
// pre-ready one names the next phase in order.
func TestBuiltinContracts(t *testing.T) {
	for _, tc := range []struct {
		phase    baton.Phase
		profile  string
		artifact string
		sections []string
		valid    string
		next     baton.Phase
	}{
		{baton.PhaseResearch, "researcher", "research.md", []string{"Problem Statement", "Recommendation"}, "structural", baton.PhaseArchitecture},
		{baton.PhaseArchitecture, "researcher", "design.md", []string{"Design", "Risks", "Recommendation"}, "structural", baton.PhaseGrooming},
		{baton.PhaseGrooming, "planner", "grooming.md", []string{"Plan", "Tasks"}, "structural", baton.PhaseReady},
		{baton.PhaseReady, "worker", "", []string{}, "gates", ""},
	} {
		t.Run(string(tc.phase), func(t *testing.T) {
			c, err := phases.Builtin(tc.phase)
			if err != nil {
				t.Fatal(err)
			}
			if c.Version != 1 || c.DispatchProfile != tc.profile || c.ArtifactPath != tc.artifact ||
				!slices.Equal(c.RequiredSections, tc.sections) || c.Validation != tc.valid || c.NextPhase != tc.next ||
				c.Source != phases.BuiltinSource || c.Phase != tc.phase {
				t.Errorf("contract = %+v", c)
			}
			if !strings.Contains(c.Body, "## Workspace Context") || strings.HasPrefix(c.Body, "\n") {
				t.Errorf("body lacks the Workspace Context section or starts blank: %q", c.Body[:min(80, len(c.Body))])
			}
			// Without a project root, or with one that has no contracts,
			// the built-in contract is the one in force.
			for _, root := range []string{"", t.TempDir()} {
				got, err := phases.Contract(root, tc.phase)
				if err != nil || got.Source != phases.BuiltinSource || got.Version != 1 {
					t.Errorf("Contract(%q) = %+v, %v", root, got, err)
				}
			}
		})
	}
	if _, err := phases.Builtin("deploy"); err == nil {
		t.Error("Builtin(deploy) succeeded")
	}
}

func TestContractArtifactPath(t *testing.T) {
	c, _ := phases.Builtin(baton.PhaseArchitecture)
	if got := c.Artifact("SYM-33"); got != "docs/tickets/SYM-33/design.md" {
		t.Errorf("Artifact = %q", got)
	}
	r, _ := phases.Builtin(baton.PhaseReady)
	if got := r.Artifact("SYM-33"); got != "" {
		t.Errorf("ready Artifact = %q, want none", got)
	}
}

// Builtin parses the defaults once and hands out copies: what one caller
// changes in its contract, the next caller does not see.
func TestBuiltinCopies(t *testing.T) {
	a, err := phases.Builtin(baton.PhaseArchitecture)
	if err != nil || len(a.RequiredSections) == 0 {
		t.Fatalf("Builtin(architecture) = %+v, %v", a, err)
	}
	want := a.RequiredSections[0]
	a.RequiredSections[0], a.Body, a.Version = "changed", "changed", 99
	b, _ := phases.Builtin(baton.PhaseArchitecture)
	if b == a || b.RequiredSections[0] != want || b.Body == "changed" || b.Version == 99 {
		t.Errorf("a change to one Builtin result reached the next: %+v", b)
	}
}

const customResearch = `---
version: 2
dispatch_profile: researcher
artifact_path: findings.md
required_sections:
  - Context
  - "Options, weighed"
validation: structural
next_phase: grooming
---
Research by the project's own rules.
`

// A project's prompts/phases/<phase>.md overrides the built-in contract
// of that phase only; contracts_dir names another directory in the project.
func TestProjectContractOverridesBuiltin(t *testing.T) {
	root := t.TempDir()
	write(t, root, "prompts/phases/research.md", customResearch)
	c, err := phases.Contract(root, baton.PhaseResearch)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != 2 || c.ArtifactPath != "findings.md" || c.NextPhase != baton.PhaseGrooming ||
		!slices.Equal(c.RequiredSections, []string{"Context", "Options, weighed"}) ||
		c.Source != "prompts/phases/research.md" || c.Body != "Research by the project's own rules.\n" {
		t.Errorf("contract = %+v", c)
	}
	if a, _ := phases.Contract(root, baton.PhaseArchitecture); a.Source != phases.BuiltinSource {
		t.Errorf("architecture came from %s, want the built-in contract", a.Source)
	}
	write(t, root, "team/contracts/grooming.md", strings.Replace(customResearch, "next_phase: grooming", "next_phase: ready", 1))
	for _, dir := range []string{"team/contracts", filepath.Join(root, "team", "contracts"), "./team/contracts/"} {
		g, err := phases.Load(root, dir, baton.PhaseGrooming)
		if err != nil || g.Source != "team/contracts/grooming.md" || g.Version != 2 {
			t.Errorf("Load(%q) = %+v, %v", dir, g, err)
		}
	}
	// A phase with no file in the named directory has its built-in one.
	if r, err := phases.Load(root, "team/contracts", baton.PhaseResearch); err != nil || r.Source != phases.BuiltinSource {
		t.Errorf("research from team/contracts = %+v, %v", r, err)
	}
	all, err := phases.All(root)
	if err != nil || len(all) != 4 || all[0].Version != 2 || all[1].Source != phases.BuiltinSource {
		t.Fatalf("All = %v, %v", all, err)
	}
}

// contracts_dir outside the project (by .., an absolute path, or a
// symlink) or missing is refused, and no message carries the server's
// absolute paths.
func TestContractsDirRefused(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, outside, "research.md", customResearch)
	write(t, root, "docs/readme.md", "x")
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "prompts", "phases"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "research.md"), filepath.Join(root, "prompts", "phases", "research.md")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, constraint string
	}{
		{"dot-dot", "../elsewhere", "inside_project"},
		{"absolute outside", outside, "inside_project"},
		{"symlinked directory", "linked", "inside_project"},
		{"missing", "no/such/dir", "exists"},
		{"a file", "docs/readme.md", "exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := phases.Load(root, tc.dir, baton.PhaseResearch)
			e := code(t, err, baton.ErrInvalidInput)
			if e.Details["constraint"] != tc.constraint || e.Details["field"] != "contracts_dir" {
				t.Errorf("details = %v", e.Details)
			}
			if strings.Contains(e.Message, root) || strings.Contains(e.Message, outside) && !strings.Contains(tc.dir, outside) {
				t.Errorf("message leaks a server path: %s", e.Message)
			}
		})
	}
	// A contract file symlinked out of the project is refused too.
	_, err := phases.Contract(root, baton.PhaseResearch)
	if e := code(t, err, baton.ErrInvalidInput); strings.Contains(e.Message, outside) {
		t.Errorf("message leaks a server path: %s", e.Message)
	}
	if _, err := phases.Load("", "prompts/phases", baton.PhaseResearch); err == nil {
		t.Error("an explicit contracts_dir without a project root succeeded")
	}
}

// Every mistake in a contract file is ERR_CONFIG_INVALID naming the file
// and what to fix.
func TestParseContractErrors(t *testing.T) {
	good := map[string]string{"version": "1", "dispatch_profile": "researcher", "artifact_path": "research.md",
		"required_sections": "[A]", "validation": "structural", "next_phase": "architecture"}
	render := func(over map[string]string) string {
		var b strings.Builder
		b.WriteString("---\n")
		for _, k := range []string{"phase", "version", "dispatch_profile", "artifact_path", "required_sections", "validation", "next_phase"} {
			v, ok := over[k]
			if !ok {
				v, ok = good[k]
			}
			if ok && v != "-" {
				b.WriteString(k + ": " + v + "\n")
			}
		}
		b.WriteString("---\nbody\n")
		return b.String()
	}
	for _, tc := range []struct {
		name  string
		phase baton.Phase
		src   string
		want  string
	}{
		{"no frontmatter", baton.PhaseResearch, "# just text\n", "no frontmatter"},
		{"unterminated", baton.PhaseResearch, "---\nversion: 1\n", "unterminated"},
		{"version missing", baton.PhaseResearch, render(map[string]string{"version": "-"}), "version is required"},
		{"version not a number", baton.PhaseResearch, render(map[string]string{"version": "one"}), "version must be a whole number"},
		{"version zero", baton.PhaseResearch, render(map[string]string{"version": "0"}), "version must be a whole number"},
		{"no profile", baton.PhaseResearch, render(map[string]string{"dispatch_profile": "-"}), "dispatch_profile is required"},
		{"no artifact", baton.PhaseResearch, render(map[string]string{"artifact_path": "-"}), "artifact_path is required"},
		{"artifact escapes", baton.PhaseResearch, render(map[string]string{"artifact_path": "../x.md"}), "plain relative file name"},
		{"artifact absolute", baton.PhaseResearch, render(map[string]string{"artifact_path": "/etc/x.md"}), "plain relative file name"},
		{"artifact not markdown", baton.PhaseResearch, render(map[string]string{"artifact_path": "x.txt"}), "must be a Markdown file"},
		{"sections not a list", baton.PhaseResearch, render(map[string]string{"required_sections": "Design"}), "required_sections must be a list"},
		{"bad validation", baton.PhaseResearch, render(map[string]string{"validation": "vibes"}), "validation must be structural or gates"},
		{"no next phase", baton.PhaseResearch, render(map[string]string{"next_phase": "-"}), "next_phase is required"},
		{"next phase backwards", baton.PhaseGrooming, render(map[string]string{"next_phase": "research"}), "must be a later phase: ready"},
		{"next phase unknown", baton.PhaseResearch, render(map[string]string{"next_phase": "deploy"}), "must be a later phase"},
		{"phase mismatch", baton.PhaseResearch, render(map[string]string{"phase": "grooming"}), "does not match the file"},
		{"ready with artifact", baton.PhaseReady, render(map[string]string{"next_phase": "-", "dispatch_profile": "worker"}), "ready phase has no artifact_path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := phases.Parse(tc.phase, []byte(tc.src), "prompts/phases/x.md")
			e := code(t, err, baton.ErrConfigInvalid)
			if !strings.Contains(e.Message, tc.want) || !strings.Contains(e.Message, "prompts/phases/x.md") || e.Hint == "" {
				t.Errorf("message %q (hint %q), want it to name the file and say %q", e.Message, e.Hint, tc.want)
			}
		})
	}
	// A broken project contract reaches callers of Contract as it is.
	root := t.TempDir()
	write(t, root, "prompts/phases/architecture.md", render(map[string]string{"next_phase": "research"}))
	_, err := phases.Contract(root, baton.PhaseArchitecture)
	code(t, err, baton.ErrConfigInvalid)
}
