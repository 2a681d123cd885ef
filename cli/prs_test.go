package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	core "github.com/baton-dev/baton"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/sqlite"
)

// prFixture is a database in a git repository with one todo issue, its
// worktree, and a commit on the issue's branch.
func prFixture(t *testing.T) (env map[string]string, repo, id, wt string) {
	t.Helper()
	env, repo = repoDB(t)
	id = issueAt(t, env, "Add a cache", "todo")
	if r := baton(t, env, "worktree", "create", id); r.code != 0 {
		t.Fatalf("worktree create: %+v", r)
	}
	wt = filepath.Join(repo, ".symphony-workspaces", id)
	if err := os.WriteFile(filepath.Join(wt, "cache.go"), []byte("package shop\n\n// Cache caches.\ntype Cache struct{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, wt, "add", "cache.go")
	gitIn(t, wt, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "cache")
	return env, repo, id, wt
}

// configureGates stores the project's gates as configure_project does.
func configureGates(t *testing.T, env map[string]string, gates ...core.Gate) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, env["BATON_DB"], sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(ctx, func(tx core.Tx) error {
		c, err := tx.ProjectConfig(ctx, "colibri")
		if err != nil {
			return err
		}
		c.Gates, c.UpdatedBy = gates, "user"
		return tx.PutProjectConfig(ctx, c)
	}); err != nil {
		t.Fatal(err)
	}
}

func createPR(t *testing.T, env map[string]string, id string) map[string]any {
	t.Helper()
	r := baton(t, env, "review", "create_pr", "--issue-id", id, "--diff", "pasted", "--branch-name", "symphony/"+id,
		"--base-branch", "main", "--json")
	var out map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("create_pr: %+v", r)
	}
	return out
}

