package vault_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/embedding"
)

// TestVaultDelete: a deleted entry leaves both searches; its history
// stays; a second delete, or one of a path the project does not hold, is
// not found; global knowledge cannot be deleted from a project.
func TestVaultDelete(t *testing.T) {
	f := loaded(t)
	f.put(globalSpace, "handbook/retry.md", "# Retry policy\n\nEvery service retries with exponential backoff and jitter.\n")
	has := func(name, path string) bool {
		q := map[string]any{"query": "retry with exponential backoff and jitter", "top_k": 20}
		if name == "search_knowledge" {
			q["min_score"] = 0
		}
		return strings.Contains(","+strings.Join(sources(results(t, f.k.OK(name, q))), ",")+",", ","+path+",")
	}
	if !has("search_knowledge", "docs/retry.md") || !has("vault_retrieve", "docs/retry.md") {
		t.Fatal("docs/retry.md is not found before the delete")
	}
	before := f.doc(symSpace, "docs/retry.md").Version

	out := f.k.OK("vault_delete", map[string]any{"path": "docs/retry.md"})
	if out["deleted"] != true || out["path"] != "docs/retry.md" || out["project"] != project ||
		out["previous_version_id"] != before || out["version_id"] == before || out["version_id"] == "" {
		t.Fatalf("vault_delete = %v", out)
	}
	if has("search_knowledge", "docs/retry.md") || has("vault_retrieve", "docs/retry.md") {
		t.Fatal("docs/retry.md is still found after the delete")
	}
	// The other documents, and the global one on the same subject, remain.
	if !has("search_knowledge", "handbook/retry.md") || !has("vault_retrieve", "docs/cache.md") {
		t.Fatal("the delete took other documents with it")
	}
	if f.doc(symSpace, "docs/retry.md") != nil || f.vectors("docs/retry.md", embedding.BuiltinModel) != 0 {
		t.Fatal("the deleted path still has a current version with vectors")
	}
	if vs := f.versions("docs/retry.md"); len(vs) != 2 || !vs[0].Deleted || vs[1].Version != before {
		t.Fatalf("history after the delete = %+v", vs)
	}
	// Its vectors are gone from history too: a semantic search of old
	// versions does not bring the deleted content back.
	hist := f.k.OK("membot_search", map[string]any{"query": "retry with exponential backoff and jitter", "mode": "semantic",
		"include_history": true, "limit": 20})
	if strings.Contains(fmt.Sprint(hist), "docs/retry.md") {
		t.Fatalf("the deleted entry is found by meaning in history: %v", hist)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM events WHERE project = ? AND type = 'document.deleted'`, project); n != 1 {
		t.Fatalf("%d document.deleted events", n)
	}

	// Twice: not found, with a hint.
	e := f.k.FailEnvelope("vault_delete", map[string]any{"path": "docs/retry.md"}, baton.ErrNotFound)
	if e.Hint == "" || !strings.Contains(e.Message, "docs/retry.md") {
		t.Fatalf("second delete: %+v", e)
	}
	e = f.k.FailEnvelope("vault_delete", map[string]any{"path": "docs/never.md"}, baton.ErrNotFound)
	if e.Hint == "" {
		t.Fatalf("delete of an unknown path: %+v", e)
	}
	// Global knowledge: not the project's to delete, and the hint says why.
	e = f.k.FailEnvelope("vault_delete", map[string]any{"path": "handbook/retry.md"}, baton.ErrNotFound)
	if !strings.Contains(e.Hint, "global") {
		t.Fatalf("delete of a global path: %+v", e)
	}
	if f.doc(globalSpace, "handbook/retry.md") == nil {
		t.Fatal("the global document was deleted")
	}
	// Another project's document: invisible, so not found, and kept.
	f.put(otherSpace, "docs/cache.md", "colibri's own cache notes\n")
	if f.k.OK("vault_delete", map[string]any{"path": "docs/cache.md"})["project"] != project {
		t.Fatal("vault_delete did not delete sym's docs/cache.md")
	}
	if f.doc(otherSpace, "docs/cache.md") == nil {
		t.Fatal("vault_delete removed another project's document")
	}

	// Paths as vault_update takes them name the same entry.
	f.k.OK("vault_delete", map[string]any{"path": "./docs/../docs/deploy.md"})
	if f.doc(symSpace, "docs/deploy.md") != nil {
		t.Fatal("./docs/../docs/deploy.md did not name docs/deploy.md")
	}
	f.k.OK("vault_delete", map[string]any{"path": f.root + "/docs/logging.md"})
	if f.doc(symSpace, "docs/logging.md") != nil {
		t.Fatal("an absolute path inside the project did not name its entry")
	}
	for _, p := range []string{"../docs/tests.md", "/etc/passwd", "docs/../../x.md", "."} {
		e := f.k.FailEnvelope("vault_delete", map[string]any{"path": p}, baton.ErrInvalidInput)
		if e.Hint == "" || strings.Contains(e.Message+e.Hint, f.root) {
			t.Errorf("vault_delete(%q): %+v", p, e)
		}
	}
	f.k.Fail("vault_delete", map[string]any{"path": ""}, baton.ErrInvalidInput)
	f.k.Fail("vault_delete", map[string]any{"path": strings.Repeat("d", 1025)}, baton.ErrInvalidInput)
}
