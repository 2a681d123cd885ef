package membot_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/membot"
)

// wToolDefs are the write tools: their default profiles, whether they are
// destructive, their CLI arguments and verbs, and whether they answer flat
// (Botholomew's wrappers) rather than in the {is_error, data} envelope.
var wToolDefs = []struct {
	name        string
	workerOnly  bool
	destructive bool
	args, verbs []string
	flat        bool
}{
	{"membot_add", false, false, []string{"sources"}, nil, false},
	{"membot_write", false, false, []string{"logical_path"}, nil, false},
	{"membot_move", true, true, []string{"from_logical_path", "to_logical_path"}, []string{"mv"}, false},
	{"membot_remove", true, true, []string{"paths"}, []string{"rm"}, false},
	{"membot_delete", true, true, []string{"paths"}, nil, false},
	{"membot_refresh", false, false, []string{"logical_path"}, nil, false},
	{"membot_prune", true, true, nil, nil, false},
	{"membot_edit", false, false, []string{"logical_path"}, nil, true},
	{"membot_copy", false, false, []string{"from_logical_path", "to_logical_path"}, []string{"cp"}, true},
}

func TestWriteToolsDefinitions(t *testing.T) {
	for _, d := range wToolDefs {
		s := specOf(t, d.name)
		if s.Toolset != membot.Toolset || s.Annotations.ReadOnly || s.Annotations.Idempotent || s.Annotations.Destructive != d.destructive {
			t.Errorf("%s: toolset %q, annotations %+v", d.name, s.Toolset, s.Annotations)
		}
		want := tool.Profiles
		if d.workerOnly {
			want = []string{"worker"}
		}
		if !slices.Equal(s.Profiles, want) {
			t.Errorf("%s: profiles %v, want %v", d.name, s.Profiles, want)
		}
		if !slices.Equal(s.Args, d.args) || !slices.Equal(s.Verbs, d.verbs) {
			t.Errorf("%s: CLI arguments %v verbs %v, want %v %v", d.name, s.Args, s.Verbs, d.args, d.verbs)
		}
		_, enveloped := s.OutputSchema().Properties["data"]
		_, isError := s.OutputSchema().Properties["is_error"]
		if !isError || enveloped == d.flat {
			t.Errorf("%s: output properties %v (flat %v)", d.name, s.OutputSchema().PropertyOrder, d.flat)
		}
	}
}

// A worker profile gets the destructive store tools; a researcher (whose
// default tools are the non-destructive ones) does not.
func TestDestructiveToolsAreWorkerTools(t *testing.T) {
	k := wKit(t)
	wWrite(k, "a.md", "a")
	researcher := k.As("agent-r")
	researcher.Principal.Profile = "researcher"
	researcher.Principal.Source = baton.SourceStdio
	worker := k.As("agent-w")
	worker.Principal.Profile = "worker"
	worker.Principal.Source = baton.SourceStdio
	for _, d := range wToolDefs {
		if !d.workerOnly {
			continue
		}
		if res := researcher.Call(d.name, map[string]any{}); res.Err == nil || res.Err.Code != baton.ErrPermissionDenied {
			t.Errorf("%s as a researcher: %s", d.name, res.Text)
		}
		if res := worker.Call(d.name, map[string]any{}); res.Err != nil && res.Err.Code == baton.ErrPermissionDenied {
			t.Errorf("%s as a worker: %s", d.name, res.Text)
		}
	}
	researcher.OK("membot_write", map[string]any{"logical_path": "b.md", "content": "b"})
	researcher.OK("membot_copy", map[string]any{"from_logical_path": "a.md", "to_logical_path": "c.md"})
}

// TestWriteToolsThroughCLI: the CLI takes the product's positional
// arguments and verbs: `baton membot write PATH --content ...`, `cp`,
// `mv`, `rm PATHS...`, `add SOURCES...`.
func TestWriteToolsThroughCLI(t *testing.T) {
	testkit.SQLiteOnly(t)
	ctx := context.Background()
	run, db := cliOnNewDatabase(t)
	decode := func(args ...string) map[string]any {
		t.Helper()
		code, out, errs := run(append(args, "--json")...)
		var m map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
			t.Fatalf("%v: exit %d, %q %q", args, code, out, errs)
		}
		return m
	}
	data := func(args ...string) map[string]any { return decode(args...)["data"].(map[string]any) }

	if d := data("membot", "write", "notes/x.md", "--content", "one\ntwo"); d["logical_path"] != "notes/x.md" {
		t.Fatalf("write %v", d)
	}
	// A second write is a conflict: exit 1 with path_conflict.
	if code, out, _ := run("membot", "write", "notes/x.md", "--content", "three", "--json"); code == 0 || !strings.Contains(out, "path_conflict") {
		t.Fatalf("conflict: exit %d %s", code, out)
	}
	data("membot", "write", "notes/x.md", "--content", "one\ntwo\nthree", "--on-conflict", "overwrite")
	if d := decode("membot", "edit", "notes/x.md", "--patches", `[{"start_line":2,"end_line":2,"content":"2"}]`); d["version_id"] == nil {
		t.Fatalf("edit %v", d)
	}
	if d := decode("membot", "cp", "notes/x.md", "notes/y.md"); d["to_logical_path"] != "notes/y.md" {
		t.Fatalf("cp %v", d)
	}
	if d := data("membot", "mv", "notes/y.md", "notes/z.md"); d["to_logical_path"] != "notes/z.md" {
		t.Fatalf("mv %v", d)
	}
	if d := data("membot", "add", "inline:first", "inline:second", "--logical-path", "batch"); d["ok"] != float64(2) {
		t.Fatalf("add %v", d)
	}
	if d := data("membot", "rm", "notes/z.md", "batch/**"); d["ok"] != float64(3) {
		t.Fatalf("rm %v", d)
	}
	if d := data("membot", "refresh", "notes/x.md"); d["count"] != float64(1) {
		t.Fatalf("refresh %v", d)
	}
	if d := data("membot", "prune", "--before", "1d"); d["dry_run"] != true {
		t.Fatalf("prune %v", d)
	}

	s, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.View(ctx, func(tx baton.Tx) error {
		d, err := tx.Document(ctx, baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeProject, Project: testkit.Project}, Path: "notes/x.md"}, "")
		if err != nil {
			return err
		}
		if d.Content != "one\n2\nthree" || d.UpdatedBy != baton.User {
			t.Errorf("notes/x.md %q by %s", d.Content, d.UpdatedBy)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
