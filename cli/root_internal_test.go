package cli

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/spf13/cobra"
)

// TestRootForMCPBuildsOnlyMCP: an agent's `baton mcp`, wherever its flags
// stand, builds the mcp command alone; every other invocation (help
// included) builds the whole tree, mcp and the tools' commands with it.
func TestRootForMCPBuildsOnlyMCP(t *testing.T) {
	names := func(args ...string) []string {
		var out []string
		for _, c := range newApp7(nil, "", io.Discard, io.Discard).root(args...).Commands() {
			out = append(out, c.Name())
		}
		return out
	}
	for _, args := range [][]string{{"mcp"}, {"mcp", "--agent", "a", "--preset", "core"}, {"--db", "x.db", "mcp"}} {
		if got := names(args...); !slices.Equal(got, []string{"mcp"}) {
			t.Errorf("root(%q) has %q, want only mcp", args, got)
		}
	}
	for _, args := range [][]string{nil, {"init"}, {"help", "mcp"}, {"mcpx"}, {"tasks", "mcp"}, {"--help"}} {
		got := names(args...)
		for _, want := range []string{"mcp", "init", "serve", "tasks", "export"} {
			if !slices.Contains(got, want) {
				t.Errorf("root(%q) lacks %s: %q", args, want, got)
			}
		}
	}
}

// TestToolFlagsOnlyForTheCommandRun: a tool's flags come from its input
// schema, built only for the command that runs (or whose help or shell
// completion is asked for); every other tool's command has only --input
// and --json, so a CLI command does not build every tool's schemas.
func TestToolFlagsOnlyForTheCommandRun(t *testing.T) {
	toolCmd := func(root *cobra.Command, path ...string) *cobra.Command {
		t.Helper()
		c, _, err := root.Find(path)
		if err != nil || c.Name() != path[len(path)-1] {
			t.Fatalf("no command %q: %v", path, err)
		}
		return c
	}
	for _, args := range [][]string{
		{"tasks", "task_create", "--title", "x"},
		{"--db", "x.db", "tasks", "task-create", "--title", "x"}, // an alias, after a root flag
		{"tasks", "task_create", "--help"},
		{"help", "tasks", "task_create"},
		{"__complete", "tasks", "task_create", "--priority", ""},
	} {
		root := newApp7(nil, "", io.Discard, io.Discard).root(args...)
		if c := toolCmd(root, "tasks", "task_create"); c.Flags().Lookup("title") == nil || c.Flags().Lookup("json") == nil {
			t.Errorf("root(%q): task_create lacks --title or --json", args)
		}
		if c := toolCmd(root, "tasks", "task_update"); c.Flags().Lookup("progress") != nil || c.Flags().Lookup("json") == nil {
			t.Errorf("root(%q): task_update, not run, has --progress or lacks --json", args)
		}
	}
	root := newApp7(nil, "", io.Discard, io.Discard).root("version")
	if c := toolCmd(root, "tasks", "task_create"); c.Flags().Lookup("title") != nil {
		t.Error("root(version) built task_create's flags")
	}
	// A tool's own --project shadows the root's, as it did when every
	// flag was defined before the tree was searched.
	root = newApp7(nil, "", io.Discard, io.Discard).root("tasks", "task_create", "--project", "p")
	if f := toolCmd(root, "tasks", "task_create").LocalFlags().Lookup("project"); f == nil || !strings.Contains(f.Usage, "required") {
		t.Errorf("task_create's --project is not its own: %+v", f)
	}
}

// TestToolHelpAndCompletionShowSchemaFlags: through Run, `help` and
// `--help` of a tool list its schema's flags and usage, and the shell
// completion of an enum flag offers the enum.
func TestToolHelpAndCompletionShowSchemaFlags(t *testing.T) {
	run := func(args ...string) string {
		var out bytes.Buffer
		if code := newApp7(nil, "", &out, io.Discard).Run(context.Background(), args); code != ExitOK {
			t.Fatalf("baton %q: exit %d: %s", args, code, out.String())
		}
		return out.String()
	}
	for _, args := range [][]string{{"help", "membot", "membot_diff"}, {"membot", "diff", "--help"}} {
		if out := run(args...); !strings.Contains(out, "membot_diff LOGICAL-PATH A [B] [flags]") || !strings.Contains(out, "--logical-path") {
			t.Errorf("baton %q lacks the usage or flags:\n%s", args, out)
		}
	}
	if out := run("__complete", "tasks", "task_update", "--status", ""); !strings.Contains(out, "in_progress\n") {
		t.Errorf("completing --status offers no statuses:\n%s", out)
	}
}

// TestAppHoldsNoCommandTree: once root has given the command that runs its
// flags, the App keeps no command, so a process that builds many trees
// (these tests do, one per Run) keeps none of them, although cobra keeps
// the App itself in its global map of flag completion functions.
func TestAppHoldsNoCommandTree(t *testing.T) {
	a := newApp7(nil, "", io.Discard, io.Discard)
	tree := weak.Make(a.root("tasks", "task_list"))
	for range 3 {
		runtime.GC()
	}
	if tree.Value() != nil {
		t.Error("the command tree outlives root: something the App holds refers to it")
	}
	runtime.KeepAlive(a)
}
