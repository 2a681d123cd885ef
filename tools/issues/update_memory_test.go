package issues_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/memory"
)

// worker returns k acting as a worker-profile session.
func worker(k *testkit.Kit) *testkit.Kit {
	c := *k
	c.Principal.AgentType, c.Principal.Profile = "worker", "worker"
	return &c
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}

func TestUpdateMemory(t *testing.T) {
	k := testkit.New(t)
	w := worker(k)
	const notes = "# Codebase Notes\n\n- Use WAL mode for SQLite\n- Tests use in-memory DB via createTestDb()"
	out := w.OK("update_memory", map[string]any{"scope": "project", "filename": "codebase-notes.md", "content": notes})
	want := filepath.Join(k.Env.DataDir, "memory", "colibri", "worker", "codebase-notes.md")
	equal(t, "fields", keys(out), []string{"chars", "filename", "path", "profile", "scope"})
	if out["path"] != "memory/colibri/worker/codebase-notes.md" || out["scope"] != "project" || out["filename"] != "codebase-notes.md" ||
		out["profile"] != "worker" || num(t, out["chars"]) != len(notes) {
		t.Errorf("output = %v, want path %s", out, want)
	}
	if got := readFile(t, want); got != notes {
		t.Errorf("file = %q, want %q", got, notes)
	}

	out = w.OK("update_memory", map[string]any{"scope": "global", "filename": "habits.md", "content": "Run go vet first."})
	global := filepath.Join(k.Env.DataDir, "memory", "_global", "worker", "habits.md")
	if out["path"] != "memory/_global/worker/habits.md" || readFile(t, global) != "Run go vet first." {
		t.Errorf("global memory at %v, want %s", out["path"], global)
	}

	// A write replaces the whole file and leaves no temporary file behind.
	w.OK("update_memory", map[string]any{"scope": "project", "filename": "codebase-notes.md", "content": "short"})
	if got := readFile(t, want); got != "short" {
		t.Errorf("after overwrite file = %q, want short", got)
	}
	entries, err := os.ReadDir(filepath.Dir(want))
	if err != nil || len(entries) != 1 || entries[0].Name() != "codebase-notes.md" {
		t.Errorf("memory dir holds %v (%v), want only codebase-notes.md", entries, err)
	}
	// Empty content is allowed: it clears the file.
	w.OK("update_memory", map[string]any{"scope": "project", "filename": "codebase-notes.md", "content": ""})
	if got := readFile(t, want); got != "" {
		t.Errorf("cleared file = %q", got)
	}

	// Another profile has its own memory; the profile wins over the type.
	r := *k
	r.Principal.AgentType, r.Principal.Profile = "worker", "researcher"
	out = r.OK("update_memory", map[string]any{"scope": "project", "filename": "codebase-notes.md", "content": "theirs"})
	if out["path"] != "memory/colibri/researcher/codebase-notes.md" {
		t.Errorf("researcher memory at %v", out["path"])
	}
	only := *k
	only.Principal.AgentType = "judge"
	if out := only.OK("update_memory", map[string]any{"scope": "global", "filename": "j.md", "content": "x"}); out["profile"] != "judge" {
		t.Errorf("profile from agent type = %v, want judge", out["profile"])
	}
	if got := readFile(t, want); got != "" {
		t.Errorf("worker memory changed by the researcher: %q", got)
	}
}

func TestUpdateMemoryContentLimit(t *testing.T) {
	k := testkit.New(t)
	w := worker(k)
	path := filepath.Join(k.Env.DataDir, "memory", "_global", "worker", "big.md")
	for _, tc := range []struct {
		name    string
		content string
		ok      bool
	}{
		{"10000", strings.Repeat("a", 10000), true},
		{"10001", strings.Repeat("a", 10001), false},
		// Characters, not bytes.
		{"10000 two-byte characters", strings.Repeat("é", 10000), true},
		{"10001 two-byte characters", strings.Repeat("é", 10001), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := on(w, t)
			os.Remove(path)
			args := map[string]any{"scope": "global", "filename": "big.md", "content": tc.content}
			if !tc.ok {
				invalid(w, "update_memory", args, "content")
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("refused content was written: %v", err)
				}
				return
			}
			out := w.OK("update_memory", args)
			if num(t, out["chars"]) != 10000 || readFile(t, path) != tc.content {
				t.Errorf("chars = %v, or the file differs", out["chars"])
			}
		})
	}
	if memory.MaxContent != 10000 {
		t.Errorf("memory.MaxContent = %d", memory.MaxContent)
	}
}

