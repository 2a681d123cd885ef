// This test runs `baton skills ...` through App.Run: the skill tools and
// the reload command under one `baton skills` group.

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSkillsCommandThroughApp(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, content := range map[string]string{
		"colibri-tier1-chains": "---\nversion: 1.0.0\ndescription: Canonical Tier 1 chains.\ncapabilities: [round-plan]\n---\nbody\n",
		"broken":               "---\nname broken\n---\n",
	} {
		p := filepath.Join(dir, ".agents", "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := baton(t, nil, "skills", "reload")
	want := "colibri-tier1-chains 1.0.0: Canonical Tier 1 chains.\n" +
		"error: .agents/skills/broken/SKILL.md: line 2: expected \"key: value\" or a list item, got \"name broken\"\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("skills reload = %+v\nwant stdout %q", r, want)
	}
	if r := baton(t, nil, "skills", "reload", "now"); r.code != 2 {
		t.Fatalf("skills reload now = %+v, want exit 2", r)
	}
	// The tools live in the same group as reload.
	env := newDB(t)
	r = baton(t, env, "skills", "skill_list", "--capability", "round-plan", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"path":".agents/skills/colibri-tier1-chains/SKILL.md"`) ||
		!strings.Contains(r.stdout, `"errors":[{"path":".agents/skills/broken/SKILL.md"`) {
		t.Fatalf("skill_list = %+v", r)
	}
	if r := baton(t, env, "skills", "skill_get", "--name", "nope"); r.code != 1 || !strings.Contains(r.stderr, "ERR_SKILL_NOT_FOUND") {
		t.Fatalf("skill_get nope = %+v", r)
	}
	if r := baton(t, nil, "--help"); strings.Count(r.stdout, "\n  skills ") != 1 {
		t.Fatalf("baton --help lists skills %d times:\n%s", strings.Count(r.stdout, "\n  skills "), r.stdout)
	}
}
