package membot_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// wEntries are an add's ingested entries.
func wEntries(t *testing.T, d map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range d["ingested"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

// wByStatus is the logical paths (source paths for failures) of the
// entries with a status.
func wByStatus(t *testing.T, d map[string]any, status string) []string {
	t.Helper()
	var out []string
	for _, e := range wEntries(t, d) {
		if e["status"] == status {
			if status == "failed" {
				out = append(out, e["source_path"].(string))
			} else {
				out = append(out, e["logical_path"].(string))
			}
		}
	}
	return out
}

func wSHA(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestAddInline(t *testing.T) {
	c := wClock()
	k, _ := wFileKit(t, c)
	d := wData(t, k.OK("membot_add", map[string]any{"sources": []string{"inline:# Idea\n\nA thought."}, "logical_path": "ideas/one.md",
		"change_note": "jotted"}))
	es := wEntries(t, d)
	if len(es) != 1 || d["total"] != float64(1) || d["ok"] != float64(1) || d["failed"] != float64(0) {
		t.Fatalf("add %v", d)
	}
	e := es[0]
	if e["status"] != "ok" || e["logical_path"] != "ideas/one.md" || e["fetcher"] != "inline" || e["mime_type"] != "text/markdown" ||
		e["source_sha256"] != wSHA("# Idea\n\nA thought.") || e["chunk_count"] != float64(1) || e["size_bytes"] != float64(18) {
		t.Fatalf("entry %v", e)
	}
	doc := wDoc(k, "ideas/one.md")
	if doc.Content != "# Idea\n\nA thought." || doc.Version != e["version_id"] || doc.SourceType != baton.SourceInline ||
		doc.SourcePath != "" || doc.ChangeNote != "jotted" {
		t.Fatalf("stored %+v", doc)
	}
	// inline: always appends, even the same text.
	k.OK("membot_add", map[string]any{"sources": []string{"inline:# Idea\n\nA thought."}, "logical_path": "ideas/one.md"})
	if n := len(wVersions(k, "ideas/one.md")); n != 2 {
		t.Fatalf("%d versions, want 2", n)
	}
	// Default paths: inline/<timestamp>.md, numbered when several.
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"inline:one"}}))
	if got := wByStatus(t, d, "ok"); !slices.Equal(got, []string{"inline/2026-05-10T17-04-11-532Z.md"}) {
		t.Fatalf("default path %v", got)
	}
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"inline:one", "inline:two"}}))
	if got := wByStatus(t, d, "ok"); !slices.Equal(got, []string{"inline/2026-05-10T17-04-11-532Z-1.md", "inline/2026-05-10T17-04-11-532Z-2.md"}) {
		t.Fatalf("default paths %v", got)
	}
	// With several sources logical_path is a prefix.
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"inline:one", "inline:two"}, "logical_path": "batch/"}))
	if got := wByStatus(t, d, "ok"); !slices.Equal(got, []string{"batch/2026-05-10T17-04-11-532Z-1.md", "batch/2026-05-10T17-04-11-532Z-2.md"}) {
		t.Fatalf("prefixed paths %v", got)
	}
	if wDoc(k, "batch/2026-05-10T17-04-11-532Z-2.md").Content != "two" {
		t.Fatal("second inline text not stored")
	}
}