// TestPRsListAndShow: `baton prs` lists the PR records with status, risk,
// size and gates; `baton pr show` prints one with its files and git's
// diff; both have --json; unknown ids and bad filters are said.
func TestPRsListAndShow(t *testing.T) {
	env, _, id, _ := prFixture(t)
	if r := baton(t, env, "prs"); r.code != 0 || r.stdout != "no PR records\n" {
		t.Fatalf("prs on none = %+v", r)
	}
	out := createPR(t, env, id)
	if out["pr_id"] != "PR-1" || out["issue_status"] != "review" {
		t.Fatalf("create_pr = %v", out)
	}
	r := baton(t, env, "prs")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") ||
		!strings.Contains(lines[1], "PR-1") || !strings.Contains(lines[1], id) || !strings.Contains(lines[1], "open") ||
		!strings.Contains(lines[1], "low") || !strings.Contains(lines[1], "+4 -0") || !strings.Contains(lines[1], "symphony/"+id) {
		t.Fatalf("prs = %+v", r)
	}
	r = baton(t, env, "prs", "--json", "--status", "open", "--issue", id)
	var list struct {
		PRs   []map[string]any `json:"prs"`
		Count int              `json:"count"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || list.Count != 1 || list.PRs[0]["id"] != "PR-1" ||
		list.PRs[0]["lines_added"] != float64(4) || list.PRs[0]["risk"].(map[string]any)["level"] != "low" {
		t.Fatalf("prs --json = %+v", r)
	}
	if r := baton(t, env, "prs", "--status", "approved"); r.code != 0 || r.stdout != "no PR records\n" {
		t.Fatalf("prs --status approved = %+v", r)
	}
	for _, ref := range []string{"PR-1", "pr-1", "1"} {
		r = baton(t, env, "pr", "show", ref)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "PR-1  "+id+"  open\n") || !strings.Contains(r.stdout, "added  +4 -0  cache.go") ||
			!strings.Contains(r.stdout, "diff --git a/cache.go b/cache.go\n") || !strings.Contains(r.stdout, "+type Cache struct{}") ||
			strings.Contains(r.stdout, "pasted") {
			t.Fatalf("pr show %s = %+v", ref, r)
		}
	}
	r = baton(t, env, "pr", "show", "PR-1", "--json", "--no-diff")
	var shown map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &shown) != nil || shown["diff"] != nil ||
		shown["pr"].(map[string]any)["issue"] != id || len(shown["files"].([]any)) != 1 {
		t.Fatalf("pr show --json --no-diff = %+v", r)
	}
	for _, tc := range []struct {
		args []string
		exit int
		says string
	}{
		{[]string{"pr", "show", "PR-9"}, cli.ExitTool, `PR "PR-9" does not exist`},
		{[]string{"pr", "show"}, cli.ExitUsage, "baton pr show takes one PR id (PR-7, or 7), not 0 arguments"},
		{[]string{"pr", "gates", "1", "2"}, cli.ExitUsage, "baton pr gates takes one PR id"},
		{[]string{"prs", "--status", "merged,nope"}, cli.ExitUsage, `--status "nope" is not a PR status`},
		{[]string{"prs", "--issue", "COL-99"}, cli.ExitTool, "ERR_TASK_NOT_FOUND"},
	} {
		if r := baton(t, env, tc.args...); r.code != tc.exit || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%v = %+v, want exit %d saying %q", tc.args, r, tc.exit, tc.says)
		}
	}
}

// TestPRGatesRunForReal: `baton pr gates` runs the configured commands in
// a clean checkout of the PR's commit (a fix left uncommitted in the
// worktree does not count), records exit code and output on the PR (replacing
// the gate reported with the same label), logs the run and publishes
// pr.gates_run; a failed required gate exits 1 and blocks approve_pr,
// and once the gates pass approval goes through.
func TestPRGatesRunForReal(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no POSIX shell to run gate commands")
	}
	env, _, id, wt := prFixture(t)
	r := baton(t, env, "review", "create_pr", "--issue-id", id, "--diff", "x", "--branch-name", "symphony/"+id, "--base-branch", "main",
		"--gate-results", `[{"command":"true","label":"Tests","exit_code":0,"output":"all green (reported)"}]`, "--json")
	if r.code != 0 {
		t.Fatalf("create_pr with gates: %+v", r)
	}
	if r := baton(t, env, "pr", "gates", "PR-1"); r.code != cli.ExitTool || !strings.Contains(r.stderr, "configures no gates") {
		t.Fatalf("gates with none configured = %+v", r)
	}
	configureGates(t, env,
		core.Gate{Command: "test -f cache.go && echo cache present", Label: "Tests", Required: true},
		core.Gate{Command: "test -f docs.md || { echo docs missing >&2; exit 3; }", Label: "Docs", Required: true})
	r = baton(t, env, "pr", "gates", "PR-1")
	if r.code != cli.ExitTool || !strings.Contains(r.stdout, "Tests: passed") || !strings.Contains(r.stdout, "Docs: failed (exit 3)") ||
		!strings.Contains(r.stdout, "  | docs missing") || !strings.Contains(r.stdout, "PR-1 gates: 1/2 passed, blocked by Docs") {
		t.Fatalf("pr gates = %+v", r)
	}
	r = baton(t, env, "pr", "show", "PR-1", "--json", "--no-diff")
	var shown struct {
		PR struct {
			Gates    []core.GateResult `json:"gate_results"`
			Blocking []string          `json:"blocking_gates"`
		} `json:"pr"`
	}
	if json.Unmarshal([]byte(r.stdout), &shown) != nil || len(shown.PR.Gates) != 2 || shown.PR.Gates[0].Source != "run" ||
		shown.PR.Gates[0].Output != "cache present" || !slices.Equal(shown.PR.Blocking, []string{"Docs"}) {
		t.Fatalf("recorded gates = %+v", r)
	}
	if r := baton(t, env, "review", "approve_pr", "--issue-id", id); r.code != cli.ExitTool || !strings.Contains(r.stderr, "required gate Docs (exit 3) did not pass") {
		t.Fatalf("approve with a failed gate = %+v", r)
	}
	// The fix lands in the worktree, uncommitted: the gates run on the
	// PR's commit, so they still fail.
	if err := os.WriteFile(filepath.Join(wt, "docs.md"), []byte("# docs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := baton(t, env, "pr", "gates", "PR-1"); r.code != cli.ExitTool || !strings.Contains(r.stdout, "Docs: failed (exit 3)") {
		t.Fatalf("gates with the fix uncommitted = %+v", r)
	}
	// Committed and in a new PR, the gates run again and pass.
	gitIn(t, wt, "add", "docs.md")
	gitIn(t, wt, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "docs")
	if r := baton(t, env, "review", "reject_pr", "--issue-id", id, "--reason", "docs gate", "--fix-instructions", "add docs"); r.code != 0 {
		t.Fatalf("reject_pr = %+v", r)
	}
	createPR(t, env, id)
	r = baton(t, env, "pr", "gates", "2", "--json", "--timeout", "1m")
	var ran struct {
		Gates    []core.GateResult `json:"gate_results"`
		Blocking []string          `json:"blocking_gates"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &ran) != nil || len(ran.Gates) != 2 || len(ran.Blocking) != 0 {
		t.Fatalf("pr gates --json = %+v", r)
	}
	if r := baton(t, env, "review", "approve_pr", "--issue-id", id, "--reason", "gates pass"); r.code != 0 {
		t.Fatalf("approve = %+v", r)
	}
	if r := baton(t, env, "pr", "gates", "PR-2"); r.code != cli.ExitTool || !strings.Contains(r.stderr, "PR-2 is approved: gates are run on an open PR") {
		t.Fatalf("gates on an approved PR = %+v", r)
	}
	acts := actionsOf(t, env)
	if n := len(slices.DeleteFunc(slices.Clone(acts), func(a string) bool { return a != "pr_gates "+id+" user" })); n != 3 {
		t.Errorf("actions = %q, want three pr_gates", acts)
	}
	var types []string
	for _, e := range eventsOf(t, env, "pr.", 7) {
		if typ := e["type"].(string); strings.HasPrefix(typ, "pr.") {
			types = append(types, typ)
		}
	}
	if !slices.Equal(types, []string{"pr.created", "pr.gates_run", "pr.gates_run", "pr.rejected", "pr.created", "pr.gates_run", "pr.approved"}) {
		t.Errorf("events = %q", types)
	}
}

