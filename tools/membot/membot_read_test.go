package membot_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/sqlite"
)

// TestReadCurrentAndLines: membot_read returns the current text whole, or
// offset/limit lines of it (1-based, split on newline), with the version's
// metadata; baton has no original bytes.
func TestReadCurrentAndLines(t *testing.T) {
	k := testkit.New(t)
	put(k, "notes/x.md", "old")
	text := "# Title\nline 2\nline 3\nline 4\n"
	v := put(k, "/notes\\x.md", text)

	d := data(k, "membot_read", map[string]any{"logical_path": "/notes/x.md"})
	eq(t, "content", d["content"], text)
	eq(t, "logical_path", d["logical_path"], "notes/x.md")
	eq(t, "version_id", d["version_id"], v)
	eq(t, "current", d["version_is_current"], true)
	eq(t, "size", d["size_bytes"], float64(len(text)))
	eq(t, "mime", d["mime_type"], "text/markdown")
	eq(t, "blob_available", d["blob_available"], false)
	eq(t, "bytes_skipped", d["bytes_skipped"], false)
	if !strings.Contains(d["description"].(string), "Title") {
		t.Errorf("description = %q", d["description"])
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"offset": 2, "limit": 2}, "line 2\nline 3"},
		{map[string]any{"offset": 4}, "line 4\n"},
		{map[string]any{"limit": 1}, "# Title"},
		{map[string]any{"offset": 5}, ""}, // the empty line after the trailing newline
		{map[string]any{"offset": 99}, ""},
	} {
		tc.args["logical_path"] = "notes/x.md"
		eq(t, "lines", data(k, "membot_read", tc.args)["content"], tc.want)
	}
}

// TestReadVersions: version names an older version (also of a path
// deleted since), which is not current; a deletion itself and an unknown
// version are not_found with a hint.
func TestReadVersions(t *testing.T) {
	k := testkit.New(t)
	v1 := put(k, "a.md", "first")
	v2 := put(k, "a.md", "second")
	d := data(k, "membot_read", map[string]any{"logical_path": "a.md", "version": v1})
	eq(t, "old content", d["content"], "first")
	eq(t, "old not current", d["version_is_current"], false)
	eq(t, "named current", data(k, "membot_read", map[string]any{"logical_path": "a.md", "version": v2})["version_is_current"], true)

	tomb := remove(k, projectSpace, "a.md")
	e := failWith(k, "membot_read", map[string]any{"logical_path": "a.md"}, baton.ErrNotFound, "not_found")
	if !strings.Contains(e.Hint, "version") {
		t.Errorf("hint %q does not point to the versions", e.Hint)
	}
	d = data(k, "membot_read", map[string]any{"logical_path": "a.md", "version": v2})
	eq(t, "deleted path's version", d["content"], "second")
	eq(t, "deleted path's version current", d["version_is_current"], false)
	failWith(k, "membot_read", map[string]any{"logical_path": "a.md", "version": tomb}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_read", map[string]any{"logical_path": "a.md", "version": "2001-01-01T00:00:00.000Z"}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_read", map[string]any{"logical_path": "a.md", "version": "yesterday"}, baton.ErrNotFound, "not_found")
}

// TestReadErrors: a missing path is not_found, bytes=true is not_found
// (no original bytes), a malformed path is input_error, out-of-range
// lines are refused by the schema; every error has a hint.
func TestReadErrors(t *testing.T) {
	k := testkit.New(t)
	put(k, "a.md", "text")
	failWith(k, "membot_read", map[string]any{"logical_path": "missing.md"}, baton.ErrNotFound, "not_found")
	e := failWith(k, "membot_read", map[string]any{"logical_path": "a.md", "bytes": true}, baton.ErrNotFound, "not_found")
	if !strings.Contains(e.Message, "no original bytes") || !strings.Contains(e.Hint, "bytes") {
		t.Errorf("bytes error = %v", e)
	}
	for _, p := range []string{"a/../b.md", "a//b.md", "/"} {
		failWith(k, "membot_read", map[string]any{"logical_path": p}, baton.ErrInvalidInput, "input_error")
	}
	for _, args := range []map[string]any{
		{"logical_path": "a.md", "offset": 0}, {"logical_path": "a.md", "limit": 0},
		{"logical_path": ""}, {}, {"logical_path": "a.md", "version": strings.Repeat("9", 65)},
	} {
		failWith(k, "membot_read", args, baton.ErrInvalidInput, "invalid_input")
	}
	// raw only changes the CLI's rendering.
	eq(t, "raw", data(k, "membot_read", map[string]any{"logical_path": "a.md", "raw": true})["content"], "text")
}

