package membot_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// wProcessed is a refresh's entries as path:status.
func wProcessed(t *testing.T, d map[string]any) []string {
	t.Helper()
	var out []string
	for _, e := range d["processed"].([]any) {
		m := e.(map[string]any)
		out = append(out, m["logical_path"].(string)+":"+m["status"].(string))
	}
	if d["count"] != float64(len(out)) {
		t.Fatalf("count %v for %d entries", d["count"], len(out))
	}
	return out
}

func TestRefreshSchedule(t *testing.T) {
	c := wClock()
	k, root := wFileKit(t, c)
	wFile(t, root, "docs/feed.md", "v1")
	wFile(t, root, "docs/static.md", "never refreshed")
	k.OK("membot_add", map[string]any{"sources": []string{"docs/feed.md"}, "refresh_frequency": "1h"})
	k.OK("membot_add", map[string]any{"sources": []string{"docs/static.md"}})
	k.OK("membot_write", map[string]any{"logical_path": "memo.md", "content": "inline", "refresh_frequency": "30m"})
	added := wDoc(k, "docs/feed.md")
	refresh := func() []string {
		t.Helper()
		return wProcessed(t, wData(t, k.OK("membot_refresh", map[string]any{})))
	}

	if got := refresh(); len(got) != 0 {
		t.Fatalf("nothing is due right after adding, got %v", got)
	}
	c.Advance(30 * time.Minute) // memo: exactly its frequency, not past it
	if got := refresh(); len(got) != 0 {
		t.Fatalf("due at exactly refreshed_at + frequency: %v", got)
	}
	c.Advance(time.Millisecond)
	if got := refresh(); !slices.Equal(got, []string{"memo.md:unchanged"}) {
		t.Fatalf("after 30m: %v", got)
	}
	if d := wDoc(k, "memo.md"); d.LastRefreshStatus != "unchanged" || !d.RefreshedAt.Equal(c.Peek()) {
		t.Fatalf("inline refresh mark %q at %v", d.LastRefreshStatus, d.RefreshedAt)
	}

	// feed is due past an hour; its file has not changed.
	c.Advance(31 * time.Minute)
	if got := refresh(); !slices.Equal(got, []string{"docs/feed.md:unchanged", "memo.md:unchanged"}) {
		t.Fatalf("after 61m: %v", got)
	}
	d := wDoc(k, "docs/feed.md")
	if d.Version != added.Version || d.LastRefreshStatus != "unchanged" || !d.RefreshedAt.Equal(c.Peek()) {
		t.Fatalf("unchanged refresh made a version or no mark: %+v", d)
	}

	// Changed: a new version, keeping the schedule.
	wFile(t, root, "docs/feed.md", "v2")
	c.Advance(61 * time.Minute)
	out := wData(t, k.OK("membot_refresh", map[string]any{}))
	if got := wProcessed(t, out); !slices.Equal(got, []string{"docs/feed.md:ok", "memo.md:unchanged"}) {
		t.Fatalf("changed: %v", got)
	}
	d = wDoc(k, "docs/feed.md")
	e := out["processed"].([]any)[0].(map[string]any)
	if d.Content != "v2" || d.Version != e["new_version_id"] || d.RefreshFrequencySec != 3600 || d.LastRefreshStatus != "ok" ||
		d.SourceType != baton.SourceLocal || d.SourcePath != "docs/feed.md" || !d.RefreshedAt.Equal(c.Peek()) {
		t.Fatalf("refreshed version %+v", d)
	}
	if n := len(wVersions(k, "docs/feed.md")); n != 2 {
		t.Fatalf("%d versions, want 2", n)
	}

	// A failure keeps the old version and records why.
	if err := os.Remove(filepath.Join(root, "docs", "feed.md")); err != nil {
		t.Fatal(err)
	}
	c.Advance(61 * time.Minute)
	out = wData(t, k.OK("membot_refresh", map[string]any{}))
	if got := wProcessed(t, out); !slices.Equal(got, []string{"docs/feed.md:failed", "memo.md:unchanged"}) {
		t.Fatalf("missing file: %v", got)
	}
	e = out["processed"].([]any)[0].(map[string]any)
	d = wDoc(k, "docs/feed.md")
	if d.Content != "v2" || !strings.HasPrefix(d.LastRefreshStatus, "failed:") || !strings.Contains(d.LastRefreshStatus, e["error"].(string)) ||
		e["error"] == "" || strings.Contains(e["error"].(string), root) {
		t.Fatalf("failed refresh: entry %v, version %+v", e, d)
	}
	// The failure is marked, so the next refresh waits for the schedule.
	if got := refresh(); len(got) != 0 {
		t.Fatalf("right after a failure: %v", got)
	}
}

