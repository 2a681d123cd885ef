package knowledge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
)

func code(err error) string {
	if e, ok := err.(*baton.Error); ok {
		return e.Code
	}
	return ""
}

// TestReadProjectFile: a file inside the project is read; a path that
// leaves it, by "..", an absolute path or a link, is refused the same way
// whether or not the file outside exists, and no message names the
// server's directories.
func TestReadProjectFile(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "project")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "docs", "a.md"), "# A\n")
	write(filepath.Join(base, "secret.md"), "secret")
	if err := os.Symlink(filepath.Join(base, "secret.md"), filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	f, err := knowledge.ReadProjectFile(root, "docs/a.md")
	if err != nil || f.Rel != "docs/a.md" || f.Content != "# A\n" || f.MIME != "text/markdown" {
		t.Fatalf("read = %+v, %v", f, err)
	}
	if f, err := knowledge.ReadProjectFile(root, filepath.Join(root, "docs", "a.md")); err != nil || f.Rel != "docs/a.md" {
		t.Errorf("absolute path inside = %+v, %v", f, err)
	}
	// A link to the whole file system must not tell which files exist there.
	if err := os.Symlink("/", filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"../secret.md", "../missing.md", filepath.Join(base, "secret.md"), filepath.Join(base, "missing.md"),
		"link.md", "out/etc/passwd", "out/no/such/file"} {
		_, err := knowledge.ReadProjectFile(root, rel)
		if code(err) != baton.ErrInvalidInput {
			t.Errorf("%s: %v, want ERR_INVALID_INPUT", rel, err)
		}
		// An absolute path is echoed as the caller gave it; nothing else
		// may name the server's directories.
		if err != nil && !filepath.IsAbs(rel) && strings.Contains(err.Error()+err.(*baton.Error).Hint, base) {
			t.Errorf("%s: the error names a server path: %v", rel, err)
		}
	}
	write(filepath.Join(root, ".baton", "memory", "worker.md"), "private")
	for _, rel := range []string{".baton/memory/worker.md", "docs/../.baton/memory/worker.md", ".git/config"} {
		if _, err := knowledge.ReadProjectFile(root, rel); code(err) != baton.ErrInvalidInput {
			t.Errorf("%s: %v, want ERR_INVALID_INPUT", rel, err)
		}
	}
	if _, err := knowledge.ReadProjectFile(root, "docs/none.md"); code(err) != baton.ErrNotFound {
		t.Errorf("missing file inside: %v, want ERR_NOT_FOUND", err)
	}
	write(filepath.Join(root, "bin.dat"), "a\x00b")
	if _, err := knowledge.ReadProjectFile(root, "bin.dat"); code(err) != baton.ErrInvalidInput {
		t.Errorf("binary file: %v", err)
	}
	if _, err := knowledge.ReadProjectFile(root, "docs"); code(err) != baton.ErrInvalidInput {
		t.Errorf("directory: %v", err)
	}
}
