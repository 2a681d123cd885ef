package membot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

func TestMoveCarriesTheVersionAndTombstonesTheSource(t *testing.T) {
	k := wKit(t)
	wWrite(k, "drafts/plan.md", "# Plan\n\nShip the knowledge tools.")
	k.OK("membot_write", map[string]any{"logical_path": "drafts/plan.md", "content": "# Plan\n\nShip them all.",
		"on_conflict": "overwrite", "refresh_frequency": "1d", "change_note": "second"})
	src := wDoc(k, "drafts/plan.md")
	srcChunks := k.Count("SELECT COUNT(*) FROM document_chunks")

	d := wData(t, k.OK("membot_move", map[string]any{"from_logical_path": "/drafts/plan.md", "to_logical_path": "final\\plan.md"}))
	if d["from_logical_path"] != "drafts/plan.md" || d["to_logical_path"] != "final/plan.md" {
		t.Fatalf("paths not normalised: %v", d)
	}
	dst := wDoc(k, "final/plan.md")
	if dst == nil || dst.Version != d["new_version_id"] || dst.Content != src.Content ||
		dst.RefreshFrequencySec != 86400 || dst.ChangeNote != "move from drafts/plan.md" {
		t.Fatalf("destination %+v", dst)
	}
	if wDoc(k, "drafts/plan.md") != nil {
		t.Fatal("the source still has a current version")
	}
	vs := wVersions(k, "drafts/plan.md")
	if len(vs) != 3 || !vs[0].Deleted || vs[0].ChangeNote != "moved to final/plan.md" {
		t.Fatalf("source history %+v", vs)
	}
	// The destination's chunks are the source's, copied (its older
	// versions keep theirs).
	if n := k.Count("SELECT COUNT(*) FROM document_chunks"); n <= srcChunks {
		t.Fatalf("chunks %d -> %d: the destination got none", srcChunks, n)
	}
}

func TestMoveErrors(t *testing.T) {
	k := wKit(t)
	wWrite(k, "a.md", "a")
	wWrite(k, "b.md", "b")
	wWrite(k, "gone.md", "x")
	k.OK("membot_remove", map[string]any{"paths": []string{"gone.md"}})
	before := wRows(k)

	wFail(k, "membot_move", map[string]any{"from_logical_path": "missing.md", "to_logical_path": "c.md"}, baton.ErrNotFound, "not_found")
	wFail(k, "membot_move", map[string]any{"from_logical_path": "gone.md", "to_logical_path": "c.md"}, baton.ErrNotFound, "not_found")
	e := wFail(k, "membot_move", map[string]any{"from_logical_path": "a.md", "to_logical_path": "b.md"}, baton.ErrConflict, "conflict")
	if !strings.Contains(e.Hint, "another destination") {
		t.Fatalf("conflict hint %q", e.Hint)
	}
	wFail(k, "membot_move", map[string]any{"from_logical_path": "a.md", "to_logical_path": "a.md"}, baton.ErrConflict, "conflict")
	wFail(k, "membot_move", map[string]any{"from_logical_path": "a.md", "to_logical_path": "x/../y.md"}, baton.ErrInvalidInput, "input_error")
	wUnchanged(k, before)
}

// The global knowledge is not a project session's to move: not from it,
// and not over it.
func TestMoveStaysInTheSessionsSpace(t *testing.T) {
	k := wKit(t)
	global := baton.DocSpace{Scope: baton.ScopeGlobal}
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.PutDocument(ctx, &baton.Document{DocKey: baton.DocKey{DocSpace: global, Path: "g.md"}, Content: "global",
			ContentType: "text/markdown", UpdatedBy: "user"})
	}); err != nil {
		t.Fatal(err)
	}
	wWrite(k, "p.md", "project")
	before := wRows(k)
	e := wFail(k, "membot_move", map[string]any{"from_logical_path": "g.md", "to_logical_path": "h.md"}, baton.ErrNotFound, "not_found")
	if !strings.Contains(e.Hint, "membot_copy") {
		t.Fatalf("hint %q should suggest membot_copy", e.Hint)
	}
	wFail(k, "membot_move", map[string]any{"from_logical_path": "p.md", "to_logical_path": "g.md"}, baton.ErrConflict, "conflict")
	wUnchanged(k, before)
}
