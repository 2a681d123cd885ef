package vault_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/embedding"
)

const retryDoc = `# Retry with backoff

## Payment gateway

When a request to the payment gateway fails, retry it with exponential backoff: wait 100 ms, then 200 ms,
then 400 ms, up to five attempts. Add jitter to every wait so that clients do not retry in lockstep and
overwhelm the gateway the moment it comes back. Only retry idempotent requests, or requests that carry an
idempotency key, so that a retried charge is never taken twice from the customer's card.
Give up after the fifth attempt and report the failure to the caller with the last error attached.
`

// TestUpdateReadsTheFile: vault_update stores a real file of the project
// directory as a version of the project's knowledge, chunked and embedded
// with the built-in model; the file's path is the logical path.
func TestUpdateReadsTheFile(t *testing.T) {
	f := setup(t)
	f.write(f.root, "docs/retry.md", retryDoc)
	out := f.k.OK("vault_update", map[string]any{"path": "docs/retry.md"})
	if out["status"] != "created" || out["path"] != "docs/retry.md" || out["project"] != project ||
		out["mime"] != "text/markdown" || out["embedded"] != true || out["model"] != embedding.BuiltinModel ||
		out["size"] != float64(len(retryDoc)) || out["previous_version_id"] != nil {
		t.Fatalf("vault_update = %v", out)
	}
	d := f.doc(symSpace, "docs/retry.md")
	if d == nil || d.Content != retryDoc || d.SourceType != baton.SourceLocal || d.SourcePath != "docs/retry.md" ||
		d.SourceSHA256 != d.SHA256 || d.Version != out["version_id"] || d.UpdatedBy != "agent-alice" {
		t.Fatalf("stored document = %+v", d)
	}
	chunks := int(out["chunks"].(float64))
	if chunks < 1 || f.vectors("docs/retry.md", embedding.BuiltinModel) != chunks {
		t.Fatalf("%d chunks, %d vectors of the built-in model", chunks, f.vectors("docs/retry.md", embedding.BuiltinModel))
	}
	// Nothing went to the global space or another project.
	if f.doc(globalSpace, "docs/retry.md") != nil || f.doc(otherSpace, "docs/retry.md") != nil {
		t.Fatal("vault_update wrote outside the session's project")
	}
	// The write is recorded like every change.
	if n := f.k.Count(`SELECT COUNT(*) FROM events WHERE project = ? AND type = 'document.written'`, project); n != 1 {
		t.Fatalf("%d document.written events, want 1", n)
	}
	// An absolute path inside the project, and one with ./ and ..
	// segments, name the same entry.
	abs := filepath.Join(f.root, "docs", "retry.md")
	for _, p := range []string{abs, "./docs/../docs/retry.md"} {
		if got := f.k.OK("vault_update", map[string]any{"path": p}); got["path"] != "docs/retry.md" || got["status"] != "unchanged" {
			t.Fatalf("vault_update(%q) = %v", p, got)
		}
	}
	// A file of another kind gets its mime type.
	f.write(f.root, "notes/todo.txt", "buy more coffee filters\n")
	if got := f.k.OK("vault_update", map[string]any{"path": "notes/todo.txt"}); got["mime"] != "text/plain" {
		t.Fatalf("vault_update of a .txt = %v", got)
	}
}

// TestUpdateVersions: a changed file becomes a new version; an unchanged
// one is re-chunked and re-embedded in place, without a new version.
func TestUpdateVersions(t *testing.T) {
	f := setup(t)
	f.write(f.root, "docs/retry.md", retryDoc)
	// First under another embedding model, as if baton's model changed since.
	first := f.with(hashEmbedder{}).OK("vault_update", map[string]any{"path": "docs/retry.md"})
	v1 := first["version_id"].(string)
	if first["model"] != "test-hash-8d" || f.vectors("docs/retry.md", embedding.BuiltinModel) != 0 {
		t.Fatalf("first update = %v", first)
	}

	// Unchanged: same version, now embedded by the current model, the
	// old model's vectors gone, the refresh recorded.
	again := f.k.OK("vault_update", map[string]any{"path": "docs/retry.md"})
	chunks := int(again["chunks"].(float64))
	if again["status"] != "unchanged" || again["version_id"] != v1 || again["previous_version_id"] != nil {
		t.Fatalf("update of an unchanged file = %v", again)
	}
	if n := len(f.versions("docs/retry.md")); n != 1 {
		t.Fatalf("%d versions after an unchanged update, want 1", n)
	}
	if got := f.vectors("docs/retry.md", embedding.BuiltinModel); got != chunks {
		t.Fatalf("%d vectors of the current model after re-embedding, want %d", got, chunks)
	}
	if got := f.vectors("docs/retry.md", "test-hash-8d"); got != 0 {
		t.Fatalf("%d vectors of the old model left", got)
	}
	if d := f.doc(symSpace, "docs/retry.md"); d.LastRefreshStatus != "unchanged" || d.RefreshedAt.IsZero() {
		t.Fatalf("refresh not recorded: %q at %v", d.LastRefreshStatus, d.RefreshedAt)
	}

	// Changed: a new version, the old one kept in the history.
	changed := retryDoc + "\nCircuit breakers stop the retries when the gateway is down for good.\n"
	f.write(f.root, "docs/retry.md", changed)
	out := f.k.OK("vault_update", map[string]any{"path": "docs/retry.md"})
	v2, _ := out["version_id"].(string)
	if out["status"] != "updated" || out["previous_version_id"] != v1 || v2 <= v1 {
		t.Fatalf("update of a changed file = %v (first version %s)", out, v1)
	}
	vs := f.versions("docs/retry.md")
	if len(vs) != 2 || vs[0].Version != v2 || vs[1].Version != v1 {
		t.Fatalf("versions = %+v", vs)
	}
	if d := f.doc(symSpace, "docs/retry.md"); d.Content != changed || d.SourceType != baton.SourceLocal {
		t.Fatalf("current version = %+v", d)
	}
	// The new content is what is searched.
	hit := results(t, f.k.OK("search_knowledge", map[string]any{"query": "circuit breakers"}))
	if len(hit) == 0 || hit[0]["source"] != "docs/retry.md" || hit[0]["version_id"] != v2 {
		t.Fatalf("search after the update = %v", hit)
	}

	// Content written inline at the same path is replaced by the file's,
	// even when the text is equal: the entry now tracks the file.
	f.put(symSpace, "docs/inline.md", "same words\n")
	f.write(f.root, "docs/inline.md", "same words\n")
	if got := f.k.OK("vault_update", map[string]any{"path": "docs/inline.md"}); got["status"] != "updated" {
		t.Fatalf("vault_update over an inline version = %v", got)
	}
	if d := f.doc(symSpace, "docs/inline.md"); d.SourceType != baton.SourceLocal || d.SourcePath != "docs/inline.md" {
		t.Fatalf("inline entry after vault_update = %+v", d)
	}
}

