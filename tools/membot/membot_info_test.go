package membot_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestInfoMetadata: membot_info describes a version without its content:
// digests, size, source and fetcher, current or not; a deletion is
// described as a tombstone.
func TestInfoMetadata(t *testing.T) {
	k := testkit.New(t)
	v1 := put(k, "spec.md", "# Spec\n\nfirst")
	v2 := put(k, "spec.md", "# Spec\n\nsecond")

	d := data(k, "membot_info", map[string]any{"logical_path": "spec.md"})
	eq(t, "version", d["version_id"], v2)
	eq(t, "current", d["version_is_current"], true)
	eq(t, "content sha", d["content_sha256"], sum("# Spec\n\nsecond"))
	eq(t, "source sha", d["source_sha256"], sum("# Spec\n\nsecond"))
	eq(t, "size", d["size_bytes"], float64(len("# Spec\n\nsecond")))
	eq(t, "source_type", d["source_type"], "inline")
	eq(t, "fetcher", d["fetcher"], "inline")
	eq(t, "tombstone", d["tombstone"], false)
	eq(t, "mime", d["mime_type"], "text/markdown")
	if _, err := time.Parse(time.RFC3339, d["created_at"].(string)); err != nil {
		t.Errorf("created_at %v: %v", d["created_at"], err)
	}
	for _, absent := range []string{"content", "source_path", "blob_sha256", "downloader", "downloader_args", "refreshed_at"} {
		if _, ok := d[absent]; ok {
			t.Errorf("%s is set: %v", absent, d)
		}
	}
	old := data(k, "membot_info", map[string]any{"logical_path": "spec.md", "version": v1})
	eq(t, "old current", old["version_is_current"], false)
	eq(t, "old sha", old["content_sha256"], sum("# Spec\n\nfirst"))

	tomb := remove(k, projectSpace, "spec.md")
	failWith(k, "membot_info", map[string]any{"logical_path": "spec.md"}, baton.ErrNotFound, "not_found")
	d = data(k, "membot_info", map[string]any{"logical_path": "spec.md", "version": tomb})
	eq(t, "tombstone", d["tombstone"], true)
	eq(t, "tombstone current", d["version_is_current"], false)
	eq(t, "change note", d["change_note"], "deleted")
	eq(t, "v2 after delete", data(k, "membot_info", map[string]any{"logical_path": "spec.md", "version": v2})["version_is_current"], false)
}

// TestInfoErrors: unknown paths and versions are not_found, bad paths
// input_error, each with a hint; the global space shows through.
func TestInfoErrors(t *testing.T) {
	k := testkit.New(t)
	vg := putGlobal(k, "g.md", "global")
	eq(t, "global", data(k, "membot_info", map[string]any{"logical_path": "g.md"})["version_id"], vg)
	failWith(k, "membot_info", map[string]any{"logical_path": "nope.md"}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_info", map[string]any{"logical_path": "g.md", "version": "2000-01-01T00:00:00.000Z"}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_info", map[string]any{"logical_path": "x/../y"}, baton.ErrInvalidInput, "input_error")
}
