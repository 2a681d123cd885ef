package membot_test

import (
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestVersionsHistory: every version newest first, the deletion included
// and flagged; a path written again after its deletion keeps its whole
// history; an unknown path is an empty list, not an error.
func TestVersionsHistory(t *testing.T) {
	k := testkit.New(t)
	v1 := put(k, "h.md", "one")
	v2 := put(k, "h.md", "two!")
	tomb := remove(k, projectSpace, "h.md")

	d := data(k, "membot_versions", map[string]any{"logical_path": "/h.md"})
	eq(t, "path", d["logical_path"], "h.md")
	eq(t, "versions", strs(d["versions"], "version_id"), []string{tomb, v2, v1})
	vs := d["versions"].([]any)
	t0, t1 := vs[0].(map[string]any), vs[1].(map[string]any)
	eq(t, "tombstone", t0["tombstone"], true)
	eq(t, "tombstone note", t0["change_note"], "deleted")
	eq(t, "v2 tombstone", t1["tombstone"], false)
	eq(t, "v2 size", t1["size_bytes"], 4.0)
	eq(t, "v2 sha", t1["content_sha256"], sum("two!"))
	eq(t, "v2 source sha", t1["source_sha256"], sum("two!"))
	if _, ok := t1["created_at"].(string); !ok {
		t.Errorf("no created_at: %v", t1)
	}

	v4 := put(k, "h.md", "back")
	eq(t, "after rewrite", strs(data(k, "membot_versions", map[string]any{"logical_path": "h.md"})["versions"], "version_id"),
		[]string{v4, tomb, v2, v1})

	d = data(k, "membot_versions", map[string]any{"logical_path": "never.md"})
	eq(t, "unknown path", d["logical_path"], "never.md")
	if vs, ok := d["versions"].([]any); !ok || len(vs) != 0 {
		t.Errorf("unknown path versions = %#v, want []", d["versions"])
	}
	failWith(k, "membot_versions", map[string]any{"logical_path": "a//b"}, baton.ErrInvalidInput, "input_error")
}

// TestVersionsProjectOverGlobal: the history shown is that of the space
// reads use: the project's when it holds the path, else the global one's.
func TestVersionsProjectOverGlobal(t *testing.T) {
	k := testkit.New(t)
	g := putGlobal(k, "p.md", "global")
	eq(t, "global", strs(data(k, "membot_versions", map[string]any{"logical_path": "p.md"})["versions"], "version_id"), []string{g})
	p := put(k, "p.md", "project")
	eq(t, "project", strs(data(k, "membot_versions", map[string]any{"logical_path": "p.md"})["versions"], "version_id"), []string{p})

	// A global path deleted since, which the project never held: its
	// global history.
	g2 := putGlobal(k, "old.md", "global")
	tomb := remove(k, globalSpace, "old.md")
	eq(t, "deleted global", strs(data(k, "membot_versions", map[string]any{"logical_path": "old.md"})["versions"], "version_id"), []string{tomb, g2})
}
