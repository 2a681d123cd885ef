package capabilities_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// summaryFile reads the file capabilities_refresh reported, resolving its
// relative path against the data directory's parent.
func summaryFile(t *testing.T, k *testkit.Kit, out map[string]any) string {
	t.Helper()
	rel, _ := out["path"].(string)
	if rel == "" || filepath.IsAbs(rel) || strings.Contains(rel, k.Env.DataDir) {
		t.Fatalf("path %q: want a relative path that shows no server directory", rel)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(k.Env.DataDir), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// themeLines are the summary's "- Theme — ..." lines of one section.
func themeLines(md, section string) []string {
	_, rest, _ := strings.Cut(md, "## "+section+"\n\n")
	rest, _, _ = strings.Cut(rest, "\n\n")
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(rest), "\n") {
		out = append(out, strings.TrimPrefix(l, "- "))
	}
	return out
}

// TestPoint20CapabilitiesRefresh: capabilities_refresh writes a thematic
// summary of the session's own tools (its profile's), one line per theme
// with no tool names, to a file an agent prompt includes, and answers
// Botholomew's output.
func TestPoint20CapabilitiesRefresh(t *testing.T) {
	k := testkit.New(t)
	worker := *k
	worker.Principal.Profile, worker.Principal.AgentType = "worker", "worker"
	out := worker.OK("capabilities_refresh", nil)

	scope, err := k.Env.Scope(t.Context(), worker.Principal)
	if err != nil {
		t.Fatal(err)
	}
	names := scope.Names(k.Registry)
	want := "Wrote capabilities.md (" + strconv.Itoa(len(names)) + " internal tool(s), 0 MCPX tool(s), file created)"
	if out["message"] != want || out["internal_tool_count"] != float64(len(names)) || out["mcp_tool_count"] != 0.0 ||
		out["created_file"] != true || out["is_error"] != false {
		t.Errorf("output = %v, want message %q", out, want)
	}
	if !strings.HasSuffix(out["path"].(string), "/prompts/worker/capabilities.md") {
		t.Errorf("path = %v", out["path"])
	}
	md := summaryFile(t, k, out)
	if !strings.HasPrefix(md, "---\ntitle: Capabilities\nloading: always\nagent-modification: true\n---\n") {
		t.Errorf("frontmatter:\n%s", md)
	}
	// No tool is named, not even as a word of a line.
	for _, t2 := range k.Registry.All() {
		if regexp.MustCompile(`\b` + t2.Spec().Name + `\b`).MatchString(md) {
			t.Errorf("the summary names the tool %s:\n%s", t2.Spec().Name, md)
		}
	}
	lines := themeLines(md, "Internal capabilities")
	var titles []string
	for _, l := range lines {
		title, rest, ok := strings.Cut(l, " — ")
		if !ok || rest == "" {
			t.Errorf("line %q is not 'Theme — what it lets you do'", l)
		}
		titles = append(titles, title)
	}
	// One line per theme, and only themes the worker has tools in.
	if slices.Contains(titles, "Ending your task") != scope.Has("complete_task") || !slices.Contains(titles, "Issues") {
		t.Errorf("themes = %v for the tools %v", titles, names)
	}
	if len(titles) != len(slices.Compact(slices.Clone(titles))) {
		t.Errorf("a theme is repeated: %v", titles)
	}
	for tool, phrase := range map[string]string{"move_issue": "move issues between projects", "merkle_finalize": "seal a session",
		"get_issue": "read issues in full", "complete_task": "finish your task"} {
		if strings.Contains(md, phrase) != scope.Has(tool) {
			t.Errorf("the summary says %q, but the worker has %s: %v\n%s", phrase, tool, scope.Has(tool), md)
		}
	}
	if got := themeLines(md, "External capabilities"); !slices.Equal(got, []string{"None."}) {
		t.Errorf("external = %v", got)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "Ending your task") && l != "Ending your task — finish your task with a summary, give it up with a reason and pause it until something happens" {
			t.Errorf("line = %q", l)
		}
	}

	// The planner's summary is its own file, with its own tools.
	planner := *k
	planner.Principal.Profile = "planner"
	pscope, err := k.Env.Scope(t.Context(), planner.Principal)
	if err != nil {
		t.Fatal(err)
	}
	pmd := summaryFile(t, k, planner.OK("capabilities_refresh", nil))
	if strings.Contains(pmd, "move issues between projects") != pscope.Has("move_issue") || pmd == md {
		t.Errorf("planner summary:\n%s", pmd)
	}

	// A refresh keeps the frontmatter an agent edited, and says the file
	// existed; include_mcp false says the external servers were skipped.
	file := filepath.Join(k.Env.DataDir, "prompts", "worker", "capabilities.md")
	edited := "---\ntitle: What I can do\nloading: always\nagent-modification: false\n---\nold body\n"
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	again := worker.OK("capabilities_refresh", map[string]any{"include_mcp": false})
	if again["created_file"] != false || !strings.HasSuffix(again["message"].(string), ", MCPX skipped)") {
		t.Errorf("second refresh = %v", again)
	}
	md2 := summaryFile(t, k, again)
	if !strings.HasPrefix(md2, "---\ntitle: What I can do\nloading: always\nagent-modification: false\n---\n") || strings.Contains(md2, "old body") {
		t.Errorf("refreshed file:\n%s", md2)
	}
	if got := themeLines(md2, "External capabilities"); len(got) != 1 || !strings.Contains(got[0], "without external servers") {
		t.Errorf("external when skipped = %v", got)
	}

	// A session without a profile has every tool: the file is prompts/.
	// Aliases (membot_delete) are callable but not counted, as not listed.
	listed := 0
	for _, tl := range k.Registry.All() {
		if tl.Spec().AliasOf == "" {
			listed++
		}
	}
	all := k.OK("capabilities_refresh", nil)
	if !strings.HasSuffix(all["path"].(string), "/prompts/capabilities.md") || all["internal_tool_count"] != float64(listed) {
		t.Errorf("no profile = %v", all)
	}
}

// TestPoint20CapabilitiesRefreshFails: when the file cannot be written the
// error is Botholomew's refresh_failed, without the server's paths, and
// with the hint to retry or leave the external servers out.
func TestPoint20CapabilitiesRefreshFails(t *testing.T) {
	k := testkit.New(t)
	blocker := filepath.Join(k.Env.DataDir, "prompts")
	if err := os.WriteFile(blocker, []byte("a file where the folder goes"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := k.FailEnvelope("capabilities_refresh", nil, baton.ErrInternal)
	if e.Type != "refresh_failed" || !strings.Contains(e.Hint, "include_mcp=false") || strings.Contains(e.Message, k.Env.DataDir) {
		t.Errorf("error = %+v", e)
	}
	res := k.Call("capabilities_refresh", nil)
	if !strings.Contains(res.Text, `"error_type":"refresh_failed"`) {
		t.Errorf("envelope = %s", res.Text)
	}
}