// TestUpdateRefusesOutsidePaths: nothing outside the project directory is
// read, whether named with .., absolutely or through a symbolic link, and
// no error names the server's directories.
func TestUpdateRefusesOutsidePaths(t *testing.T) {
	f := setup(t)
	outside := t.TempDir() // a sibling of the project directory
	secret := f.write(outside, "secret.md", "the launch codes\n")
	f.write(f.root, "docs/ok.md", "fine\n")
	if err := os.Symlink(secret, filepath.Join(f.root, "docs", "link.md")); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(f.root, "ext")); err != nil {
		t.Fatal(err)
	}
	before := f.documents()
	for _, c := range []struct {
		path   string
		echoes bool // the path names the outside directory itself
	}{
		{"../" + filepath.Base(outside) + "/secret.md", false},
		{"../../../../../../../../etc/passwd", false},
		{"docs/../../x.md", false},
		{secret, true},
		{"/etc/passwd", false},
		{"docs/link.md", false},
		{"ext/secret.md", false},
	} {
		e := f.k.FailEnvelope("vault_update", map[string]any{"path": c.path}, baton.ErrInvalidInput)
		text := e.Message + " " + e.Hint
		for k, v := range e.Details {
			text += " " + k + "=" + toString(v)
		}
		if strings.Contains(text, f.root) || (!c.echoes && strings.Contains(text, outside)) {
			t.Errorf("vault_update(%q) names a server path: %+v", c.path, e)
		}
		if e.Hint == "" {
			t.Errorf("vault_update(%q): no hint", c.path)
		}
	}
	// Missing files are not found; a directory is not a file.
	e := f.k.FailEnvelope("vault_update", map[string]any{"path": "docs/missing.md"}, baton.ErrNotFound)
	if e.Hint == "" || strings.Contains(e.Message, f.root) {
		t.Errorf("missing file: %+v", e)
	}
	f.k.Fail("vault_update", map[string]any{"path": "docs"}, baton.ErrInvalidInput)
	f.k.Fail("vault_update", map[string]any{"path": "."}, baton.ErrInvalidInput)
	// Schema limits.
	f.k.Fail("vault_update", map[string]any{"path": ""}, baton.ErrInvalidInput)
	f.k.Fail("vault_update", map[string]any{"path": strings.Repeat("a", 1025)}, baton.ErrInvalidInput)
	f.k.Fail("vault_update", map[string]any{}, baton.ErrInvalidInput)
	if n := f.documents(); n != before {
		t.Fatalf("refused calls wrote %d versions", n-before)
	}
	if f.k.Count(`SELECT COUNT(*) FROM events WHERE type = 'document.written'`) != 0 {
		t.Fatal("a refused call published an event")
	}
	// The file inside still goes in.
	f.k.OK("vault_update", map[string]any{"path": "docs/ok.md"})
}

// TestUpdateNeedsAProjectDirectory: a project without a directory, or a
// session that cannot tell its project, is told what to do.
func TestUpdateNeedsAProjectDirectory(t *testing.T) {
	f := setup(t)
	col := *f.k
	col.Principal.Project = "colibri" // testkit's project has no directory
	e := col.FailEnvelope("vault_update", map[string]any{"path": "docs/x.md"}, baton.ErrInvalidInput)
	if !strings.Contains(e.Message, "no directory") || e.Hint == "" {
		t.Fatalf("project without a directory: %+v", e)
	}
	none := *f.k
	none.Principal.Project = "" // two projects, none named
	e = none.FailEnvelope("vault_update", map[string]any{"path": "docs/x.md"}, baton.ErrInvalidInput)
	if !strings.Contains(e.Hint, "--project") {
		t.Fatalf("session without a project: %+v", e)
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
