package skills_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/skills"
)

// kit is a testkit whose registry holds just the skill tools, so these
// tests run whether or not tools.All lists them.
func kit(t *testing.T) *testkit.Kit {
	k := testkit.New(t)
	k.Registry = tool.NewRegistry(skills.SkillList, skills.SkillGet)
	k.Env.Registry = k.Registry
	return k
}

var mtime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// write puts a SKILL.md under the kit's working directory, each with a
// later mtime than the last so changes never hide in timer granularity.
func write(k *testkit.Kit, dir, content string) string {
	k.T.Helper()
	p := filepath.Join(k.Env.WorkDir, ".agents", "skills", dir, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		k.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		k.T.Fatal(err)
	}
	mtime = mtime.Add(time.Second)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		k.T.Fatal(err)
	}
	return p
}

func skill(name, version, desc string, caps ...string) string {
	return fmt.Sprintf("---\nname: %s\nversion: %s\ndescription: %s\ncapabilities: [%s]\n---\n# %s\n\nDo the thing.\n",
		name, version, desc, strings.Join(caps, ", "), name)
}

// seed writes the catalogue's example skill and two more.
func seed(k *testkit.Kit) {
	write(k, "colibri-tier1-chains", skill("colibri-tier1-chains", "1.0.0", "Canonical Tier 1 (Sigma) round and writeback chains.", "round-plan", "writeback-audit"))
	write(k, "colibri-review", skill("colibri-review", "0.2.0", "Review a change against the tier1 rules.", "review"))
	write(k, "planner", skill("planner", "2.1", "Break work into tasks.", "round-plan"))
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func listNames(t *testing.T, out map[string]any) []string {
	t.Helper()
	list, ok := out["skills"].([]any)
	if !ok {
		t.Fatalf("skills is not a list: %v", out["skills"])
	}
	names := []string{}
	for _, s := range list {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if n := out["total_count"]; n != float64(len(names)) {
		t.Errorf("total_count = %v, %d skills listed", n, len(names))
	}
	return names
}

func TestSkillListMatchesCatalogueExample(t *testing.T) {
	k := kit(t)
	seed(k)
	out := k.OK("skill_list", `{"search":"tier1"}`)
	if got := keys(out); !reflect.DeepEqual(got, []string{"skills", "total_count"}) {
		t.Fatalf("output keys = %v: without malformed files the shape is the catalogue's", got)
	}
	if got := listNames(t, out); !reflect.DeepEqual(got, []string{"colibri-review", "colibri-tier1-chains"}) {
		t.Fatalf("search tier1 = %v", got)
	}
	got := out["skills"].([]any)[1]
	want := map[string]any{
		"name": "colibri-tier1-chains", "version": "1.0.0",
		"description":  "Canonical Tier 1 (Sigma) round and writeback chains.",
		"capabilities": []any{"round-plan", "writeback-audit"},
		"path":         ".agents/skills/colibri-tier1-chains/SKILL.md",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("skill = %v\nwant %v", got, want)
	}
}

func TestSkillListFilters(t *testing.T) {
	k := kit(t)
	seed(k)
	cases := []struct {
		args string
		want []string
	}{
		{`{}`, []string{"colibri-review", "colibri-tier1-chains", "planner"}},
		{`{"search":"COLIBRI"}`, []string{"colibri-review", "colibri-tier1-chains"}},
		{`{"search":"into tasks"}`, []string{"planner"}},
		{`{"search":""}`, []string{"colibri-review", "colibri-tier1-chains", "planner"}},
		{`{"capability":"round-plan"}`, []string{"colibri-tier1-chains", "planner"}},
		{`{"capability":"ROUND-PLAN"}`, []string{}},
		{`{"capability":"round"}`, []string{}},
		{`{"search":"colibri","capability":"round-plan"}`, []string{"colibri-tier1-chains"}},
		{`{"search":"nothing like it"}`, []string{}},
	}
	for _, c := range cases {
		if got := listNames(t, k.OK("skill_list", c.args)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("skill_list %s = %v, want %v", c.args, got, c.want)
		}
	}
}

func TestSkillListWithoutSkills(t *testing.T) {
	k := kit(t)
	out := k.OK("skill_list", nil)
	if got := keys(out); !reflect.DeepEqual(got, []string{"skills", "total_count"}) || len(out["skills"].([]any)) != 0 {
		t.Fatalf("out = %v", out)
	}
}

// TestSkillListReportsMalformedFiles: a bad file is listed under errors
// with its path; the others are listed as usual.
func TestSkillListReportsMalformedFiles(t *testing.T) {
	k := kit(t)
	seed(k)
	write(k, "broken", "---\ndescription: d\nnot yaml at all\n---\n")
	write(k, "no-frontmatter", "# Just a title\n")
	write(k, "renamed", skill("old-name", "1", "Renamed directory.", "x"))
	out := k.OK("skill_list", `{"capability":"review"}`)
	if got := listNames(t, out); !reflect.DeepEqual(got, []string{"colibri-review"}) {
		t.Fatalf("skills = %v", got)
	}
	errs, _ := json.Marshal(out["errors"])
	want := `[{"error":"line 3: expected \"key: value\" or a list item, got \"not yaml at all\"","path":".agents/skills/broken/SKILL.md"},` +
		`{"error":"no frontmatter: the first line must be ---","path":".agents/skills/no-frontmatter/SKILL.md"}]`
	if string(errs) != want {
		t.Fatalf("errors = %s\nwant %s", errs, want)
	}
	warns, _ := out["warnings"].([]any)
	if len(warns) != 1 {
		t.Fatalf("warnings = %v", out["warnings"])
	}
	w := warns[0].(map[string]any)
	if w["path"] != ".agents/skills/renamed/SKILL.md" || !strings.Contains(w["warning"].(string), `"old-name"`) {
		t.Fatalf("warning = %v", w)
	}
	if got := listNames(t, k.OK("skill_list", `{"search":"renamed"}`)); !reflect.DeepEqual(got, []string{"renamed"}) {
		t.Fatalf("a renamed skill is listed under its directory: %v", got)
	}
}

func TestSkillGet(t *testing.T) {
	k := kit(t)
	seed(k)
	out := k.OK("skill_get", `{"name":"colibri-tier1-chains"}`)
	want := map[string]any{
		"name": "colibri-tier1-chains", "version": "1.0.0",
		"description":  "Canonical Tier 1 (Sigma) round and writeback chains.",
		"capabilities": []any{"round-plan", "writeback-audit"},
		"path":         ".agents/skills/colibri-tier1-chains/SKILL.md",
		"body":         "# colibri-tier1-chains\n\nDo the thing.\n",
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("skill_get = %v\nwant %v", out, want)
	}
	write(k, "bare", "---\ndescription: No version, no capabilities.\n---\n")
	out = k.OK("skill_get", `{"name":"bare"}`)
	if out["version"] != "" || !reflect.DeepEqual(out["capabilities"], []any{}) || out["body"] != "" {
		t.Fatalf("bare skill = %v", out)
	}
}

func TestSkillGetUnknown(t *testing.T) {
	k := kit(t)
	seed(k)
	e := k.Fail("skill_get", `{"name":"colibri-tier2"}`, baton.ErrSkillNotFound)
	if e.Type != "skill_not_found" || !strings.Contains(e.Message, "colibri-tier2") || !strings.Contains(e.Hint, "skill_list") {
		t.Fatalf("error = %+v", e)
	}
	if got := e.Details["known"]; !reflect.DeepEqual(got, []string{"colibri-review", "colibri-tier1-chains", "planner"}) {
		t.Fatalf("details.known = %v", got)
	}
	if e.Details["name"] != "colibri-tier2" {
		t.Fatalf("details.name = %v", e.Details["name"])
	}
	// The error a client sees is the envelope, known names included.
	res := k.Call("skill_get", `{"name":"nope"}`)
	if !strings.Contains(res.Text, `"known":["colibri-review","colibri-tier1-chains","planner"]`) ||
		!strings.Contains(res.Text, `"next_action_hint"`) {
		t.Fatalf("envelope = %s", res.Text)
	}
	// Case matters: names are directory names.
	k.Fail("skill_get", `{"name":"Planner"}`, baton.ErrSkillNotFound)
}

func TestSkillGetMalformed(t *testing.T) {
	k := kit(t)
	seed(k)
	write(k, "broken", "---\nname: broken\n---\nbody\n")
	e := k.Fail("skill_get", `{"name":"broken"}`, baton.ErrSkillNotFound)
	if e.Details["path"] != ".agents/skills/broken/SKILL.md" || !strings.Contains(e.Message, "description is required") ||
		!strings.Contains(e.Hint, "fix the frontmatter of .agents/skills/broken/SKILL.md") {
		t.Fatalf("error = %+v", e)
	}
	if slices.Contains(e.Details["known"].([]string), "broken") {
		t.Fatalf("a malformed skill is listed as known: %v", e.Details["known"])
	}
}

// TestEditsShowUpOnTheNextCall: the registry notices added, changed and
// removed files without a reload.
func TestEditsShowUpOnTheNextCall(t *testing.T) {
	k := kit(t)
	if got := listNames(t, k.OK("skill_list", nil)); len(got) != 0 {
		t.Fatalf("before: %v", got)
	}
	p := write(k, "one", skill("one", "1", "First.", "a"))
	if got := listNames(t, k.OK("skill_list", nil)); !reflect.DeepEqual(got, []string{"one"}) {
		t.Fatalf("after add: %v", got)
	}
	write(k, "one", skill("one", "2", "First, revised.", "a"))
	if out := k.OK("skill_get", `{"name":"one"}`); out["version"] != "2" || out["description"] != "First, revised." {
		t.Fatalf("after edit: %v", out)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	k.Fail("skill_get", `{"name":"one"}`, baton.ErrSkillNotFound)
}

func TestWorkingDirectoryIsTheRoot(t *testing.T) {
	a, b := kit(t), kit(t)
	write(a, "only-in-a", skill("only-in-a", "1", "A's skill.", "x"))
	if got := listNames(t, b.OK("skill_list", nil)); len(got) != 0 {
		t.Fatalf("b sees a's skills: %v", got)
	}
	// Switching the working directory switches the skills.
	b.Env.WorkDir = a.Env.WorkDir
	if got := listNames(t, b.OK("skill_list", nil)); !reflect.DeepEqual(got, []string{"only-in-a"}) {
		t.Fatalf("after moving to a's directory: %v", got)
	}
}

// TestNoStoreNeeded: the skill tools read files only, so they work when
// the database is not open.
func TestNoStoreNeeded(t *testing.T) {
	k := kit(t)
	seed(k)
	k.Env.Store = nil
	k.OK("skill_list", nil)
	k.OK("skill_get", `{"name":"planner"}`)
}

func TestInputLimits(t *testing.T) {
	k := kit(t)
	seed(k)
	cases := []struct {
		tool, args string
	}{
		{"skill_list", fmt.Sprintf(`{"search":%q}`, strings.Repeat("x", 201))},
		{"skill_list", `{"capability":""}`},
		{"skill_list", fmt.Sprintf(`{"capability":%q}`, strings.Repeat("x", 101))},
		{"skill_list", `{"search":7}`},
		{"skill_list", `{"limit":5}`},
		{"skill_get", `{}`},
		{"skill_get", `{"name":""}`},
		{"skill_get", fmt.Sprintf(`{"name":%q}`, strings.Repeat("x", 129))},
	}
	for _, c := range cases {
		k.Fail(c.tool, c.args, baton.ErrInvalidInput)
	}
	// The limits themselves are allowed.
	k.OK("skill_list", fmt.Sprintf(`{"search":%q,"capability":%q}`, strings.Repeat("x", 200), strings.Repeat("x", 100)))
	k.Fail("skill_get", fmt.Sprintf(`{"name":%q}`, strings.Repeat("x", 128)), baton.ErrSkillNotFound)
}

func TestDefinitions(t *testing.T) {
	for _, tl := range []tool.Tool{skills.SkillList, skills.SkillGet} {
		s := tl.Spec()
		if s.Toolset != "skills" || !s.Annotations.ReadOnly || s.Annotations.Destructive ||
			!reflect.DeepEqual(s.Profiles, tool.Profiles) || !strings.HasSuffix(s.Description, ".") {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	out := skills.SkillList.Spec().OutputSchema()
	if _, ok := out.Properties["errors"]; !ok {
		t.Fatal("skill_list output schema lacks errors")
	}
	for _, req := range out.AnyOf[0].Required {
		if req == "errors" || req == "warnings" {
			t.Errorf("%s is required in skill_list output; it must be optional", req)
		}
	}
}
