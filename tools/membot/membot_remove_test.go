package membot_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// wTree is the documents the glob tests remove from.
var wTree = []string{"notes/a.md", "notes/b.md", "notes/ab.txt", "notes/.hidden.md", "notes/sub/c.md", "notes/sub/deep/d.md",
	"notesX/e.md", "top.md", ".env"}

func wPlant(k *testkit.Kit) {
	k.T.Helper()
	for _, p := range wTree {
		wWrite(k, p, "content of "+p)
	}
}

// wRemoved is the paths an output reports as removed (ok), in order.
func wRemoved(t *testing.T, d map[string]any) []string {
	t.Helper()
	var out []string
	for _, e := range d["removed"].([]any) {
		m := e.(map[string]any)
		if m["status"] != "ok" {
			t.Fatalf("entry %v", m)
		}
		out = append(out, m["logical_path"].(string))
	}
	return out
}

// wCurrent is the paths of wTree still current.
func wCurrent(k *testkit.Kit) []string {
	var out []string
	for _, p := range wTree {
		if wDoc(k, p) != nil {
			out = append(out, p)
		}
	}
	return out
}

func TestRemoveGlobRules(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		recursive bool
		want      []string
	}{
		{[]string{"notes/a.md"}, false, []string{"notes/a.md"}},
		{[]string{"/notes\\a.md"}, false, []string{"notes/a.md"}},
		// * stays within a segment, and dot-files match it.
		{[]string{"notes/*"}, false, []string{"notes/.hidden.md", "notes/a.md", "notes/ab.txt", "notes/b.md"}},
		{[]string{"notes/*.md"}, false, []string{"notes/.hidden.md", "notes/a.md", "notes/b.md"}},
		// ** crosses segments; dir/** is the subtree, not its siblings.
		{[]string{"notes/**"}, false, []string{"notes/.hidden.md", "notes/a.md", "notes/ab.txt", "notes/b.md", "notes/sub/c.md", "notes/sub/deep/d.md"}},
		{[]string{"**/*.md"}, false, []string{"notes/.hidden.md", "notes/a.md", "notes/b.md", "notes/sub/c.md", "notes/sub/deep/d.md", "notesX/e.md", "top.md"}},
		{[]string{"notes/**/d.md"}, false, []string{"notes/sub/deep/d.md"}},
		{[]string{"**/c.md"}, false, []string{"notes/sub/c.md"}},
		{[]string{"notes/?.md"}, false, []string{"notes/a.md", "notes/b.md"}},
		{[]string{"notes/[ab].md"}, false, []string{"notes/a.md", "notes/b.md"}},
		{[]string{"notes/[!a].md"}, false, []string{"notes/b.md"}},
		{[]string{"*.md"}, false, []string{"top.md"}},
		{[]string{".*"}, false, []string{".env"}},
		// Matches are deduplicated.
		{[]string{"notes/a.md", "notes/?.md", "notes/a.md"}, false, []string{"notes/a.md", "notes/b.md"}},
		// recursive (older membot): a literal prefix means prefix/**.
		{[]string{"notes/sub"}, true, []string{"notes/sub/c.md", "notes/sub/deep/d.md"}},
		{[]string{"notes/sub/"}, true, []string{"notes/sub/c.md", "notes/sub/deep/d.md"}},
		{[]string{"top.md"}, true, []string{"top.md"}},
	} {
		t.Run(strings.Join(tc.args, ","), func(t *testing.T) {
			k := wKit(t)
			wPlant(k)
			d := wData(t, k.OK("membot_remove", map[string]any{"paths": tc.args, "recursive": tc.recursive}))
			got := wRemoved(t, d)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("removed %v, want %v", got, tc.want)
			}
			if d["total"] != float64(len(tc.want)) || d["ok"] != float64(len(tc.want)) || d["failed"] != float64(0) {
				t.Fatalf("counts %v", d)
			}
			for _, p := range tc.want {
				if wDoc(k, p) != nil {
					t.Fatalf("%s is still current", p)
				}
			}
			if n := len(wCurrent(k)); n != len(wTree)-len(tc.want) {
				t.Fatalf("%d paths current, want %d", n, len(wTree)-len(tc.want))
			}
		})
	}
}

func TestRemoveTombstones(t *testing.T) {
	k := wKit(t)
	wWrite(k, "a.md", "one")
	wWrite(k, "b.md", "two")
	d := wData(t, k.OK("membot_remove", map[string]any{"paths": []string{"a.md"}}))
	e := d["removed"].([]any)[0].(map[string]any)
	vs := wVersions(k, "a.md")
	if len(vs) != 2 || !vs[0].Deleted || vs[0].ChangeNote != "deleted" || vs[0].Version != e["version_id"] {
		t.Fatalf("history %+v, entry %v", vs, e)
	}
	k.OK("membot_remove", map[string]any{"paths": []string{"b.md"}, "change_note": "obsolete"})
	if vs := wVersions(k, "b.md"); vs[0].ChangeNote != "obsolete" || !vs[0].Deleted {
		t.Fatalf("history %+v", vs[0])
	}
	// A removed path is not current: removing it again matches nothing.
	wFail(k, "membot_remove", map[string]any{"paths": []string{"a.md"}}, baton.ErrNotFound, "not_found")
}