func TestRefreshOnePath(t *testing.T) {
	k, root := wFileKit(t, nil)
	wFile(t, root, "a.md", "one")
	k.OK("membot_add", map[string]any{"sources": []string{"a.md"}})
	wWrite(k, "inline.md", "text")
	refresh := func(args map[string]any) map[string]any {
		t.Helper()
		return wData(t, k.OK("membot_refresh", args))
	}
	// A named path is refreshed whatever its schedule (it has none).
	if got := wProcessed(t, refresh(map[string]any{"logical_path": "a.md"})); !slices.Equal(got, []string{"a.md:unchanged"}) {
		t.Fatalf("%v", got)
	}
	if n := len(wVersions(k, "a.md")); n != 1 {
		t.Fatalf("%d versions", n)
	}
	if got := wProcessed(t, refresh(map[string]any{"logical_path": "a.md", "force": true})); !slices.Equal(got, []string{"a.md:ok"}) {
		t.Fatalf("forced %v", got)
	}
	if n := len(wVersions(k, "a.md")); n != 2 {
		t.Fatalf("%d versions after force", n)
	}
	wFile(t, root, "a.md", "two")
	if got := wProcessed(t, refresh(map[string]any{"logical_path": "/a.md"})); !slices.Equal(got, []string{"a.md:ok"}) || wDoc(k, "a.md").Content != "two" {
		t.Fatalf("changed %v", got)
	}
	// Inline documents never change, even forced.
	if got := wProcessed(t, refresh(map[string]any{"logical_path": "inline.md", "force": true})); !slices.Equal(got, []string{"inline.md:unchanged"}) {
		t.Fatalf("inline %v", got)
	}
	if n := len(wVersions(k, "inline.md")); n != 1 {
		t.Fatalf("inline got %d versions", n)
	}
	// A missing path is a failed entry, not an error.
	out := refresh(map[string]any{"logical_path": "nothing.md"})
	if got := wProcessed(t, out); !slices.Equal(got, []string{"nothing.md:failed"}) || out["processed"].([]any)[0].(map[string]any)["error"] == "" {
		t.Fatalf("missing %v", out)
	}
	wFail(k, "membot_refresh", map[string]any{"logical_path": "a//b"}, baton.ErrInvalidInput, "input_error")
}

// A source that has moved out of the project (a link replaced it) fails
// the refresh instead of being read.
func TestRefreshStaysInsideTheProject(t *testing.T) {
	k, root := wFileKit(t, nil)
	outside := t.TempDir()
	wFile(t, outside, "secret.md", "top secret")
	wFile(t, root, "a.md", "one")
	k.OK("membot_add", map[string]any{"sources": []string{"a.md"}})
	if err := os.Remove(filepath.Join(root, "a.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "a.md")); err != nil {
		t.Skip("no symbolic links here")
	}
	out := wData(t, k.OK("membot_refresh", map[string]any{"logical_path": "a.md"}))
	if got := wProcessed(t, out); !slices.Equal(got, []string{"a.md:failed"}) {
		t.Fatalf("%v", got)
	}
	if d := wDoc(k, "a.md"); d.Content != "one" || !strings.Contains(d.LastRefreshStatus, "outside the project") {
		t.Fatalf("version %+v", d)
	}
}
