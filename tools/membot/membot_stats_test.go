package membot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
)

// TestStatsCounts: membot_stats counts current documents, deletions,
// versions, paths, bytes and chunks of the session's spaces, by source and
// mime type; db_path names the driver, never a host path.
func TestStatsCounts(t *testing.T) {
	k := testkit.New(t)
	put(k, "a.md", "12345")
	put(k, "a.md", "1234567")
	put(k, "b.md", "xyz")
	put(k, "c.md", "gone")
	remove(k, projectSpace, "c.md")
	putGlobal(k, "g.md", "global!")

	d := data(k, "membot_stats", nil)
	files := d["files"].(map[string]any)
	eq(t, "current", files["current"], 3.0)
	eq(t, "tombstoned", files["tombstoned_paths"], 1.0)
	eq(t, "versions", files["total_versions"], 6.0)
	eq(t, "paths", files["distinct_paths"], 4.0)
	eq(t, "by source", files["by_source_type"], map[string]any{"inline": 3.0})
	eq(t, "by mime", files["by_mime_type"], map[string]any{"text/markdown": 3.0})
	eq(t, "by downloader", files["by_downloader"], map[string]any{})
	content := d["content"].(map[string]any)
	eq(t, "current bytes", content["total_bytes"], 17.0)
	eq(t, "all bytes", content["total_versions_bytes"], 26.0)
	eq(t, "db size", d["db_size_bytes"], 26.0)
	chunks := d["chunks"].(map[string]any)
	eq(t, "chunks", chunks["current"], 3.0)
	eq(t, "all chunks", chunks["total"], 5.0)
	eq(t, "blobs", d["blobs"], map[string]any{"count": 0.0, "total_bytes": 0.0})
	eq(t, "refresh", d["refresh"], map[string]any{"scheduled": 0.0, "due_now": 0.0, "last_status": map[string]any{}})
	eq(t, "db_path", d["db_path"], k.Backend)
	if _, ok := d["prefix"]; ok {
		t.Errorf("prefix set without one: %v", d["prefix"])
	}

	d = data(k, "membot_stats", map[string]any{"prefix": "/a"})
	eq(t, "prefix", d["prefix"], "a")
	eq(t, "prefix current", d["files"].(map[string]any)["current"], 1.0)
	eq(t, "prefix bytes", d["content"].(map[string]any)["total_bytes"], 7.0)
	eq(t, "db size ignores the prefix", d["db_size_bytes"], 26.0)
	if p := d["db_path"].(string); strings.ContainsAny(p, `/\`) {
		t.Errorf("db_path %q looks like a host path", p)
	}
}

// TestStatsMimeGroups: by_mime_type keeps the 10 largest groups and folds
// the rest into (other).
func TestStatsMimeGroups(t *testing.T) {
	k := testkit.New(t)
	for i := range 12 {
		for j := 0; j <= i; j++ { // type i has i+1 documents
			putTyped(k, fmt.Sprintf("m%02d/%d.txt", i, j), fmt.Sprintf("text/x-%02d", i))
		}
	}
	by := data(k, "membot_stats", nil)["files"].(map[string]any)["by_mime_type"].(map[string]any)
	if len(by) != 11 || by["(other)"] != 3.0 || by["text/x-11"] != 12.0 || by["text/x-02"] != 3.0 || by["text/x-01"] != nil {
		t.Errorf("by_mime_type = %v", by)
	}
}

// putTyped writes a small document of a mime type.
func putTyped(k *testkit.Kit, path, mime string) {
	k.T.Helper()
	putDoc(k, projectSpace, path, "content of "+path, mime)
}