// Only ^[a-zA-Z0-9_-]+\.md$ names a memory file: nothing else is written,
// least of all outside the profile's directory.
func TestUpdateMemoryFilenames(t *testing.T) {
	for _, tc := range []struct {
		filename string
		ok       bool
	}{
		{"codebase-notes.md", true},
		{"A_b-9.md", true},
		{"-.md", true},
		{"../x.md", false},
		{"../../escape.md", false},
		{"a/b.md", false},
		{`a\b.md`, false},
		{"/etc/x.md", false},
		{"x.txt", false},
		{".md", false},
		{"x.md.md", false},
		{"x.MD", false},
		{"x", false},
		{"notes .md", false},
		{"notes.md\n", false},
		{"nötes.md", false},
		{"x.md/", false},
		{"..", false},
		{"", false},
	} {
		t.Run(tc.filename, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			w := worker(k)
			args := map[string]any{"scope": "project", "filename": tc.filename, "content": "note"}
			if tc.ok {
				out := w.OK("update_memory", args)
				if want := "memory/colibri/worker/" + tc.filename; out["path"] != want {
					t.Errorf("path = %v, want %s", out["path"], want)
				}
				if _, err := os.Stat(filepath.Join(k.Env.DataDir, "memory", "colibri", "worker", tc.filename)); err != nil {
					t.Errorf("file not written: %v", err)
				}
				return
			}
			invalid(w, "update_memory", args, "filename")
			// Nothing was written anywhere under the data directory.
			var written []string
			filepath.WalkDir(k.Env.DataDir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), "baton.db") {
					written = append(written, path)
				}
				return nil
			})
			if len(written) != 0 {
				t.Errorf("refused filename wrote %v", written)
			}
			if _, err := os.Stat(filepath.Join(k.Env.DataDir, "memory")); !os.IsNotExist(err) {
				t.Errorf("memory directory exists after a refused write: %v", err)
			}
		})
	}
}

func TestUpdateMemoryNeedsProfile(t *testing.T) {
	k := testkit.New(t)
	e := invalid(k, "update_memory", map[string]any{"scope": "global", "filename": "x.md", "content": "c"}, "profile")
	if e.Hint == "" {
		t.Errorf("no hint: %v", e)
	}
	if _, err := os.Stat(filepath.Join(k.Env.DataDir, "memory")); !os.IsNotExist(err) {
		t.Errorf("memory written without a profile: %v", err)
	}
	w := worker(k)
	for _, bad := range []map[string]any{
		{"scope": "team", "filename": "x.md", "content": "c"},
		{"filename": "x.md", "content": "c"},
	} {
		invalid(w, "update_memory", bad, "scope")
	}
	invalid(w, "update_memory", map[string]any{"scope": "global", "content": "c"}, "filename")
	invalid(w, "update_memory", map[string]any{"scope": "global", "filename": "x.md"}, "content")

	// A profile that cannot name a directory never reaches the tool: no
	// such profile exists, so it has no tools at all.
	bad := *k
	bad.Principal.Profile = "../judge"
	bad.Fail("update_memory", map[string]any{"scope": "global", "filename": "x.md", "content": "c"}, "ERR_PERMISSION_DENIED")

	// Project scope needs a project: with two and none chosen, say so.
	k.AddProject("other", "OTH")
	invalid(w, "update_memory", map[string]any{"scope": "project", "filename": "x.md", "content": "c"}, "project")
	o := *w
	o.Principal.Project = "other"
	if out := o.OK("update_memory", map[string]any{"scope": "project", "filename": "x.md", "content": "c"}); !strings.Contains(out["path"].(string), filepath.Join("memory", "other", "worker")) {
		t.Errorf("path = %v", out["path"])
	}
	if _, err := os.Stat(filepath.Join(k.Env.DataDir, "memory", "_global")); !os.IsNotExist(err) {
		t.Errorf("refused calls wrote global memory: %v", err)
	}
}