func TestAddLocalFile(t *testing.T) {
	k, root := wFileKit(t, nil)
	wFile(t, root, "docs/design.md", "# Design\n\nThe plan.")
	d := wData(t, k.OK("membot_add", map[string]any{"sources": []string{"docs/design.md"}, "refresh_frequency": "1d"}))
	e := wEntries(t, d)[0]
	if e["status"] != "ok" || e["logical_path"] != "docs/design.md" || e["source_path"] != "docs/design.md" || e["fetcher"] != "local" ||
		e["source_sha256"] != wSHA("# Design\n\nThe plan.") {
		t.Fatalf("entry %v", e)
	}
	doc := wDoc(k, "docs/design.md")
	if doc.SourceType != baton.SourceLocal || doc.SourcePath != "docs/design.md" || doc.SourceSHA256 != wSHA("# Design\n\nThe plan.") ||
		doc.RefreshFrequencySec != 86400 || doc.RefreshedAt.IsZero() || doc.LastRefreshStatus != "ok" || doc.ContentType != "text/markdown" {
		t.Fatalf("stored %+v", doc)
	}
	// Unchanged: no new version, the current one reported.
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"docs/design.md"}}))
	if e := wEntries(t, d)[0]; e["status"] != "unchanged" || e["version_id"] != doc.Version || d["unchanged"] != float64(1) {
		t.Fatalf("re-add %v", d)
	}
	if n := len(wVersions(k, "docs/design.md")); n != 1 {
		t.Fatalf("%d versions after an unchanged re-add", n)
	}
	// force stores it again; a changed file is stored, keeping the schedule.
	k.OK("membot_add", map[string]any{"sources": []string{"docs/design.md"}, "force": true})
	wFile(t, root, "docs/design.md", "# Design\n\nThe new plan.")
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"./docs/design.md"}}))
	if e := wEntries(t, d)[0]; e["status"] != "ok" {
		t.Fatalf("changed file %v", e)
	}
	if doc := wDoc(k, "docs/design.md"); doc.Content != "# Design\n\nThe new plan." || doc.RefreshFrequencySec != 86400 {
		t.Fatalf("stored %+v", doc)
	}
	if n := len(wVersions(k, "docs/design.md")); n != 3 {
		t.Fatalf("%d versions, want 3", n)
	}
	// logical_path names a single file's path exactly; an absolute path
	// inside the project is fine.
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{filepath.Join(root, "docs", "design.md")}, "logical_path": "kb/design.md"}))
	if got := wByStatus(t, d, "ok"); !slices.Equal(got, []string{"kb/design.md"}) {
		t.Fatalf("exact path %v", got)
	}
}

func TestAddDirectoriesAndGlobs(t *testing.T) {
	k, root := wFileKit(t, nil)
	wFile(t, root, "docs/a.md", "alpha")
	wFile(t, root, "docs/sub/b.md", "beta")
	wFile(t, root, "docs/sub/c.txt", "gamma")
	wFile(t, root, "docs/.hidden.md", "hidden")
	wFile(t, root, "docs/.git/config", "[core]")
	wFile(t, root, "docs/img.bin", "\xff\xfe\x00binary")
	wFile(t, root, "other/x.md", "other")

	d := wData(t, k.OK("membot_add", map[string]any{"sources": []string{"docs"}, "logical_path": "kb"}))
	if got := wByStatus(t, d, "ok"); !slices.Equal(got, []string{"kb/.hidden.md", "kb/a.md", "kb/sub/b.md", "kb/sub/c.txt"}) {
		t.Fatalf("walk stored %v", got)
	}
	// A file baton cannot store is a failed entry; the others went on.
	if got := wByStatus(t, d, "failed"); !slices.Equal(got, []string{"docs/img.bin"}) || d["failed"] != float64(1) || d["total"] != float64(5) {
		t.Fatalf("walk failures %v in %v", got, d)
	}
	if doc := wDoc(k, "kb/sub/c.txt"); doc.SourcePath != "docs/sub/c.txt" || doc.ContentType != "text/plain" {
		t.Fatalf("walked file %+v", doc)
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"default paths are project paths", map[string]any{"sources": []string{"docs/sub"}}, []string{"docs/sub/b.md", "docs/sub/c.txt"}},
		{"include by name at any depth", map[string]any{"sources": []string{"docs"}, "include": "*.md", "logical_path": "i"},
			[]string{"i/.hidden.md", "i/a.md", "i/sub/b.md"}},
		{"exclude a subtree", map[string]any{"sources": []string{"docs"}, "include": "*.md,*.txt", "exclude": "sub/**, .*", "logical_path": "e"},
			[]string{"e/a.md"}},
		{"glob source", map[string]any{"sources": []string{"docs/**/*.md"}}, []string{"docs/.hidden.md", "docs/a.md", "docs/sub/b.md"}},
		{"glob source with a prefix", map[string]any{"sources": []string{"docs/*.md"}, "logical_path": "g"}, []string{"g/.hidden.md", "g/a.md"}},
		{"several sources with a prefix", map[string]any{"sources": []string{"docs/a.md", "other/x.md"}, "logical_path": "m"},
			[]string{"m/a.md", "m/x.md"}},
		{"the whole project", map[string]any{"sources": []string{"."}, "include": "x.md"}, []string{"other/x.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Files an earlier case stored are unchanged now.
			d := wData(t, k.OK("membot_add", tc.args))
			got := append(wByStatus(t, d, "ok"), wByStatus(t, d, "unchanged")...)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || d["failed"] != float64(0) {
				t.Fatalf("stored %v, want %v (%v)", got, tc.want, d)
			}
		})
	}
	// A walk that finds nothing is a failed entry that says so.
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"docs"}, "include": "*.pdf"}))
	if e := wEntries(t, d)[0]; e["status"] != "failed" || !strings.Contains(e["error"].(string), "no files") {
		t.Fatalf("empty walk %v", e)
	}
	wFail(k, "membot_add", map[string]any{"sources": []string{"docs"}, "include": "[+-0]"}, baton.ErrInvalidInput, "input_error")
}

