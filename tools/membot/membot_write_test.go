package membot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tools/membot"
)

func TestWriteStoresAnInlineVersion(t *testing.T) {
	k := wKit(t)
	out := k.OK("membot_write", map[string]any{"logical_path": "/notes\\meeting.md", "content": "# Meeting\n\nhéllo",
		"change_note": "first draft"})
	d := wData(t, out)
	if d["logical_path"] != "notes/meeting.md" {
		t.Fatalf("logical_path = %v, want the normalised notes/meeting.md", d["logical_path"])
	}
	if d["size_bytes"] != float64(len("# Meeting\n\nhéllo")) {
		t.Fatalf("size_bytes = %v, want the UTF-8 length %d", d["size_bytes"], len("# Meeting\n\nhéllo"))
	}
	v := d["version_id"].(string)
	if _, err := time.Parse(baton.VersionLayout, v); err != nil {
		t.Fatalf("version_id %q is not a millisecond ISO-8601 instant: %v", v, err)
	}
	doc := wDoc(k, "notes/meeting.md")
	if doc == nil || doc.Version != v || doc.Content != "# Meeting\n\nhéllo" {
		t.Fatalf("stored %+v", doc)
	}
	if doc.SourceType != baton.SourceInline || doc.ContentType != "text/markdown" || doc.LastRefreshStatus != "ok" ||
		doc.ChangeNote != "first draft" || doc.SourceSHA256 != doc.SHA256 || doc.UpdatedBy != "agent-alice" {
		t.Fatalf("version fields: %+v", doc)
	}
	if doc.Description == "" {
		t.Fatal("no description was made for the version")
	}
	// Chunked and embedded in the same call.
	if n := k.Count("SELECT COUNT(*) FROM document_chunks"); n == 0 {
		t.Fatal("no chunks were stored")
	}
	if n := k.Count("SELECT COUNT(*) FROM chunk_vectors"); n == 0 {
		t.Fatal("no vectors were stored")
	}
}

func TestWriteConflict(t *testing.T) {
	k := wKit(t)
	first := wData(t, k.OK("membot_write", map[string]any{"logical_path": "a.md", "content": "one"}))["version_id"].(string)
	before := wRows(k)
	e := wFail(k, "membot_write", map[string]any{"logical_path": "a.md", "content": "two"}, baton.ErrConflict, "path_conflict")
	if !strings.Contains(e.Hint, "membot_read") || !strings.Contains(e.Hint, `on_conflict: "overwrite"`) {
		t.Fatalf("hint %q should point to membot_read and on_conflict: \"overwrite\"", e.Hint)
	}
	if e.Details["version_id"] != first {
		t.Fatalf("details %v should name the current version %s", e.Details, first)
	}
	wUnchanged(k, before)
	// on_conflict error is the default, and explicit error is the same.
	wFail(k, "membot_write", map[string]any{"logical_path": "a.md", "content": "two", "on_conflict": "error"}, baton.ErrConflict, "path_conflict")

	second := wData(t, k.OK("membot_write", map[string]any{"logical_path": "a.md", "content": "two", "on_conflict": "overwrite"}))["version_id"].(string)
	if second <= first {
		t.Fatalf("versions must increase: %s then %s", first, second)
	}
	vs := wVersions(k, "a.md")
	if len(vs) != 2 || vs[0].Version != second || vs[1].Version != first {
		t.Fatalf("versions %v", vs)
	}
	// Identical content still appends a version.
	wWrite(k, "a.md", "two")
	if n := len(wVersions(k, "a.md")); n != 3 {
		t.Fatalf("%d versions, want 3", n)
	}
}

func TestWriteAfterRemoveIsNoConflict(t *testing.T) {
	k := wKit(t)
	wWrite(k, "a.md", "one")
	k.OK("membot_remove", map[string]any{"paths": []string{"a.md"}})
	d := wData(t, k.OK("membot_write", map[string]any{"logical_path": "a.md", "content": "again"}))
	if got := wDoc(k, "a.md"); got == nil || got.Content != "again" || got.Version != d["version_id"] {
		t.Fatalf("after a tombstone the write is current: %+v", got)
	}
}

