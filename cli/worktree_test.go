package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	core "github.com/baton-dev/baton"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tools"
)

// repoDB is a database at the top of a fresh git repository, with the
// project colibri (COL) rooted there, as baton init makes it.
func repoDB(t *testing.T) (env map[string]string, repo string) {
	t.Helper()
	repo = gitRepo(t)
	env = map[string]string{"BATON_DB": filepath.Join(repo, ".baton", "baton.db")}
	if r := baton(t, env, "init", "--project", "colibri", "--prefix", "COL"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	return env, repo
}

// issueAt creates an issue and walks it to status.
func issueAt(t *testing.T, env map[string]string, title string, path ...string) string {
	t.Helper()
	r := baton(t, env, "tasks", "task_create", "--title", title, "--project", "colibri", "--json")
	var out map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("create: %+v", r)
	}
	id := out["task_id"].(string)
	for _, s := range path {
		if r := baton(t, env, "tasks", "task_update", "--task-id", id, "--status", s); r.code != 0 {
			t.Fatalf("%s -> %s: %+v", id, s, r)
		}
	}
	return id
}

func actionsOf(t *testing.T, env map[string]string) []string {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, env["BATON_DB"], sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []string
	err = s.View(ctx, func(tx core.Tx) error {
		as, err := tx.Actions(ctx, 0, 1000)
		for _, a := range as {
			out = append(out, a.Tool+" "+a.Subject+" "+a.Agent)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// eventsOf is what `baton watch --json` prints for the project once it
// has printed n events of types starting with prefix (or 20 s passed):
// the events as every watcher sees them.
func eventsOf(t *testing.T, env map[string]string, prefix string, n int) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(""), Stdout: out, Stderr: &bytes.Buffer{},
			Getenv: func(k string) string { return env[k] }}
		done <- app.Run(ctx, []string{"watch", "--json", "--every", "10ms"})
	}()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var evs []map[string]any
		seen := 0
		for _, line := range strings.Split(out.String(), "\n") {
			var e map[string]any
			if json.Unmarshal([]byte(line), &e) == nil {
				evs = append(evs, e)
				if typ, _ := e["type"].(string); strings.HasPrefix(typ, prefix) {
					seen++
				}
			}
		}
		if seen >= n || time.Now().After(deadline) {
			return evs
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWorktreeCreate(t *testing.T) {
	env, repo := repoDB(t)
	id := issueAt(t, env, "Add a cache", "todo")
	r := baton(t, env, "worktree", "create", id)
	dir := filepath.Join(repo, ".symphony-workspaces", id)
	want := "created the worktree of COL-1: " + dir + "\nbranch symphony/COL-1 (base main); marker .symphony-worktree\n" +
		"start the agent there: cd " + dir + " && baton mcp --issue-id COL-1 --worktree-path " + dir + "\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("create = %+v\nwant stdout %q", r, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".symphony-worktree"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["issue"] != "COL-1" || m["project"] != "colibri" || m["path"] != dir ||
		m["branch"] != "symphony/COL-1" || m["base_branch"] != "main" {
		t.Fatalf("marker = %s (%v)", b, err)
	}
	// Again: the same worktree, reused; --json says so.
	r = baton(t, env, "worktree", "create", id, "--json", "--run-id", "run-2")
	var out struct {
		Worktree map[string]any `json:"worktree"`
		Marker   string         `json:"marker"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Worktree["reused"] != true || out.Worktree["path"] != dir ||
		out.Marker != filepath.Join(dir, ".symphony-worktree") {
		t.Fatalf("second create = %+v", r)
	}
	// Every creation is an action and an event.
	acts := actionsOf(t, env)
	if n := len(slices.DeleteFunc(slices.Clone(acts), func(a string) bool { return a != "worktree_create COL-1 user" })); n != 2 {
		t.Errorf("actions = %q, want two worktree_create", acts)
	}
	var types []string
	for _, e := range eventsOf(t, env, "worktree.", 2) {
		if strings.HasPrefix(e["type"].(string), "worktree.") {
			types = append(types, e["type"].(string)+" "+e["subject"].(string))
			if data, _ := e["data"].(map[string]any); data["path"] != dir {
				t.Errorf("event data = %v", e["data"])
			}
		}
	}
	if !slices.Equal(types, []string{"worktree.created COL-1", "worktree.reused COL-1"}) {
		t.Errorf("events = %q", types)
	}
}

func TestWorktreeCreateRefusals(t *testing.T) {
	env, repo := repoDB(t)
	done := issueAt(t, env, "Finished", "todo", "in_progress", "review", "done")
	open := issueAt(t, env, "Open", "todo")
	for _, tc := range []struct {
		args []string
		exit int
		says string
	}{
		{[]string{"worktree", "create"}, cli.ExitUsage, "takes one issue id"},
		{[]string{"worktree", "create", "COL-1", "COL-2"}, cli.ExitUsage, "takes one issue id"},
		{[]string{"worktree", "create", "COL-99"}, cli.ExitTool, "ERR_TASK_NOT_FOUND"},
		{[]string{"worktree", "create", done}, cli.ExitTool, "COL-1 is done: a finished issue gets no worktree"},
		{[]string{"worktree", "create", open, "--base", "nope"}, cli.ExitUsage, `the base branch "nope" does not exist`},
	} {
		r := baton(t, env, tc.args...)
		if r.code != tc.exit || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%v = %+v, want exit %d saying %q", tc.args, r, tc.exit, tc.says)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".symphony-workspaces", open)); !os.IsNotExist(err) {
		t.Error("a refused create left a worktree")
	}
	if acts := actionsOf(t, env); slices.ContainsFunc(acts, func(a string) bool { return strings.HasPrefix(a, "worktree_") }) {
		t.Errorf("a refused create was recorded: %q", acts)
	}
	// --json failures are the envelope.
	r := baton(t, env, "worktree", "create", "COL-99", "--json")
	var envl map[string]map[string]any
	if json.Unmarshal([]byte(r.stdout), &envl) != nil || envl["error"]["code"] != "ERR_TASK_NOT_FOUND" {
		t.Errorf("--json failure = %+v", r)
	}
	// Outside git, the project's root is no repository: said, not crashed.
	plain := map[string]string{"BATON_DB": filepath.Join(t.TempDir(), ".baton", "baton.db")}
	if r := baton(t, plain, "init", "--project", "colibri", "--prefix", "COL"); r.code != 0 {
		t.Fatal(r)
	}
	id := issueAt(t, plain, "x", "todo")
	if r := baton(t, plain, "worktree", "create", id); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "not inside a git repository") {
		t.Errorf("create outside git = %+v", r)
	}
}

func TestWorktreeListAndPrune(t *testing.T) {
	env, repo := repoDB(t)
	working := issueAt(t, env, "Still working", "todo")
	merged := issueAt(t, env, "Merged", "todo")
	dropped := issueAt(t, env, "Dropped with work left", "todo")
	for _, id := range []string{working, merged, dropped} {
		if r := baton(t, env, "worktree", "create", id); r.code != 0 {
			t.Fatalf("create %s: %+v", id, r)
		}
	}
	wt := func(id string) string { return filepath.Join(repo, ".symphony-workspaces", id) }
	// Work committed on the merged issue's branch, uncommitted work left on
	// the cancelled one.
	if err := os.WriteFile(filepath.Join(wt(merged), "cache.go"), []byte("package cache\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, wt(merged), "add", "-A")
	gitIn(t, wt(merged), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "cache")
	if err := os.WriteFile(filepath.Join(wt(dropped), "wip.txt"), []byte("half done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"in_progress", "review", "done"} {
		baton(t, env, "tasks", "task_update", "--task-id", merged, "--status", s)
	}
	baton(t, env, "tasks", "task_update", "--task-id", dropped, "--status", "cancelled")

	r := baton(t, env, "worktree", "list", "--json")
	var list struct {
		Worktrees []map[string]string `json:"worktrees"`
		Count     int                 `json:"count"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || list.Count != 3 {
		t.Fatalf("list = %+v", r)
	}
	status := map[string]string{}
	for _, w := range list.Worktrees {
		status[w["issue"]] = w["status"] + " " + w["branch"] + " " + w["path"]
	}
	if status[working] != "todo symphony/COL-1 "+wt(working) || status[merged] != "done symphony/COL-2 "+wt(merged) ||
		status[dropped] != "cancelled symphony/COL-3 "+wt(dropped) {
		t.Errorf("list = %v", status)
	}
	if r := baton(t, env, "worktree", "list"); r.code != 0 || !strings.Contains(r.stdout, "ISSUE") || !strings.Contains(r.stdout, "3 worktrees") {
		t.Errorf("list table = %+v", r)
	}

	// A dry run removes nothing.
	r = baton(t, env, "worktree", "prune", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "0 of 3 worktrees removed") || !strings.Contains(r.stdout, "would be removed: the issue is done") {
		t.Fatalf("dry run = %+v", r)
	}
	if _, err := os.Stat(wt(merged)); err != nil {
		t.Fatal("the dry run removed a worktree")
	}
	// Finished issues' clean worktrees go; the open issue's stays, and so
	// does the one with work not committed, until --force.
	r = baton(t, env, "worktree", "prune", "--json")
	var pr struct {
		Worktrees []map[string]any `json:"worktrees"`
		Removed   int              `json:"removed"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &pr) != nil || pr.Removed != 1 {
		t.Fatalf("prune = %+v", r)
	}
	for _, w := range pr.Worktrees {
		switch w["issue"] {
		case working:
			if w["removed"] != false || w["reason"] != "the issue is todo" {
				t.Errorf("open issue: %v", w)
			}
		case merged:
			if w["removed"] != true || w["reason"] != "the issue is done" {
				t.Errorf("done issue: %v", w)
			}
		case dropped:
			if w["removed"] != false || !strings.Contains(w["reason"].(string), "--force removes it anyway") {
				t.Errorf("dirty cancelled issue: %v", w)
			}
		}
	}
	if _, err := os.Stat(wt(merged)); !os.IsNotExist(err) {
		t.Error("the done issue's worktree is still there")
	}
	if _, err := os.Stat(filepath.Join(wt(dropped), "wip.txt")); err != nil {
		t.Error("prune without --force lost uncommitted work")
	}
	// The branch, with its commits, stays.
	gitIn(t, repo, "rev-parse", "--verify", "--quiet", "symphony/COL-2")
	r = baton(t, env, "worktree", "prune", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "removed COL-3") || !strings.Contains(r.stdout, "1 of 2 worktrees removed") {
		t.Fatalf("prune --force = %+v", r)
	}
	if _, err := os.Stat(wt(working)); err != nil {
		t.Error("--force removed the open issue's worktree")
	}
	acts := actionsOf(t, env)
	for _, want := range []string{"worktree_prune COL-2 user", "worktree_prune COL-3 user"} {
		if !slices.Contains(acts, want) {
			t.Errorf("actions lack %q: %q", want, acts)
		}
	}
	removed := 0
	for _, e := range eventsOf(t, env, "worktree.removed", 2) {
		if e["type"] == "worktree.removed" {
			removed++
		}
	}
	if removed != 2 {
		t.Errorf("%d worktree.removed events, want 2", removed)
	}
}