// Nothing outside the project directory is read: not by "..", not by an
// absolute path, not through a symbolic link; and no message names a
// server path.
func TestAddStaysInsideTheProject(t *testing.T) {
	k, root := wFileKit(t, nil)
	outside := t.TempDir()
	wFile(t, outside, "secret.md", "top secret")
	wFile(t, root, "docs/ok.md", "fine")
	relOut, err := filepath.Rel(root, filepath.Join(outside, "secret.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := true
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "docs", "link.md")); err != nil {
		links = false
	}
	if links {
		if err := os.Symlink(outside, filepath.Join(root, "outdir")); err != nil {
			t.Fatal(err)
		}
	}
	before := wRows(k)
	sources := []string{"../secret.md", relOut, filepath.Join(outside, "secret.md"), "../*", filepath.Join(outside, "*.md")}
	if links {
		sources = append(sources, "docs/link.md", "outdir", "outdir/secret.md")
	}
	d := wData(t, k.OK("membot_add", map[string]any{"sources": sources}))
	for _, e := range wEntries(t, d) {
		msg, _ := e["error"].(string)
		if e["status"] != "failed" || msg == "" {
			t.Fatalf("%v was ingested", e)
		}
		if strings.Contains(msg, root) || strings.Contains(msg, outside) && !strings.Contains(e["source_path"].(string), outside) {
			t.Fatalf("message names a server path: %q", msg)
		}
	}
	wUnchanged(k, before)
	if links {
		// Walking a directory with a link out of the project: the link is
		// a failed entry, the rest is stored.
		d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"docs"}}))
		if ok, failed := wByStatus(t, d, "ok"), wByStatus(t, d, "failed"); !slices.Equal(ok, []string{"docs/ok.md"}) ||
			!slices.Equal(failed, []string{"docs/link.md"}) {
			t.Fatalf("walk with an escaping link: ok %v, failed %v", ok, failed)
		}
		if e := wEntries(t, d)[0]; !strings.Contains(e["error"].(string), "outside the project") {
			t.Fatalf("entry %v", e)
		}
		// Without following links the link is not looked at.
		d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"docs"}, "follow_symlinks": false}))
		if d["failed"] != float64(0) || d["unchanged"] != float64(1) {
			t.Fatalf("walk without links %v", d)
		}
		for _, e := range wEntries(t, d) {
			if strings.Contains(e["source_path"].(string), "link") {
				t.Fatalf("link looked at: %v", e)
			}
		}
	}
	if wDoc(k, "secret.md") != nil {
		t.Fatal("the outside file was stored")
	}
}