// TestPRCycleThroughCLI: the whole review through the CLI: PR, rejection
// with fix instructions (the issue back to todo, the instructions on the
// issue), rework, second PR superseding the first, approval.
func TestPRCycleThroughCLI(t *testing.T) {
	env, _, id, wt := prFixture(t)
	createPR(t, env, id)
	r := baton(t, env, "review", "reject_pr", "--issue-id", id, "--reason", "no docs", "--fix-instructions", "document Cache", "--json")
	var rej map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rej) != nil || rej["issue_status"] != "todo" || rej["status"] != "rejected" {
		t.Fatalf("reject_pr = %+v", r)
	}
	r = baton(t, env, "issues", "get_issue", "--issue-id", id, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"fix_instructions":"document Cache"`) ||
		!strings.Contains(r.stdout, "Fix instructions:\\ndocument Cache") {
		t.Fatalf("get_issue after rejection = %+v", r)
	}
	if err := os.WriteFile(filepath.Join(wt, "cache.go"), []byte("package shop\n\n// Cache caches results; safe for one goroutine.\ntype Cache struct{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, wt, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "docs")
	out := createPR(t, env, id)
	if out["pr_id"] != "PR-2" || !slices.Equal(out["superseded"].([]any), []any{"PR-1"}) {
		t.Fatalf("second create_pr = %v", out)
	}
	if r := baton(t, env, "review", "approve_pr", "--issue-id", id); r.code != 0 {
		t.Fatalf("approve_pr = %+v", r)
	}
	r = baton(t, env, "prs", "--issue", id, "--json")
	var list struct{ PRs []map[string]any }
	_ = json.Unmarshal([]byte(r.stdout), &list)
	var got []string
	for _, p := range list.PRs {
		got = append(got, p["id"].(string)+":"+p["status"].(string))
	}
	if !slices.Equal(got, []string{"PR-2:approved", "PR-1:superseded"}) {
		t.Fatalf("prs = %v", got)
	}
}