// memory.Show renders what update_memory wrote: global files first, then
// the project's, each in name order under a heading.
func TestMemoryShow(t *testing.T) {
	k := testkit.New(t)
	w := worker(k)
	for _, f := range []struct{ scope, name, content string }{
		{"project", "b-notes.md", "project b\n"},
		{"global", "z-global.md", "global z"},
		{"project", "a-notes.md", "project a"},
		{"global", "a-global.md", "global a"},
	} {
		w.OK("update_memory", map[string]any{"scope": f.scope, "filename": f.name, "content": f.content})
	}
	// A researcher's memory is not the worker's.
	r := *k
	r.Principal.Profile = "researcher"
	r.OK("update_memory", map[string]any{"scope": "global", "filename": "r.md", "content": "researcher only"})

	got, err := memory.Show(k.Env.DataDir, "colibri", "worker")
	if err != nil {
		t.Fatal(err)
	}
	want := "## Memory: a-global.md (global)\n\nglobal a\n\n" +
		"## Memory: z-global.md (global)\n\nglobal z\n\n" +
		"## Memory: a-notes.md (project colibri)\n\nproject a\n\n" +
		"## Memory: b-notes.md (project colibri)\n\nproject b\n\n"
	if got != want {
		t.Errorf("Show =\n%s\nwant\n%s", got, want)
	}
	global, err := memory.Show(k.Env.DataDir, "", "worker")
	if err != nil || strings.Contains(global, "project") || !strings.Contains(global, "global a") {
		t.Errorf("global-only Show = %q, %v", global, err)
	}
	if none, err := memory.Show(k.Env.DataDir, "colibri", "planner"); err != nil || none != "" {
		t.Errorf("Show for a profile without memory = %q, %v", none, err)
	}
}

// TestPoint8UpdateMemoryFilenameLength: a filename past the limit is bad
// input naming the field and the limit, refused before the file system is
// touched; the longest allowed name is written. No error names a path of
// the server.
func TestPoint8UpdateMemoryFilenameLength(t *testing.T) {
	k := testkit.New(t)
	w := worker(k)
	long := strings.Repeat("a", 297) + ".md" // 300 characters
	e := invalid(w, "update_memory", map[string]any{"scope": "project", "filename": long, "content": "note"}, "filename")
	if e.Details["constraint"] != "maxLength" || !strings.Contains(e.Message, "at most 128 characters") {
		t.Errorf("300-character filename: %s %v", e.Message, e.Details)
	}
	b, _ := json.Marshal(e)
	if strings.Contains(string(b), k.Env.DataDir) || strings.Contains(string(b), "/tmp") {
		t.Errorf("the error shows a server path: %s", b)
	}
	if _, err := os.Stat(filepath.Join(k.Env.DataDir, "memory")); !os.IsNotExist(err) {
		t.Errorf("a refused filename created the memory directory: %v", err)
	}
	// The package refuses it too, for callers that skip the tool.
	_, err := memory.Write(k.Env.DataDir, "colibri", "worker", long, "note")
	if code := baton.ErrorCode(err); code != baton.ErrInvalidInput {
		t.Errorf("memory.Write(300 characters) = %v", err)
	}
	max := strings.Repeat("b", memory.MaxFilename-3) + ".md"
	if out := w.OK("update_memory", map[string]any{"scope": "project", "filename": max, "content": "note"}); out["path"] != "memory/colibri/worker/"+max {
		t.Errorf("128-character filename written at %v", out["path"])
	}
	invalid(w, "update_memory", map[string]any{"scope": "project", "filename": "b" + max, "content": "note"}, "filename")
}

// TestPoint8UpdateMemoryFailureHidesServerPaths: when the file system
// fails, the client learns what failed relative to the data directory,
// never the server's absolute path, and nothing is written.
func TestPoint8UpdateMemoryFailureHidesServerPaths(t *testing.T) {
	k := testkit.New(t)
	w := worker(k)
	// A file where the memory directory belongs makes every write fail,
	// whoever runs the test (permissions would not stop root).
	if err := os.WriteFile(filepath.Join(k.Env.DataDir, "memory"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := fail(w, "update_memory", map[string]any{"scope": "global", "filename": "x.md", "content": "note"}, baton.ErrInternal)
	b, _ := json.Marshal(e)
	if strings.Contains(string(b), k.Env.DataDir) || strings.Contains(string(b), "/tmp") {
		t.Errorf("the error shows a server path: %s", b)
	}
	if !strings.Contains(e.Message, "memory/_global/worker/x.md") || !strings.Contains(e.Message, "not a directory") || e.Hint == "" {
		t.Errorf("error %q does not say what failed", e.Message)
	}
}
