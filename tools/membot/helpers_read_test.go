package membot_test

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
	"github.com/baton-dev/baton/tools/membot"
)

// The spaces the read tests write to: the test project's (the session's
// own space, since it is the only project) and the global one.
var (
	projectSpace = baton.DocSpace{Scope: baton.ScopeProject, Project: testkit.Project}
	globalSpace  = baton.DocSpace{Scope: baton.ScopeGlobal}
)

// put writes content at path in the test project's space, chunked and
// embedded as a tool write would, and returns the new version id.
func put(k *testkit.Kit, path, content string) string {
	k.T.Helper()
	return putIn(k, projectSpace, path, content)
}

// putGlobal writes content at path in the global space.
func putGlobal(k *testkit.Kit, path, content string) string {
	k.T.Helper()
	return putIn(k, globalSpace, path, content)
}

func putIn(k *testkit.Kit, s baton.DocSpace, path, content string) string {
	k.T.Helper()
	return putDoc(k, s, path, content, "text/markdown")
}

// putDoc writes content of a mime type at path in s.
func putDoc(k *testkit.Kit, s baton.DocSpace, path, content, mime string) string {
	k.T.Helper()
	ctx := context.Background()
	d := &baton.Document{DocKey: baton.DocKey{DocSpace: s, Path: path}, Content: content,
		ContentType: mime, UpdatedBy: "agent-alice"}
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return knowledge.Write(ctx, tx, k.Env.Embed(), d, nil)
	}); err != nil {
		k.T.Fatalf("write %s: %v", path, err)
	}
	return d.Version
}

// remove writes a tombstone at path in s and returns its version id.
func remove(k *testkit.Kit, s baton.DocSpace, path string) string {
	k.T.Helper()
	ctx := context.Background()
	var v *baton.DocumentVersion
	if err := k.Store.Update(ctx, func(tx baton.Tx) (err error) {
		v, err = tx.DeleteDocument(ctx, baton.DocKey{DocSpace: s, Path: path}, "", "agent-alice")
		return err
	}); err != nil {
		k.T.Fatalf("delete %s: %v", path, err)
	}
	return v.Version
}

// data calls a membot operation that must succeed and returns its data,
// checking the envelope {is_error: false, data: {...}}.
func data(k *testkit.Kit, name string, args any) map[string]any {
	k.T.Helper()
	out := k.OK(name, args)
	d, ok := out["data"].(map[string]any)
	if out["is_error"] != false || !ok || len(out) != 2 {
		k.T.Fatalf("%s: not the envelope {is_error: false, data}: %v", name, out)
	}
	return d
}

// failWith calls a tool that must fail with code and membot's error_type,
// and with a hint saying what to do next; it returns the error.
func failWith(k *testkit.Kit, name string, args any, code, errorType string) *baton.Error {
	k.T.Helper()
	e := k.Fail(name, args, code)
	if got := e.ErrorType(); got != errorType {
		k.T.Fatalf("%s(%v): error_type %q, want %q (%v)", name, args, got, errorType, e)
	}
	if strings.TrimSpace(e.Hint) == "" {
		k.T.Fatalf("%s(%v): no next_action_hint: %v", name, args, e)
	}
	return e
}

// strs turns a decoded JSON array into strings of one field of each
// element (or of the elements themselves when field is "").
func strs(v any, field string) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		if field == "" {
			out = append(out, e.(string))
			continue
		}
		s, _ := e.(map[string]any)[field].(string)
		out = append(out, s)
	}
	return out
}

// twoProjects makes the session's space the global one: with two
// projects and none named, the tools write and read globally.
func twoProjects(k *testkit.Kit) {
	k.T.Helper()
	k.AddProject("heron", "HER")
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equal(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func equal(a, b any) bool {
	if x, ok := a.([]string); ok {
		y, ok := b.([]string)
		return ok && slices.Equal(x, y)
	}
	return reflect.DeepEqual(a, b)
}

// specOf is the spec of a membot tool.
func specOf(t *testing.T, name string) *tool.Spec {
	t.Helper()
	for _, tl := range membot.All() {
		if tl.Spec().Name == name {
			return tl.Spec()
		}
	}
	t.Fatalf("no membot tool %s", name)
	return nil
}

// readTools are the tools of this file's tests, with their CLI arguments.
var readTools = map[string][]string{
	"membot_list": {"prefix"}, "membot_tree": {"prefix"}, "membot_read": {"logical_path"},
	"membot_search": {"query"}, "membot_info": {"logical_path"}, "membot_stats": {"prefix"},
	"membot_versions": {"logical_path"}, "membot_diff": {"logical_path", "a", "b"}, "membot_sources": nil,
	"membot_exists": {"logical_path"}, "membot_count_lines": {"logical_path"},
}

// TestReadToolsDefinitions: every read tool is registered in the membot
// toolset, read-only, for every profile, with the product's positional
// CLI arguments; membot_list is also ls.
func TestReadToolsDefinitions(t *testing.T) {
	for name, args := range readTools {
		s := specOf(t, name)
		if s.Toolset != membot.Toolset || !s.Annotations.ReadOnly || s.Annotations.Destructive {
			t.Errorf("%s: toolset %q, annotations %+v", name, s.Toolset, s.Annotations)
		}
		if !slices.Equal(s.Profiles, tool.Profiles) {
			t.Errorf("%s: profiles %v, want every profile %v", name, s.Profiles, tool.Profiles)
		}
		if !slices.Equal(s.Args, args) {
			t.Errorf("%s: CLI arguments %v, want %v", name, s.Args, args)
		}
	}
	if v := specOf(t, "membot_list").Verbs; !slices.Equal(v, []string{"ls"}) {
		t.Errorf("membot_list verbs = %v, want [ls]", v)
	}
}

// cliOnNewDatabase runs baton's CLI in-process on a new SQLite database,
// initialised with the test project, and returns a runner giving the exit
// code, stdout and stderr of each command, and the database's file.
func cliOnNewDatabase(t *testing.T) (run func(args ...string) (int, string, string), db string) {
	t.Helper()
	ctx := context.Background()
	db = filepath.Join(t.TempDir(), "b.db")
	env := map[string]string{"BATON_DB": db}
	run = func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return env[k] }}
		return app.Run(ctx, args), out.String(), errb.String()
	}
	if code, out, errs := run("init", "--project", testkit.Project, "--prefix", testkit.Prefix); code != 0 {
		t.Fatalf("init: %d %s %s", code, out, errs)
	}
	return run, db
}
