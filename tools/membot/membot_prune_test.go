package membot_test

import (
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// wHistory writes a.md three times ten days apart (and b.md once, at the
// start), then moves the clock ten days past the last write.
func wHistory(t *testing.T) (*testkit.Kit, *testkit.Clock, time.Time) {
	c := wClock()
	k, _ := wFileKit(t, c)
	start := c.Peek()
	wWrite(k, "b.md", "only version")
	for _, s := range []string{"v1", "v2", "v3"} {
		wWrite(k, "a.md", s)
		c.Advance(10 * 24 * time.Hour)
	}
	return k, c, start
}

func TestPruneDryRunByDefault(t *testing.T) {
	k, c, _ := wHistory(t)
	before := wRows(k)
	d := wData(t, k.OK("membot_prune", map[string]any{"before": "15d"}))
	// now = start+30d, so the cutoff is start+15d: a.md's v1 (start) and
	// v2 (start+10d) are older and not its newest; b.md's only version is
	// older but its newest; v3 is newer.
	want := c.Peek().Add(-15 * 24 * time.Hour).Format(baton.VersionLayout)
	if d["cutoff"] != want || d["dry_run"] != true || d["removed_versions"] != float64(2) ||
		d["removed_orphan_blobs"] != float64(0) || d["stripped_blob_bytes"] != float64(0) || d["reclaimed_bytes"] != float64(4) {
		t.Fatalf("dry run %v (cutoff want %s)", d, want)
	}
	wUnchanged(k, before)
}

func TestPruneRemovesOldVersionsKeepingTheNewest(t *testing.T) {
	k, c, start := wHistory(t)
	d := wData(t, k.OK("membot_prune", map[string]any{"before": "25d", "dry_run": false}))
	if d["removed_versions"] != float64(1) || d["dry_run"] != false {
		t.Fatalf("prune %v", d)
	}
	vs := wVersions(k, "a.md")
	if len(vs) != 2 || vs[1].CreatedAt.Before(start.Add(time.Hour)) {
		t.Fatalf("a.md keeps v2 and v3: %+v", vs)
	}
	// An ISO cutoff in the future removes every version but the newest of
	// each path, b.md's only one included.
	d = wData(t, k.OK("membot_prune", map[string]any{"before": c.Peek().Add(time.Hour).Format(time.RFC3339), "dry_run": false}))
	if d["removed_versions"] != float64(1) {
		t.Fatalf("prune %v", d)
	}
	if vs := wVersions(k, "a.md"); len(vs) != 1 || wDoc(k, "a.md").Content != "v3" {
		t.Fatalf("a.md %+v", vs)
	}
	if wDoc(k, "b.md") == nil {
		t.Fatal("b.md's only version was pruned")
	}
	// Chunks of pruned versions go with them: only the two current
	// versions' remain.
	if n := k.Count("SELECT COUNT(*) FROM document_chunks"); n != 2 {
		t.Fatalf("%d chunks left, want 2", n)
	}
}

// The newest version survives even when it is a tombstone.
func TestPruneKeepsANewestTombstone(t *testing.T) {
	k, c, _ := wHistory(t)
	k.OK("membot_remove", map[string]any{"paths": []string{"a.md"}})
	c.Advance(time.Hour)
	k.OK("membot_prune", map[string]any{"before": "1s", "dry_run": false})
	vs := wVersions(k, "a.md")
	if len(vs) != 1 || !vs[0].Deleted {
		t.Fatalf("a.md history %+v, want its tombstone alone", vs)
	}
}

func TestPruneInput(t *testing.T) {
	k, _, _ := wHistory(t)
	before := wRows(k)
	e := wFail(k, "membot_prune", map[string]any{}, baton.ErrInvalidInput, "input_error")
	if e.Hint == "" {
		t.Fatal("no hint")
	}
	wFail(k, "membot_prune", map[string]any{"dry_run": false}, baton.ErrInvalidInput, "input_error")
	for _, b := range []string{"yesterday", "5w", "0d", "-3d", "99999999999d", "2026-13-01"} {
		wFail(k, "membot_prune", map[string]any{"before": b, "dry_run": false}, baton.ErrInvalidInput, "input_error")
	}
	// strip_blob_bytes alone is something to do: baton keeps no blobs.
	d := wData(t, k.OK("membot_prune", map[string]any{"strip_blob_bytes": true, "dry_run": false}))
	if _, has := d["cutoff"]; has || d["stripped_blob_bytes"] != float64(0) || d["removed_versions"] != float64(0) {
		t.Fatalf("strip only: %v", d)
	}
	// Units in either case; a date alone is midnight UTC.
	wData(t, k.OK("membot_prune", map[string]any{"before": "2H"}))
	d = wData(t, k.OK("membot_prune", map[string]any{"before": "2026-05-01"}))
	if d["cutoff"] != "2026-05-01T00:00:00.000Z" {
		t.Fatalf("cutoff %v", d["cutoff"])
	}
	wUnchanged(k, before)
}

// A project session prunes its own space only; the global knowledge is
// pruned from a session whose space is the global one.
func TestPruneOnlyTheSessionsSpace(t *testing.T) {
	c := wClock()
	k := testkit.NewAt(t, c)
	k.AddProject("other", "OTH")
	global := k.As("agent-alice")
	global.Principal.Project = "" // two projects and none named: the global space
	for _, s := range []string{"g1", "g2"} {
		wData(t, global.OK("membot_write", map[string]any{"logical_path": "g.md", "content": s, "on_conflict": "overwrite"}))
	}
	proj := k.As("agent-alice")
	proj.Principal.Project = testkit.Project
	for _, s := range []string{"p1", "p2"} {
		wWrite(proj, "p.md", s)
	}
	c.Advance(48 * time.Hour)
	d := wData(t, proj.OK("membot_prune", map[string]any{"before": "1d", "dry_run": false}))
	if d["removed_versions"] != float64(1) {
		t.Fatalf("project prune %v", d)
	}
	if n := k.Count("SELECT COUNT(*) FROM documents WHERE scope = ?", baton.ScopeGlobal); n != 2 {
		t.Fatalf("the global space has %d versions after a project prune, want 2", n)
	}
	d = wData(t, global.OK("membot_prune", map[string]any{"before": "1d", "dry_run": false}))
	if d["removed_versions"] != float64(1) {
		t.Fatalf("global prune %v", d)
	}
	if n := k.Count("SELECT COUNT(*) FROM documents WHERE scope = ?", baton.ScopeGlobal); n != 1 {
		t.Fatalf("the global space has %d versions, want 1", n)
	}
}
