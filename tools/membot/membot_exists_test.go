package membot_test

import (
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestExists: true for a current path (its own or a global one), false
// for a missing or deleted one, never an error for absence; the answer
// is flat ({is_error, exists, logical_path}); a malformed path is an
// input_error with a hint.
func TestExists(t *testing.T) {
	k := testkit.New(t)
	put(k, "here.md", "x")
	put(k, "gone.md", "x")
	remove(k, projectSpace, "gone.md")
	putGlobal(k, "global.md", "x")

	for _, tc := range []struct {
		path, normal string
		exists       bool
	}{
		{"here.md", "here.md", true}, {"/here.md", "here.md", true}, {"global.md", "global.md", true},
		{"gone.md", "gone.md", false}, {"never.md", "never.md", false},
	} {
		out := k.OK("membot_exists", map[string]any{"logical_path": tc.path})
		eq(t, tc.path, out, map[string]any{"is_error": false, "exists": tc.exists, "logical_path": tc.normal})
	}
	failWith(k, "membot_exists", map[string]any{"logical_path": "a/../b"}, baton.ErrInvalidInput, "input_error")
	failWith(k, "membot_exists", map[string]any{}, baton.ErrInvalidInput, "invalid_input")

	// A tombstone in the global space, with no project copy: absent.
	remove(k, globalSpace, "global.md")
	eq(t, "global deleted", k.OK("membot_exists", map[string]any{"logical_path": "global.md"})["exists"], false)
}
