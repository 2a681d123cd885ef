package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// write puts a SKILL.md for the skill dir under root and gives it a
// distinct mtime, so change detection never depends on timer granularity.
func write(t *testing.T, root, dir, content string) string {
	t.Helper()
	p := filepath.Join(root, ".agents", "skills", dir, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	bump(t, p)
	return p
}

var clock = struct {
	sync.Mutex
	t time.Time
}{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

func bump(t *testing.T, p string) {
	t.Helper()
	clock.Lock()
	clock.t = clock.t.Add(time.Second)
	ts := clock.t
	clock.Unlock()
	if err := os.Chtimes(p, ts, ts); err != nil {
		t.Fatal(err)
	}
}

func skill(name, desc string, caps ...string) string {
	return fmt.Sprintf("---\nname: %s\nversion: 1.0.0\ndescription: %s\ncapabilities: [%s]\n---\n# %s\n", name, desc, strings.Join(caps, ", "), name)
}

func names(ss []Skill) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func TestRegistryLoads(t *testing.T) {
	root := t.TempDir()
	write(t, root, "colibri-tier1-chains", skill("colibri-tier1-chains", "Canonical Tier 1 (Sigma) round and writeback chains.", "round-plan", "writeback-audit"))
	write(t, root, "alpha", skill("alpha", "First skill.", "plan"))
	write(t, root, "broken", "no frontmatter here\n")
	write(t, root, ".hidden", skill(".hidden", "Hidden.", "plan"))
	if err := os.MkdirAll(filepath.Join(root, ".agents", "skills", "empty-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".agents", "skills", "README.md"), []byte("not a skill"), 0o644); err != nil {
		t.Fatal(err)
	}

	s := New(root).Snapshot()
	if got := names(s.Skills); !reflect.DeepEqual(got, []string{"alpha", "colibri-tier1-chains"}) {
		t.Fatalf("skills = %v", got)
	}
	want := Skill{Name: "colibri-tier1-chains", Version: "1.0.0", Description: "Canonical Tier 1 (Sigma) round and writeback chains.",
		Capabilities: []string{"round-plan", "writeback-audit"}, Tools: []string{}, Path: ".agents/skills/colibri-tier1-chains/SKILL.md",
		Body: "# colibri-tier1-chains\n"}
	if got, ok := s.Get("colibri-tier1-chains"); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %#v, %v\nwant %#v", got, ok, want)
	}
	if len(s.Errors) != 1 || s.Errors[0].Path != ".agents/skills/broken/SKILL.md" || !strings.Contains(s.Errors[0].Message, "no frontmatter") {
		t.Fatalf("errors = %+v", s.Errors)
	}
	if p, ok := s.Error("broken"); !ok || p != s.Errors[0] {
		t.Fatalf("Error(broken) = %+v, %v", p, ok)
	}
	if _, ok := s.Error("alpha"); ok {
		t.Fatal("Error(alpha) reported a problem")
	}
	if len(s.Warnings) != 0 {
		t.Fatalf("warnings = %+v", s.Warnings)
	}
}

func TestRegistryWithoutSkillsDirectory(t *testing.T) {
	s := New(t.TempDir()).Snapshot()
	if len(s.Skills) != 0 || len(s.Errors) != 0 || s.Skills == nil || s.Errors == nil {
		t.Fatalf("snapshot = %#v", s)
	}
}

func TestRegistryUnreadableDirectoryIsAProblem(t *testing.T) {
	root := t.TempDir()
	// A file where the directory should be: listing it fails, but
	// reading skills must not.
	if err := os.MkdirAll(filepath.Join(root, ".agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".agents", "skills"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(root).Snapshot()
	if len(s.Skills) != 0 || len(s.Errors) != 1 || s.Errors[0].Path != ".agents/skills" {
		t.Fatalf("snapshot = %+v", s)
	}
	if strings.Contains(s.Errors[0].Message, root) {
		t.Errorf("message %q leaks the absolute path", s.Errors[0].Message)
	}
}

func TestFilter(t *testing.T) {
	root := t.TempDir()
	write(t, root, "colibri-tier1-chains", skill("colibri-tier1-chains", "Round and writeback chains.", "round-plan", "writeback-audit"))
	write(t, root, "review", skill("review", "Review a TIER1 change.", "review"))
	write(t, root, "plan", skill("plan", "Plan work.", "round-plan"))
	s := New(root).Snapshot()
	cases := []struct {
		search, capability string
		want               []string
	}{
		{"", "", []string{"colibri-tier1-chains", "plan", "review"}},
		{"tier1", "", []string{"colibri-tier1-chains", "review"}}, // name, or description ignoring case
		{"WRITEBACK", "", []string{"colibri-tier1-chains"}},
		{"", "round-plan", []string{"colibri-tier1-chains", "plan"}},
		{"", "Round-Plan", []string{}}, // capabilities match exactly
		{"", "round", []string{}},
		{"plan", "round-plan", []string{"plan"}}, // both filters apply
		{"nothing", "", []string{}},
	}
	for _, c := range cases {
		if got := names(s.Filter(c.search, c.capability)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Filter(%q, %q) = %v, want %v", c.search, c.capability, got, c.want)
		}
	}
}

// TestMalformedFilesDoNotStopOthers: every kind of bad file is reported
// against its own path, and the good ones load.
func TestMalformedFilesDoNotStopOthers(t *testing.T) {
	root := t.TempDir()
	write(t, root, "good", skill("good", "Good.", "a"))
	write(t, root, "no-fm", "# just markdown\n")
	write(t, root, "unterminated", "---\ndescription: d\n")
	write(t, root, "bad-line", "---\ndescription: d\noops\n---\n")
	write(t, root, "no-desc", "---\nname: no-desc\n---\n")
	big := write(t, root, "too-big", "---\ndescription: d\n---\n")
	if err := os.WriteFile(big, []byte("---\ndescription: d\n---\n"+strings.Repeat("x", MaxFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".agents", "skills", "is-dir", "SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := New(root).Snapshot()
	if got := names(s.Skills); !reflect.DeepEqual(got, []string{"good"}) {
		t.Fatalf("skills = %v", got)
	}
	want := map[string]string{
		".agents/skills/bad-line/SKILL.md":     "line 3: expected",
		".agents/skills/is-dir/SKILL.md":       "not a regular file",
		".agents/skills/no-desc/SKILL.md":      "description is required",
		".agents/skills/no-fm/SKILL.md":        "no frontmatter",
		".agents/skills/too-big/SKILL.md":      "more than the limit",
		".agents/skills/unterminated/SKILL.md": "unterminated frontmatter",
	}
	if len(s.Errors) != len(want) {
		t.Fatalf("errors = %+v", s.Errors)
	}
	for i, e := range s.Errors {
		if !strings.Contains(e.Message, want[e.Path]) {
			t.Errorf("error for %s = %q, want it to contain %q", e.Path, e.Message, want[e.Path])
		}
		if i > 0 && s.Errors[i-1].Path >= e.Path {
			t.Errorf("errors not sorted by path: %+v", s.Errors)
		}
	}
}

func TestNameMismatchWarns(t *testing.T) {
	root := t.TempDir()
	write(t, root, "dir-name", skill("other-name", "Mismatched.", "a"))
	write(t, root, "no-name", "---\ndescription: Unnamed.\n---\n")
	s := New(root).Snapshot()
	if got := names(s.Skills); !reflect.DeepEqual(got, []string{"dir-name", "no-name"}) {
		t.Fatalf("skills = %v", got)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Path != ".agents/skills/dir-name/SKILL.md" ||
		!strings.Contains(s.Warnings[0].Message, `"other-name"`) || !strings.Contains(s.Warnings[0].Message, `listed as "dir-name"`) {
		t.Fatalf("warnings = %+v", s.Warnings)
	}
	if _, ok := s.Get("other-name"); ok {
		t.Fatal("the frontmatter name became a registry key")
	}
}

// TestChangesAreSeenWithoutReload: additions, edits and removals show up
// on the next read.
func TestChangesAreSeenWithoutReload(t *testing.T) {
	root := t.TempDir()
	r := New(root)
	if n := len(r.Snapshot().Skills); n != 0 {
		t.Fatalf("%d skills before any file", n)
	}
	p := write(t, root, "one", skill("one", "First.", "a"))
	if got := names(r.Snapshot().Skills); !reflect.DeepEqual(got, []string{"one"}) {
		t.Fatalf("after add: %v", got)
	}
	write(t, root, "two", skill("two", "Second.", "b"))
	write(t, root, "one", skill("one", "First, edited.", "a", "c"))
	s := r.Snapshot()
	if got, _ := s.Get("one"); got.Description != "First, edited." || !reflect.DeepEqual(got.Capabilities, []string{"a", "c"}) {
		t.Fatalf("after edit: %+v", got)
	}
	if got := names(s.Skills); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Fatalf("after second add: %v", got)
	}
	// Break it, then fix it.
	write(t, root, "one", "---\ndescription: [x]\n---\n")
	if s := r.Snapshot(); len(s.Skills) != 1 || len(s.Errors) != 1 {
		t.Fatalf("after breaking: %+v", s)
	}
	write(t, root, "one", skill("one", "Fixed.", "a"))
	if got, ok := r.Get("one"); !ok || got.Description != "Fixed." {
		t.Fatalf("after fixing: %+v %v", got, ok)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if got := names(r.Snapshot().Skills); !reflect.DeepEqual(got, []string{"two"}) {
		t.Fatalf("after remove: %v", got)
	}
	if err := os.RemoveAll(filepath.Join(root, ".agents")); err != nil {
		t.Fatal(err)
	}
	if s := r.Snapshot(); len(s.Skills) != 0 || len(s.Errors) != 0 {
		t.Fatalf("after removing the directory: %+v", s)
	}
}

// TestReloadCatchesWhatStatMisses: an edit that keeps size and mtime is
// invisible to the cheap check, which is what Reload is for.
func TestReloadCatchesWhatStatMisses(t *testing.T) {
	root := t.TempDir()
	r := New(root)
	p := write(t, root, "one", skill("one", "Version A.", "a"))
	if got, _ := r.Get("one"); got.Description != "Version A." {
		t.Fatalf("got %+v", got)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(skill("one", "Version B.", "a")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Get("one"); got.Description != "Version A." {
		t.Fatalf("the cheap check parsed again: %+v", got)
	}
	if got, _ := r.Reload().Get("one"); got.Description != "Version B." {
		t.Fatalf("after Reload: %+v", got)
	}
}

func TestSnapshotIsACopy(t *testing.T) {
	root := t.TempDir()
	write(t, root, "one", skill("one", "First.", "a"))
	r := New(root)
	s := r.Snapshot()
	s.Skills[0].Capabilities[0] = "changed"
	s.Skills[0].Name = "changed"
	if got, _ := r.Get("one"); got.Capabilities[0] != "a" {
		t.Fatalf("the cache was changed through a snapshot: %+v", got)
	}
}

func TestSymlinkedSkillDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		return // symlinks need privileges there; the logic is the same
	}
	root := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "SKILL.md"), []byte(skill("linked", "Linked.", "a")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".agents", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, ".agents", "skills", "linked")); err != nil {
		t.Fatal(err)
	}
	if got := names(New(root).Snapshot().Skills); !reflect.DeepEqual(got, []string{"linked"}) {
		t.Fatalf("skills = %v", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	root := t.TempDir()
	r := New(root)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				name := fmt.Sprintf("s%d-%d", i, j%3)
				p := filepath.Join(root, ".agents", "skills", name, "SKILL.md")
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = os.WriteFile(p, []byte(skill(name, fmt.Sprintf("Round %d.", j), "a")), 0o644)
				r.Snapshot()
				if j%5 == 0 {
					r.Reload()
				}
				r.Get(name)
			}
		}()
	}
	wg.Wait()
	if n := len(r.Reload().Skills); n != 24 {
		t.Fatalf("%d skills, want 24", n)
	}
}

func TestForSharesByRoot(t *testing.T) {
	root := t.TempDir()
	a := For(root)
	if For(root+string(filepath.Separator)) != a || For(filepath.Join(root, ".")) != a {
		t.Fatal("the same root gave different registries")
	}
	if For(t.TempDir()) == a {
		t.Fatal("different roots share a registry")
	}
	for range maxShared + 1 {
		For(t.TempDir())
	}
	shared.mu.Lock()
	n := len(shared.regs)
	shared.mu.Unlock()
	if n > maxShared {
		t.Fatalf("%d shared registries, more than %d", n, maxShared)
	}
}