// TestReadProjectOverGlobal: a path the project holds reads from the
// project; one only the global space holds reads from there, versions
// included; with no project to name, the session reads the global space.
func TestReadProjectOverGlobal(t *testing.T) {
	k := testkit.New(t)
	g1 := putGlobal(k, "guide.md", "global v1")
	putGlobal(k, "guide.md", "global v2")
	putGlobal(k, "only-global.md", "global only")
	// A version id is the instant of the write, to the millisecond, per
	// path and space: the project's copy, written in g1's millisecond,
	// would have g1 for its id too, and the read by id below would find it.
	for time.Now().UTC().Format(baton.VersionLayout) <= g1 {
		time.Sleep(time.Millisecond)
	}
	put(k, "guide.md", "project copy")

	eq(t, "shadowed", data(k, "membot_read", map[string]any{"logical_path": "guide.md"})["content"], "project copy")
	eq(t, "global only", data(k, "membot_read", map[string]any{"logical_path": "only-global.md"})["content"], "global only")
	d := data(k, "membot_read", map[string]any{"logical_path": "guide.md", "version": g1})
	eq(t, "global version by id", d["content"], "global v1")
	eq(t, "global version not current", d["version_is_current"], false)

	twoProjects(k)
	eq(t, "global session", data(k, "membot_read", map[string]any{"logical_path": "guide.md"})["content"], "global v2")
}

// TestReadToolsThroughCLI: the CLI takes the product's positional
// arguments: `baton membot read notes/x.md --offset 2 --limit 2`, `baton
// membot ls [prefix]`, `baton membot diff PATH A [B]`.
func TestReadToolsThroughCLI(t *testing.T) {
	testkit.SQLiteOnly(t)
	ctx := context.Background()
	run, db := cliOnNewDatabase(t)
	s, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, text := range []string{"one\ntwo", "one\ntwo\nthree\nfour"} {
		d := &baton.Document{DocKey: baton.DocKey{DocSpace: projectSpace, Path: "notes/x.md"}, Content: text, UpdatedBy: "user"}
		if err := s.Update(ctx, func(tx baton.Tx) error { return knowledge.Write(ctx, tx, nil, d, nil) }); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, d.Version)
	}
	s.Close()

	decode := func(args ...string) map[string]any {
		t.Helper()
		code, out, errs := run(append(args, "--json")...)
		var m map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
			t.Fatalf("%v: exit %d, %q %q", args, code, out, errs)
		}
		return m["data"].(map[string]any)
	}
	eq(t, "read", decode("membot", "read", "notes/x.md", "--offset", "2", "--limit", "2")["content"], "two\nthree")
	eq(t, "ls", strs(decode("membot", "ls", "notes/")["entries"], "logical_path"), []string{"notes/x.md"})
	eq(t, "diff", decode("membot", "diff", "notes/x.md", versions[0])["diff"],
		"--- "+versions[0]+"\n+++ "+versions[1]+"\n one\n two\n+three\n+four")
	eq(t, "versions", decode("membot", "versions", "notes/x.md")["versions"].([]any)[0].(map[string]any)["version_id"], versions[1])
	if code, _, errs := run("membot", "read", "notes/missing.md"); code == 0 || !strings.Contains(errs, "not_found") && !strings.Contains(errs, "ERR_NOT_FOUND") {
		t.Errorf("missing read: exit %d, %s", code, errs)
	}
}
