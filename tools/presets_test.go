package tools_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// TestCorePreset: what a session that names nothing gets is small (at most
// 22 tools, at most 9,000 tokens of tools/list as sent) and speaks one
// vocabulary: issues, claims and file reservations, none of the tasks or
// beads tools. (The bound was 20 tools and 8,000 tokens until issue 20
// put the four file reservation tools of the work loop in core: 22 tools,
// ≈ 8,755 tokens.)
func TestCorePreset(t *testing.T) {
	reg := tools.Registry()
	core := tool.PresetTools(reg, tool.PresetCore)
	if len(core) == 0 || len(core) > 22 {
		t.Fatalf("core has %d tools, want 1-22: %v", len(core), core)
	}
	total := 0
	for _, n := range core {
		tl, _ := reg.Get(n)
		total += tool.SchemaTokens(tl.Spec())
		if ts := tl.Spec().Toolset; ts == "tasks" || ts == "beads" {
			t.Errorf("core mixes vocabularies: %s is of toolset %s", n, ts)
		}
	}
	if total > 9000 {
		t.Errorf("core's tools/list costs ≈%d tokens (%s), want at most 9000", total, tool.TokenEstimate)
	}
	// The loop is all there: find and claim work, reserve its files, read
	// and update it, record, talk, ask, report.
	for _, n := range []string{"claim_next", "file_reservation_paths", "release_file_reservations", "get_issue", "update_issue_status",
		"add_finding", "add_learning", "send_message", "ask_owner", "report_progress"} {
		if !slices.Contains(core, n) {
			t.Errorf("core lacks %s", n)
		}
	}
}

// specDir is the product catalogues beside the repository, where CI and
// the developers have them.
func specDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "spec")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the catalogues are not at %s (shared/ beside the repository): %v", dir, err)
	}
	return dir
}

// TestPresetsAreTheCatalogues: each product's preset is the tools its
// catalogue names, exactly: Colibri's 14 shipped tools and Adjutant's
// headings all exist in baton and are all in the preset; every name of the
// Symphony and Botholomew presets is in its catalogue, and every tool
// the presets name exists.
func TestPresetsAreTheCatalogues(t *testing.T) {
	dir := specDir(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	reg := tools.Registry()

	colibri := read("colibri-mcp-tools-phase0.md")
	m := regexp.MustCompile(`Shipped tool list \((\d+)\):\s*\n([a-z_,]+)`).FindStringSubmatch(colibri)
	if m == nil {
		t.Fatal("the Colibri catalogue's shipped tool list was not found")
	}
	wantColibri := strings.Split(m[2], ",")
	slices.Sort(wantColibri)

	adjutant := read("adjutant-mcp-tool-catalog.md")
	var wantAdjutant []string
	for _, h := range regexp.MustCompile(`(?m)^### ([a-z_]+)\s*$`).FindAllStringSubmatch(adjutant, -1) {
		wantAdjutant = append(wantAdjutant, h[1])
	}
	slices.Sort(wantAdjutant)

	for preset, want := range map[string][]string{tool.PresetColibri: wantColibri, tool.PresetAdjutant: wantAdjutant} {
		if got := tool.PresetTools(reg, preset); !slices.Equal(got, want) {
			t.Errorf("preset %s = %v\nwant the catalogue's %v", preset, got, want)
		}
	}

	for preset, file := range map[string][]string{
		tool.PresetSymphony:   {"symphony-mcp-tools.md"},
		tool.PresetBotholomew: {"botholomew-tool-class.md", "membot-operations.md"},
	} {
		var text string
		for _, f := range file {
			text += read(f)
		}
		got := tool.PresetTools(reg, preset)
		if missing := tool.PresetMissing(reg, preset); len(missing) > 0 {
			t.Errorf("preset %s names tools baton does not have: %v", preset, missing)
		}
		for _, n := range got {
			if !regexp.MustCompile(`\b` + n + `\b`).MatchString(text) {
				t.Errorf("preset %s has %s, which %v does not name", preset, n, file)
			}
		}
	}
}
