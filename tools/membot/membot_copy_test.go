package membot_test

import (
	"context"
	"testing"

	"github.com/baton-dev/baton"
)

func TestCopyWritesANewVersionAtTheDestination(t *testing.T) {
	k := wKit(t)
	src := wWrite(k, "notes/a.md", "# A\n\nthe source")
	out := k.OK("membot_copy", map[string]any{"from_logical_path": "/notes/a.md", "to_logical_path": "\\backup/a.md"})
	if out["is_error"] != false || out["data"] != nil || out["from_logical_path"] != "/notes/a.md" || out["to_logical_path"] != "backup/a.md" {
		t.Fatalf("output %v: from as given, to normalised, flat", out)
	}
	d := wDoc(k, "backup/a.md")
	if d == nil || d.Content != "# A\n\nthe source" || d.Version != out["new_version_id"] || d.ChangeNote != "copied from notes/a.md" ||
		d.SourceType != baton.SourceInline {
		t.Fatalf("copy %+v", d)
	}
	if vs := wVersions(k, "notes/a.md"); len(vs) != 1 || vs[0].Version != src {
		t.Fatalf("the source changed: %+v", vs)
	}
	// An existing destination simply gets a new version.
	wWrite(k, "notes/a.md", "newer")
	k.OK("membot_copy", map[string]any{"from_logical_path": "notes/a.md", "to_logical_path": "backup/a.md", "change_note": "sync"})
	if d := wDoc(k, "backup/a.md"); d.Content != "newer" || d.ChangeNote != "sync" || len(wVersions(k, "backup/a.md")) != 2 {
		t.Fatalf("second copy %+v", d)
	}
}

func TestCopyRefusals(t *testing.T) {
	k := wKit(t)
	wWrite(k, "gone.md", "x")
	k.OK("membot_remove", map[string]any{"paths": []string{"gone.md"}})
	before := wRows(k)
	wFail(k, "membot_copy", map[string]any{"from_logical_path": "missing.md", "to_logical_path": "b.md"}, baton.ErrNotFound, "not_found")
	wFail(k, "membot_copy", map[string]any{"from_logical_path": "gone.md", "to_logical_path": "b.md"}, baton.ErrNotFound, "not_found")
	wFail(k, "membot_copy", map[string]any{"from_logical_path": "gone.md", "to_logical_path": "a/../b.md"}, baton.ErrInvalidInput, "input_error")
	wFail(k, "membot_copy", map[string]any{"from_logical_path": "", "to_logical_path": "b.md"}, baton.ErrInvalidInput, "invalid_input")
	wUnchanged(k, before)
}

// A global document copied from a project session lands in the project.
func TestCopyFromTheGlobalKnowledge(t *testing.T) {
	k := wKit(t)
	global := baton.DocSpace{Scope: baton.ScopeGlobal}
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.PutDocument(ctx, &baton.Document{DocKey: baton.DocKey{DocSpace: global, Path: "g.md"}, Content: "global",
			ContentType: "text/markdown", UpdatedBy: "user"})
	}); err != nil {
		t.Fatal(err)
	}
	k.OK("membot_copy", map[string]any{"from_logical_path": "g.md", "to_logical_path": "mine.md"})
	if d := wDoc(k, "mine.md"); d == nil || d.Content != "global" {
		t.Fatalf("copy %+v", d)
	}
	if d := wDocIn(k, global, "mine.md"); d != nil {
		t.Fatal("the copy landed in the global knowledge")
	}
}