// A project session sees the global knowledge under its own: writing over
// a global document is a conflict too (the write would hide it), and the
// overwrite lands in the project, leaving the global one as it was.
func TestWriteConflictWithGlobalDocument(t *testing.T) {
	k := wKit(t)
	global := baton.DocSpace{Scope: baton.ScopeGlobal}
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.PutDocument(ctx, &baton.Document{DocKey: baton.DocKey{DocSpace: global, Path: "shared.md"}, Content: "global",
			ContentType: "text/markdown", UpdatedBy: "user"})
	}); err != nil {
		t.Fatal(err)
	}
	e := wFail(k, "membot_write", map[string]any{"logical_path": "shared.md", "content": "mine"}, baton.ErrConflict, "path_conflict")
	if !strings.Contains(e.Message, "global") {
		t.Fatalf("message %q should say the document is global", e.Message)
	}
	wWrite(k, "shared.md", "mine")
	if d := wDoc(k, "shared.md"); d == nil || d.Content != "mine" {
		t.Fatalf("project copy: %+v", d)
	}
	if d := wDocIn(k, global, "shared.md"); d == nil || d.Content != "global" {
		t.Fatalf("the global document changed: %+v", d)
	}
}

func TestWriteRefusesBadInput(t *testing.T) {
	k := wKit(t)
	before := wRows(k)
	for _, p := range []string{"a/../b.md", "a//b.md", "/", "x\x01y"} {
		wFail(k, "membot_write", map[string]any{"logical_path": p, "content": "x"}, baton.ErrInvalidInput, "input_error")
	}
	e := wFail(k, "membot_write", map[string]any{"logical_path": "a.md", "content": "x", "refresh_frequency": "weekly"},
		baton.ErrInvalidInput, "input_error")
	if e.Details["field"] != "refresh_frequency" {
		t.Fatalf("details %v", e.Details)
	}
	// Schema limits never reach the tool: invalid_input, field by field.
	wFail(k, "membot_write", map[string]any{"logical_path": "a.md", "content": strings.Repeat("x", membot.MaxWriteContent+1)},
		baton.ErrInvalidInput, "invalid_input")
	wFail(k, "membot_write", map[string]any{"logical_path": strings.Repeat("p", baton.MaxDocumentPath+1), "content": "x"},
		baton.ErrInvalidInput, "invalid_input")
	wFail(k, "membot_write", map[string]any{"logical_path": "a.md", "content": "x", "on_conflict": "replace"},
		baton.ErrInvalidInput, "invalid_input")
	wUnchanged(k, before)
}

func TestWriteRefreshFrequency(t *testing.T) {
	k := wKit(t)
	k.OK("membot_write", map[string]any{"logical_path": "a.md", "content": "x", "refresh_frequency": "6H"})
	if d := wDoc(k, "a.md"); d.RefreshFrequencySec != 6*3600 || d.RefreshedAt.IsZero() {
		t.Fatalf("refresh_frequency_sec %d, refreshed_at %v", d.RefreshFrequencySec, d.RefreshedAt)
	}
}

func TestWriteLargeContent(t *testing.T) {
	k := wKit(t)
	body := strings.Repeat("A line of text about the knowledge store.\n", membot.MaxWriteContent/43)
	d := wData(t, k.OK("membot_write", map[string]any{"logical_path": "big.md", "content": body}))
	if d["size_bytes"] != float64(len(body)) {
		t.Fatalf("size_bytes %v, want %d", d["size_bytes"], len(body))
	}
	if n := k.Count("SELECT COUNT(*) FROM document_chunks"); n < 10 {
		t.Fatalf("%d chunks for %d bytes", n, len(body))
	}
}