// One argument that matches nothing fails the whole call before anything
// is tombstoned.
func TestRemoveAllOrNothing(t *testing.T) {
	k := wKit(t)
	wPlant(k)
	before := wRows(k)
	e := wFail(k, "membot_remove", map[string]any{"paths": []string{"notes/a.md", "notes/zzz*"}}, baton.ErrNotFound, "not_found")
	if !strings.Contains(e.Message, "notes/zzz*") {
		t.Fatalf("message %q should name the argument", e.Message)
	}
	// A directory prefix without a glob: the hint says dir/**.
	e = wFail(k, "membot_remove", map[string]any{"paths": []string{"top.md", "notes/sub"}}, baton.ErrNotFound, "not_found")
	if !strings.Contains(e.Hint, "notes/sub/**") {
		t.Fatalf("hint %q should suggest notes/sub/**", e.Hint)
	}
	wFail(k, "membot_remove", map[string]any{"paths": []string{"nothing.md"}}, baton.ErrNotFound, "not_found")
	// A bad glob, an empty path.
	wFail(k, "membot_remove", map[string]any{"paths": []string{"notes/[+-0].md"}}, baton.ErrInvalidInput, "input_error")
	wFail(k, "membot_remove", map[string]any{"paths": []string{"/"}}, baton.ErrInvalidInput, "input_error")
	wFail(k, "membot_remove", map[string]any{"paths": []string{}}, baton.ErrInvalidInput, "invalid_input")
	wUnchanged(k, before)
	if n := len(wCurrent(k)); n != len(wTree) {
		t.Fatalf("%d paths current after failed calls, want %d", n, len(wTree))
	}
}

func TestRemoveMatchAllNeedsForce(t *testing.T) {
	for _, arg := range []string{"*", "**", "/**", "**/*"} {
		t.Run(arg, func(t *testing.T) {
			k := wKit(t)
			wPlant(k)
			before := wRows(k)
			e := wFail(k, "membot_remove", map[string]any{"paths": []string{arg}}, baton.ErrInvalidInput, "input_error")
			if e.Details["would_remove"] == nil || !strings.Contains(e.Message, "would remove") || !strings.Contains(e.Hint, "force") {
				t.Fatalf("error %v should state how many paths and mention force", e)
			}
			wUnchanged(k, before)
			d := wData(t, k.OK("membot_remove", map[string]any{"paths": []string{arg}, "force": true}))
			if d["total"] != float64(e.Details["would_remove"].(int)) || d["ok"] != d["total"] {
				t.Fatalf("forced removal %v, refused count %v", d, e.Details["would_remove"])
			}
		})
	}
	k := wKit(t)
	wPlant(k)
	e := wFail(k, "membot_remove", map[string]any{"paths": []string{"**"}}, baton.ErrInvalidInput, "input_error")
	if e.Details["would_remove"] != len(wTree) {
		t.Fatalf("** would remove %v, want %d", e.Details["would_remove"], len(wTree))
	}
}

// A project session removes only its own documents; the global ones it
// reads are named in the hint.
func TestRemoveLeavesTheGlobalKnowledge(t *testing.T) {
	k := wKit(t)
	global := baton.DocSpace{Scope: baton.ScopeGlobal}
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.PutDocument(ctx, &baton.Document{DocKey: baton.DocKey{DocSpace: global, Path: "g.md"}, Content: "global",
			ContentType: "text/markdown", UpdatedBy: "user"})
	}); err != nil {
		t.Fatal(err)
	}
	e := wFail(k, "membot_remove", map[string]any{"paths": []string{"g.md"}}, baton.ErrNotFound, "not_found")
	if !strings.Contains(e.Hint, "global") {
		t.Fatalf("hint %q", e.Hint)
	}
	if wDocIn(k, global, "g.md") == nil {
		t.Fatal("the global document was removed")
	}
}

// membot_delete, the old name, does what membot_remove does.
func TestDeleteIsRemovesAlias(t *testing.T) {
	k := wKit(t)
	wPlant(k)
	d := wData(t, k.OK("membot_delete", map[string]any{"paths": []string{"notes/*.md"}}))
	if got := wRemoved(t, d); !slices.Equal(got, []string{"notes/.hidden.md", "notes/a.md", "notes/b.md"}) {
		t.Fatalf("removed %v", got)
	}
	if vs := wVersions(k, "notes/a.md"); !vs[0].Deleted || vs[0].ChangeNote != "deleted" {
		t.Fatalf("history %+v", vs[0])
	}
	before := wRows(k)
	wFail(k, "membot_delete", map[string]any{"paths": []string{"**"}}, baton.ErrInvalidInput, "input_error")
	wFail(k, "membot_delete", map[string]any{"paths": []string{"top.md", "none.md"}}, baton.ErrNotFound, "not_found")
	wUnchanged(k, before)
	s := specOf(t, "membot_delete")
	if !strings.HasPrefix(s.Description, "Deprecated alias of membot_remove") {
		t.Fatalf("description %q", s.Description)
	}
	r := specOf(t, "membot_remove")
	if string(wJSON(t, s.InputSchema())) != string(wJSON(t, r.InputSchema())) {
		t.Fatal("membot_delete takes other arguments than membot_remove")
	}
}
