package reservations

import (
	"testing"

	"github.com/baton-dev/baton/pathglob"
)

// TestOverlapAgreesWithPathglob: the literal-prefix shortcut decides
// every pair as pathglob.Overlap does.
func TestOverlapAgreesWithPathglob(t *testing.T) {
	globs := []string{"src", "src/**", "src/a.go", "src/*.go", "src/a/**", "src/b/**", "src/a/b.go", "**", "**/*.go",
		"docs/*.md", "docs/**", "*/a.go", "s*/**", "src/[ab]/x", `src/\*/x`, "src/*/x", "a/b/c/d", "a/b/**/d", "a/*/c/**",
		"a", "b", "**/a", "src.go", "src/?", "src/a"}
	for _, a := range globs {
		a = pathglob.Clean(a)
		for _, b := range globs {
			b = pathglob.Clean(b)
			if got, want := overlap(a, b), pathglob.Overlap(a, b); got != want {
				t.Errorf("overlap(%q, %q) = %v, pathglob says %v", a, b, got, want)
			}
		}
	}
}
