package membot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tools/membot"
)

func TestEditPatchesTheCurrentVersion(t *testing.T) {
	k := wKit(t)
	first := wWrite(k, "doc.md", "# Title\nline two\nline three\n")
	out := k.OK("membot_edit", map[string]any{"logical_path": "doc.md", "change_note": "fix", "patches": []map[string]any{
		{"start_line": 2, "end_line": 2, "content": "line 2"},
		{"start_line": 4, "end_line": 0, "content": "line four"},
		{"start_line": 1, "end_line": 0, "content": "<!-- top -->"},
	}})
	// Botholomew's wrappers are flat: no data envelope.
	if out["is_error"] != false || out["data"] != nil || out["logical_path"] != "doc.md" {
		t.Fatalf("output %v", out)
	}
	want := "<!-- top -->\n# Title\nline 2\nline three\nline four\n"
	d := wDoc(k, "doc.md")
	if d.Content != want || d.Version != out["version_id"] || out["size_bytes"] != float64(len(want)) {
		t.Fatalf("stored %q (version %s), output %v", d.Content, d.Version, out)
	}
	if d.SourceType != baton.SourceInline || d.ChangeNote != "fix" || d.Version <= first {
		t.Fatalf("version %+v", d)
	}
	if vs := wVersions(k, "doc.md"); len(vs) != 2 {
		t.Fatalf("%d versions, want 2", len(vs))
	}
	// Deleting lines with empty content.
	k.OK("membot_edit", map[string]any{"logical_path": "doc.md", "patches": []map[string]any{{"start_line": 1, "end_line": 2, "content": ""}}})
	if got := wDoc(k, "doc.md").Content; got != "line 2\nline three\nline four\n" {
		t.Fatalf("after deletion %q", got)
	}
}

func TestEditRefusals(t *testing.T) {
	k := wKit(t)
	wWrite(k, "doc.md", "a\nb\nc")
	wWrite(k, "gone.md", "x")
	k.OK("membot_remove", map[string]any{"paths": []string{"gone.md"}})
	before := wRows(k)
	patch := []map[string]any{{"start_line": 1, "end_line": 1, "content": "x"}}
	wFail(k, "membot_edit", map[string]any{"logical_path": "missing.md", "patches": patch}, baton.ErrNotFound, "not_found")
	wFail(k, "membot_edit", map[string]any{"logical_path": "gone.md", "patches": patch}, baton.ErrNotFound, "not_found")

	// The [baton] rules of §8, checked against the document: the patch's
	// index comes back in details, and nothing is written.
	for _, tc := range []struct {
		patches []map[string]any
		index   int
	}{
		{[]map[string]any{{"start_line": 1, "end_line": 1, "content": "x"}, {"start_line": 2, "end_line": 4, "content": "y"}}, 1},
		{[]map[string]any{{"start_line": 5, "end_line": 0, "content": "y"}}, 0},
		{[]map[string]any{{"start_line": 3, "end_line": 2, "content": "y"}}, 0},
		{[]map[string]any{{"start_line": 1, "end_line": 2, "content": "x"}, {"start_line": 2, "end_line": 3, "content": "y"}}, 1},
		{[]map[string]any{{"start_line": 1, "end_line": 3, "content": "x"}, {"start_line": 2, "end_line": 0, "content": "y"}}, 1},
	} {
		e := wFail(k, "membot_edit", map[string]any{"logical_path": "doc.md", "patches": tc.patches}, baton.ErrInvalidInput, "input_error")
		if e.Details["patch"] != tc.index || !strings.Contains(e.Hint, "membot_read") {
			t.Fatalf("%v: details %v, hint %q", tc.patches, e.Details, e.Hint)
		}
	}
	// The schema: at least one patch, whole line numbers from 1 (0 for
	// end_line), every field present.
	for _, ps := range []any{
		[]any{},
		[]map[string]any{{"start_line": 0, "end_line": 1, "content": "x"}},
		[]map[string]any{{"start_line": 1.5, "end_line": 2, "content": "x"}},
		[]map[string]any{{"start_line": 1, "end_line": -1, "content": "x"}},
		[]map[string]any{{"start_line": 1, "end_line": 1}},
		[]map[string]any{{"start_line": 1, "end_line": 1, "content": strings.Repeat("x", membot.MaxLinePatchContent+1)}},
	} {
		e := wFail(k, "membot_edit", map[string]any{"logical_path": "doc.md", "patches": ps}, baton.ErrInvalidInput, "invalid_input")
		if f, _ := e.Details["field"].(string); !strings.HasPrefix(f, "patches") {
			t.Fatalf("%v: details %v", ps, e.Details)
		}
	}
	many := make([]map[string]any, membot.MaxLinePatches+1)
	for i := range many {
		many[i] = map[string]any{"start_line": 1, "end_line": 0, "content": "x"}
	}
	wFail(k, "membot_edit", map[string]any{"logical_path": "doc.md", "patches": many}, baton.ErrInvalidInput, "invalid_input")
	wUnchanged(k, before)
	if got := wDoc(k, "doc.md").Content; got != "a\nb\nc" {
		t.Fatalf("content changed by failed edits: %q", got)
	}
}

// Editing a global document from a project session writes the project's
// copy; the global one stays as it was.
func TestEditGlobalDocumentWritesTheProjectsCopy(t *testing.T) {
	k := wKit(t)
	global := baton.DocSpace{Scope: baton.ScopeGlobal}
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.PutDocument(ctx, &baton.Document{DocKey: baton.DocKey{DocSpace: global, Path: "g.json"}, Content: "{\n\"a\": 1\n}",
			ContentType: "application/json", UpdatedBy: "user"})
	}); err != nil {
		t.Fatal(err)
	}
	k.OK("membot_edit", map[string]any{"logical_path": "g.json", "patches": []map[string]any{{"start_line": 2, "end_line": 2, "content": "\"a\": 2"}}})
	if d := wDoc(k, "g.json"); d == nil || d.Content != "{\n\"a\": 2\n}" || d.ContentType != "application/json" {
		t.Fatalf("project copy %+v", d)
	}
	if d := wDocIn(k, global, "g.json"); d.Content != "{\n\"a\": 1\n}" {
		t.Fatalf("global document changed: %q", d.Content)
	}
}