func TestAddRefusesWhatBatonCannotFetch(t *testing.T) {
	k, root := wFileKit(t, nil)
	wFile(t, root, "a.md", "a")
	before := wRows(k)
	d := wData(t, k.OK("membot_add", map[string]any{"sources": []string{"https://example.com/page", "gh:owner/repo", "missing.md"}}))
	es := wEntries(t, d)
	if es[0]["status"] != "failed" || es[0]["fetcher"] != "downloader" || !strings.Contains(es[0]["error"].(string), "remote ingest is not configured") {
		t.Fatalf("URL entry %v", es[0])
	}
	if es[1]["status"] != "failed" || es[1]["fetcher"] != "downloader" {
		t.Fatalf("scheme entry %v", es[1])
	}
	if es[2]["status"] != "failed" || !strings.Contains(es[2]["error"].(string), "no file") {
		t.Fatalf("missing file entry %v", es[2])
	}
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"a.md", "inline:x"}, "downloader": "youtube"}))
	if d["failed"] != float64(2) || !strings.Contains(wEntries(t, d)[0]["error"].(string), "youtube") {
		t.Fatalf("forced downloader %v", d)
	}
	wUnchanged(k, before)
	// Arguments: a bad duration or path fails the whole call.
	wFail(k, "membot_add", map[string]any{"sources": []string{"inline:x"}, "refresh_frequency": "often"}, baton.ErrInvalidInput, "input_error")
	wFail(k, "membot_add", map[string]any{"sources": []string{"inline:x"}, "logical_path": "a/../b"}, baton.ErrInvalidInput, "input_error")
	wFail(k, "membot_add", map[string]any{"sources": []string{}}, baton.ErrInvalidInput, "invalid_input")
	many := make([]string, 101)
	for i := range many {
		many[i] = "inline:x"
	}
	wFail(k, "membot_add", map[string]any{"sources": many}, baton.ErrInvalidInput, "invalid_input")
	wUnchanged(k, before)
}

// Only an operator has baton read project files; an agent is told to store
// what it read itself, and its inline text still goes in.
func TestAddLocalFilesAreForOperators(t *testing.T) {
	k, root := wFileKit(t, nil)
	wFile(t, root, "a.md", "a")
	agent := k.As("agent-bob")
	agent.Principal.Source = baton.SourceStdio
	agent.Principal.Preset = "botholomew"
	d := wData(t, agent.OK("membot_add", map[string]any{"sources": []string{"a.md", "inline:mine"}, "logical_path": "x"}))
	es := wEntries(t, d)
	if es[0]["status"] != "failed" || !strings.Contains(es[0]["error"].(string), "membot_write") || es[1]["status"] != "ok" {
		t.Fatalf("agent add %v", d)
	}
	for _, src := range []baton.Source{baton.SourceCLI, baton.SourceWeb} {
		op := k.As("user")
		op.Principal.Source = src
		if e := wEntries(t, wData(t, op.OK("membot_add", map[string]any{"sources": []string{"a.md"}, "force": true})))[0]; e["status"] != "ok" {
			t.Fatalf("%s add %v", src, e)
		}
	}
}

// A session that writes the global knowledge has no directory to read.
func TestAddGlobalSessionHasNoFiles(t *testing.T) {
	k := testkit.New(t)
	k.AddProject("other", "OTH")
	d := wData(t, k.OK("membot_add", map[string]any{"sources": []string{"a.md", "inline:text"}}))
	es := wEntries(t, d)
	if es[0]["status"] != "failed" || !strings.Contains(es[0]["error"].(string), "global") || es[1]["status"] != "ok" {
		t.Fatalf("global add %v", d)
	}
}

// One call reads a bounded number of files: a walk over more fails as one
// entry that says how to narrow it, and stores nothing of it.
func TestAddFileLimit(t *testing.T) {
	k, root := wFileKit(t, nil)
	for i := range 1001 {
		wFile(t, root, filepath.Join("many", strings.Repeat("d", 1+i%3), "f"+strconv.Itoa(i)+".md"), "x")
	}
	before := wRows(k)
	d := wData(t, k.OK("membot_add", map[string]any{"sources": []string{"many"}}))
	es := wEntries(t, d)
	if len(es) != 1 || es[0]["status"] != "failed" || !strings.Contains(es[0]["error"].(string), "1000") {
		t.Fatalf("over the limit: %v", d)
	}
	wUnchanged(k, before)
	// Narrowed by a glob, it goes in.
	d = wData(t, k.OK("membot_add", map[string]any{"sources": []string{"many/d/*.md"}}))
	if d["ok"] != float64(334) || d["failed"] != float64(0) {
		t.Fatalf("narrowed: ok %v failed %v", d["ok"], d["failed"])
	}
}
