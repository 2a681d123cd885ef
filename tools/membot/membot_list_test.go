package membot_test

import (
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestListCurrentDocumentsByPath: membot_list answers the envelope with
// one entry per current path, by path, with its metadata; a deleted path
// is gone, a path written again shows its newest version.
func TestListCurrentDocumentsByPath(t *testing.T) {
	k := testkit.New(t)
	put(k, "notes/b.md", "# B\n\nsecond")
	put(k, "notes/a.md", "first draft")
	va := put(k, "notes/a.md", "# Alpha\n\nfinal text")
	put(k, "gone.md", "soon deleted")
	remove(k, projectSpace, "gone.md")

	d := data(k, "membot_list", nil)
	eq(t, "paths", strs(d["entries"], "logical_path"), []string{"notes/a.md", "notes/b.md"})
	eq(t, "count", d["count"], 2.0)
	a := d["entries"].([]any)[0].(map[string]any)
	eq(t, "version_id", a["version_id"], va)
	eq(t, "size_bytes", a["size_bytes"], float64(len("# Alpha\n\nfinal text")))
	eq(t, "mime_type", a["mime_type"], "text/markdown")
	if desc, _ := a["description"].(string); desc == "" {
		t.Errorf("entry has no description: %v", a)
	}
	for _, absent := range []string{"refresh_frequency_sec", "refreshed_at", "last_refresh_status"} {
		if _, ok := a[absent]; ok {
			t.Errorf("%s is set on a document never refreshed: %v", absent, a)
		}
	}
}

// TestListPrefixAndPaging: the prefix is a raw string prefix (poems also
// matches poems-archive/), normalised (leading / and \ as /); limit and
// offset page through the listing.
func TestListPrefixAndPaging(t *testing.T) {
	k := testkit.New(t)
	for _, p := range []string{"poems/a.md", "poems/b.md", "poems-archive/old.md", "prose/c.md"} {
		put(k, p, "text of "+p)
	}
	eq(t, "poems", strs(data(k, "membot_list", map[string]any{"prefix": "poems"})["entries"], "logical_path"),
		[]string{"poems-archive/old.md", "poems/a.md", "poems/b.md"})
	eq(t, "poems/", strs(data(k, "membot_list", map[string]any{"prefix": `\poems/`})["entries"], "logical_path"),
		[]string{"poems/a.md", "poems/b.md"})
	eq(t, "none", strs(data(k, "membot_list", map[string]any{"prefix": "zzz"})["entries"], "logical_path"), []string(nil))

	p1 := data(k, "membot_list", map[string]any{"limit": 2})
	p2 := data(k, "membot_list", map[string]any{"limit": 2, "offset": 2})
	p3 := data(k, "membot_list", map[string]any{"limit": 2, "offset": 4})
	eq(t, "page 1", strs(p1["entries"], "logical_path"), []string{"poems-archive/old.md", "poems/a.md"})
	eq(t, "page 2", strs(p2["entries"], "logical_path"), []string{"poems/b.md", "prose/c.md"})
	eq(t, "page 3 count", p3["count"], 0.0)
	if e, ok := p3["entries"].([]any); !ok || len(e) != 0 {
		t.Errorf("past the end entries = %v, want []", p3["entries"])
	}
}

// TestListProjectOverGlobal: the session sees its project's documents and
// the global ones; a path both hold is listed once, as the project's.
func TestListProjectOverGlobal(t *testing.T) {
	k := testkit.New(t)
	putGlobal(k, "shared/style.md", "global style guide")
	vg := putGlobal(k, "shared/only-global.md", "only here")
	vp := put(k, "shared/style.md", "project style guide, longer than the global one")

	d := data(k, "membot_list", map[string]any{"prefix": "shared/"})
	eq(t, "paths", strs(d["entries"], "logical_path"), []string{"shared/only-global.md", "shared/style.md"})
	eq(t, "versions", strs(d["entries"], "version_id"), []string{vg, vp})

	// Once the project's copy is deleted, the global one shows through.
	remove(k, projectSpace, "shared/style.md")
	d = data(k, "membot_list", map[string]any{"prefix": "shared/style"})
	eq(t, "size after delete", d["entries"].([]any)[0].(map[string]any)["size_bytes"], float64(len("global style guide")))
}

// TestListLimits: limit is 1..1000 (default 1000), offset >= 0; a bad
// value is refused before the tool runs, as invalid_input with a hint.
func TestListLimits(t *testing.T) {
	k := testkit.New(t)
	for _, args := range []map[string]any{{"limit": 0}, {"limit": 1001}, {"offset": -1}, {"prefix": strings.Repeat("a", baton.MaxDocumentPath+1)}} {
		failWith(k, "membot_list", args, baton.ErrInvalidInput, "invalid_input")
	}
	spec := specOf(t, "membot_list")
	if d := spec.InputSchema().Properties["limit"].Default; string(d) != "1000" {
		t.Errorf("limit default = %s", d)
	}
}
