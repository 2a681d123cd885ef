package review_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/worktree"
)

// TestCreatePRBuildsFromGit: create_pr records what git says about the
// issue's branch, not the pasted diff: stats, merge base and head, the
// diff text; the issue goes to review, the worker's claim ends, and the
// call is in the action log with a pr.created event.
func TestCreatePRBuildsFromGit(t *testing.T) {
	f := setup(t)
	f.claim()
	f.Write(f.Worktree, "server/api.go", "package server\n\nfunc API() { return }\n")
	f.Write(f.Worktree, "server/new.go", "package server\n\nfunc New() {}\n")
	head := f.Commit(f.Worktree, "feature")
	base := f.Git(f.Repo, "rev-parse", "main")

	out := f.worker().OK("create_pr", f.createArgs(map[string]any{"diff": "anything the agent pasted"}))
	if out["pr_id"] != "PR-1" || out["status"] != "open" || out["issue_status"] != "review" || out["issue_id"] != f.Issue {
		t.Fatalf("create_pr: %v", out)
	}
	if out["head_sha"] != head || out["base_sha"] != base || out["commits"] != float64(1) ||
		out["files_changed"] != float64(2) || out["lines_added"] != float64(4) || out["lines_removed"] != float64(1) {
		t.Fatalf("snapshot fields: %v", out)
	}
	p := f.pr("PR-1")
	if !strings.Contains(p.Diff, "+func New() {}") || strings.Contains(p.Diff, "anything the agent pasted") {
		t.Fatalf("stored diff is not git's:\n%s", p.Diff)
	}
	if p.BranchName != f.Branch || p.BaseBranch != "main" || p.CreatedBy != "agent-w" || p.RepoDir != f.Worktree {
		t.Fatalf("record: %+v", p)
	}
	it := f.item()
	if it.Status != baton.StatusReview || it.Assignee != "agent-w" {
		t.Fatalf("issue %s assigned %q, want review, agent-w", it.Status, it.Assignee)
	}
	ctx := context.Background()
	_ = f.k.Store.View(ctx, func(tx baton.Tx) error {
		if cl, _ := tx.ClaimOf(ctx, f.Issue); cl != nil {
			t.Errorf("the worker's claim survived the PR: %+v", cl)
		}
		return nil
	})
	if !slices.Contains(f.events(), "pr.created") {
		t.Fatalf("events %v lack pr.created", f.events())
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'create_pr' AND subject = ? AND agent = 'agent-w'`, f.Issue); n != 1 {
		t.Fatalf("%d create_pr actions in the log, want 1", n)
	}
}

// TestCreatePRRiskThresholds: the risk recorded with the PR comes from
// the project's configuration when the PR is created, at each threshold.
func TestCreatePRRiskThresholds(t *testing.T) {
	cases := []struct {
		name   string
		lines  int
		files  int
		level  string
		reason string
	}{
		{"at lowLines", 50, 1, baton.RiskLow, "within lowLines 50"},
		{"past lowLines", 51, 1, baton.RiskMedium, "51 lines changed, more than lowLines 50"},
		{"at highLines", 200, 1, baton.RiskMedium, "200 lines changed, more than lowLines 50"},
		{"past highLines", 201, 1, baton.RiskHigh, "201 lines changed, more than highLines 200"},
		{"past lowFiles", 3, 3, baton.RiskMedium, "3 files changed, more than lowFiles 2"},
		{"past highFiles", 5, 5, baton.RiskHigh, "5 files changed, more than highFiles 4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := setup(t)
			f.configure(func(cfg *baton.ProjectConfig) {
				cfg.RiskThresholds = baton.RiskThresholds{LowLines: 50, HighLines: 200, LowFiles: 2, HighFiles: 4}
			})
			per := c.lines / c.files
			for i := range c.files {
				n := per
				if i == 0 {
					n += c.lines - per*c.files
				}
				f.Write(f.Worktree, "src/f"+string(rune('a'+i))+".txt", strings.Repeat("x\n", n))
			}
			f.Commit(f.Worktree, "work")
			out := f.worker().OK("create_pr", f.createArgs(nil))
			risk := out["risk"].(map[string]any)
			reasons, _ := risk["reasons"].([]any)
			found := slices.ContainsFunc(reasons, func(r any) bool { return strings.Contains(r.(string), c.reason) })
			if risk["level"] != c.level || !found || risk["config_version"] != float64(1) {
				t.Fatalf("risk %v, want %s with %q from configuration version 1", risk, c.level, c.reason)
			}
			if p := f.pr(out["pr_id"].(string)); p.Risk.Level != c.level {
				t.Fatalf("stored risk %+v", p.Risk)
			}
		})
	}
}

// TestCreatePRSensitivePaths: a change to a sensitive path is high risk
// however small, with the project's patterns when it has them.
func TestCreatePRSensitivePaths(t *testing.T) {
	f := setup(t)
	f.configure(func(cfg *baton.ProjectConfig) { cfg.SensitivePaths = []string{"server/*.go"} })
	f.Write(f.Worktree, "server/api.go", "package server\n\nfunc API() { _ = 1 }\n")
	f.Commit(f.Worktree, "touch api")
	out := f.worker().OK("create_pr", f.createArgs(nil))
	risk := out["risk"].(map[string]any)
	if risk["level"] != baton.RiskHigh || !slices.Equal(risk["sensitive_files"].([]any), []any{"server/api.go"}) {
		t.Fatalf("risk %v, want high for server/api.go", risk)
	}
}

// TestCreatePRGateResults: reported gates are recorded trimmed; required
// comes from the call, else from the project's gate of that label; a
// failed required gate is listed as blocking.
func TestCreatePRGateResults(t *testing.T) {
	f := setup(t)
	f.configure(func(cfg *baton.ProjectConfig) {
		cfg.Gates = []baton.Gate{{Command: "go test ./...", Label: "Tests", Required: true}, {Command: "go vet ./...", Label: "Vet"}}
	})
	f.work("a.txt", 3)
	out := f.worker().OK("create_pr", f.createArgs(map[string]any{"gate_results": []map[string]any{
		{"command": "go test ./...", "label": "tests", "exit_code": 1, "output": "  FAIL TestX  \n"},
		{"command": "go vet ./...", "label": "Vet", "exit_code": 0, "output": "ok"},
		{"command": "make lint", "label": "Lint", "exit_code": 2, "output": "lint", "required": true},
		{"command": "go build", "label": "Build", "exit_code": 0, "output": "", "required": false},
	}}))
	gates := out["gate_results"].([]any)
	var got []string
	for _, g := range gates {
		m := g.(map[string]any)
		got = append(got, m["label"].(string)+":"+boolStr(m["required"].(bool))+":"+m["source"].(string))
	}
	want := []string{"tests:required:reported", "Vet:optional:reported", "Lint:required:reported", "Build:optional:reported"}
	if !slices.Equal(got, want) {
		t.Fatalf("gates %v, want %v", got, want)
	}
	if gates[0].(map[string]any)["output"] != "FAIL TestX" {
		t.Fatalf("output not trimmed: %q", gates[0].(map[string]any)["output"])
	}
	if b := out["blocking_gates"].([]any); !slices.Equal(b, []any{"tests", "Lint"}) {
		t.Fatalf("blocking %v, want tests and Lint", b)
	}
}

// TestCreatePRRequiredGateNotReported: a required gate of the project
// that the PR has no result for is recorded as not run, and blocks
// approval like a failed one; an optional one is left out.
func TestCreatePRRequiredGateNotReported(t *testing.T) {
	f := setup(t)
	f.configure(func(cfg *baton.ProjectConfig) {
		cfg.Gates = []baton.Gate{{Command: "go test ./...", Label: "Tests", Required: true}, {Command: "go vet ./...", Label: "Vet"}}
	})
	f.work("a.txt", 3)
	out := f.worker().OK("create_pr", f.createArgs(nil))
	gates := out["gate_results"].([]any)
	if len(gates) != 1 {
		t.Fatalf("gates %v, want the one required gate", gates)
	}
	g := gates[0].(map[string]any)
	if g["label"] != "Tests" || g["source"] != "not_run" || g["exit_code"] != float64(-1) || g["required"] != true {
		t.Fatalf("gate %v", g)
	}
	if b := out["blocking_gates"].([]any); !slices.Equal(b, []any{"Tests"}) {
		t.Fatalf("blocking %v", b)
	}
	e := f.judge().FailEnvelope("approve_pr", map[string]any{}, baton.ErrInvalidTransition)
	if e.Type != "gate_failed" || !strings.Contains(e.Message, "required gate Tests (not run) did not pass") {
		t.Fatalf("approve with a gate not run: %+v", e)
	}
}

func boolStr(b bool) string {
	if b {
		return "required"
	}
	return "optional"
}

// TestCreatePRWarnings: files the pasted diff changes that no commit
// holds, and uncommitted changes in the worktree, are warned about; they
// are not in the PR.
func TestCreatePRWarnings(t *testing.T) {
	f := setup(t)
	f.work("done.txt", 2)
	f.Write(f.Worktree, "forgot.go", "package x\n")
	pasted := "diff --git a/done.txt b/done.txt\n+line\ndiff --git a/forgot.go b/forgot.go\n+package x\n"
	out := f.worker().OK("create_pr", f.createArgs(map[string]any{"diff": pasted}))
	ws := out["warnings"].([]any)
	if len(ws) != 2 || !strings.Contains(ws[0].(string), "the diff passed changes forgot.go, which no commit on "+f.Branch+" does") ||
		!strings.Contains(ws[1].(string), "1 uncommitted changes in the worktree are not in the PR: forgot.go") {
		t.Fatalf("warnings %q", ws)
	}
	if out["files_changed"] != float64(1) {
		t.Fatalf("files_changed %v: uncommitted work reached the PR", out["files_changed"])
	}
}

// TestCreatePRRefusals: every refusal names what is wrong and changes
// nothing: no PR, the issue where it was, no action logged.
func TestCreatePRRefusals(t *testing.T) {
	cases := []struct {
		name  string
		prep  func(f *fx)
		args  func(f *fx) map[string]any
		code  string
		typ   string
		field string
		msg   string
	}{
		{"no commits", func(f *fx) {}, func(f *fx) map[string]any { return f.createArgs(nil) },
			baton.ErrInvalidInput, "no_changes", "", "no committed changes: " + "symphony/"},
		{"unknown base", func(f *fx) { f.work("a.txt", 1) }, func(f *fx) map[string]any {
			return f.createArgs(map[string]any{"base_branch": "trunk"})
		}, baton.ErrInvalidInput, "", "base_branch", `base_branch "trunk" names no branch`},
		{"not the worktree's branch", func(f *fx) {
			f.work("a.txt", 1)
			f.Git(f.Repo, "branch", "other", f.Branch)
		}, func(f *fx) map[string]any {
			return f.createArgs(map[string]any{"branch_name": "other"})
		}, baton.ErrInvalidInput, "", "branch_name", `branch_name "other" is not your worktree's branch`},
		{"pre-ready phase", func(f *fx) {
			f.work("a.txt", 1)
			it := f.item()
			it.Labels = baton.WithPhase(it.Labels, baton.PhaseGrooming)
			ctx := context.Background()
			_ = f.k.Store.Update(ctx, func(tx baton.Tx) error { return tx.UpdateItem(ctx, it) })
		}, func(f *fx) map[string]any { return f.createArgs(nil) },
			baton.ErrInvalidTransition, "phase_not_ready", "", "is in the grooming phase"},
		{"claimed by another agent", func(f *fx) {
			f.work("a.txt", 1)
			f.as("agent-x", "worker", f.Repo).OK("claim_item", map[string]any{"item_id": f.Issue})
		}, func(f *fx) map[string]any { return f.createArgs(nil) },
			baton.ErrClaimed, "", "", "claimed by agent-x"},
		{"finished issue", func(f *fx) {
			f.work("a.txt", 1)
			it := f.item()
			it.Status = baton.StatusCancelled
			ctx := context.Background()
			_ = f.k.Store.Update(ctx, func(tx baton.Tx) error { return tx.UpdateItem(ctx, it) })
		}, func(f *fx) map[string]any { return f.createArgs(nil) },
			baton.ErrInvalidTransition, "", "", "a finished issue gets no PR"},
		{"backlog issue", func(f *fx) {
			f.work("a.txt", 1)
			it := f.item()
			it.Status = baton.StatusBacklog
			ctx := context.Background()
			_ = f.k.Store.Update(ctx, func(tx baton.Tx) error { return tx.UpdateItem(ctx, it) })
		}, func(f *fx) map[string]any { return f.createArgs(nil) },
			baton.ErrInvalidTransition, "", "", "cannot move"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := setup(t)
			c.prep(f)
			before := f.item()
			e := f.worker().On(t).FailEnvelope("create_pr", c.args(f), c.code)
			if !strings.Contains(e.Message, c.msg) || (c.typ != "" && e.Type != c.typ) || (c.field != "" && e.Details["field"] != c.field) {
				t.Fatalf("error %+v, want %q type %q field %q", e, c.msg, c.typ, c.field)
			}
			if e.Hint == "" {
				t.Error("no next_action_hint")
			}
			if n := len(f.prs()); n != 0 {
				t.Fatalf("%d PRs after a refused call", n)
			}
			if after := f.item(); after.Status != before.Status || !after.UpdatedAt.Equal(before.UpdatedAt) {
				t.Fatalf("the issue changed: %s -> %s", before.Status, after.Status)
			}
			if n := f.k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'create_pr'`); n != 0 {
				t.Fatalf("%d create_pr actions logged for a refused call", n)
			}
		})
	}
}

// TestCreatePRChecksWorktreeFirst: from outside the issue's worktree the
// call fails with verify_workspace's message and recovery step, before
// the arguments' branches are even looked at.
func TestCreatePRChecksWorktreeFirst(t *testing.T) {
	f := setup(t)
	f.work("a.txt", 1)
	k := f.worker()
	k.Env.WorkDir = f.Repo // the session's worktree is f.Worktree
	e := k.FailEnvelope("create_pr", f.createArgs(map[string]any{"base_branch": "no-such-branch"}), baton.ErrConflict)
	if e.Type != "workspace_invalid" || !strings.Contains(e.Message, "Worktree marker file not found at") ||
		!strings.Contains(e.Message, "Recovery: run `cd "+f.Worktree+"`") {
		t.Fatalf("error %+v", e)
	}
	if len(f.prs()) != 0 || f.item().Status != baton.StatusTodo {
		t.Fatal("a refused call changed something")
	}
}

// TestCreatePROneOpenPRAtATime: while a PR is open and the issue in
// review, another is refused; after a rejection the rework's PR
// supersedes the rejected one.
func TestCreatePROneOpenPRAtATime(t *testing.T) {
	f := setup(t)
	f.work("a.txt", 1)
	f.worker().OK("create_pr", f.createArgs(nil))
	f.work("b.txt", 1)
	e := f.worker().FailEnvelope("create_pr", f.createArgs(nil), baton.ErrConflict)
	if e.Type != "pr_open" || !strings.Contains(e.Message, "PR-1 open") {
		t.Fatalf("second PR while the first is open: %+v", e)
	}
	f.judge().OK("reject_pr", map[string]any{"reason": "tests missing", "fix_instructions": "add tests"})
	f.work("a_test.txt", 2)
	out := f.worker().OK("create_pr", f.createArgs(nil))
	if out["pr_id"] != "PR-2" || !slices.Equal(out["superseded"].([]any), []any{"PR-1"}) || out["issue_status"] != "review" {
		t.Fatalf("rework PR: %v", out)
	}
	old := f.pr("PR-1")
	if old.Status != baton.PRSuperseded || old.FixInstructions != "add tests" {
		t.Fatalf("the rejected PR after the rework: %+v", old)
	}
	if out["files_changed"] != float64(3) {
		t.Fatalf("the rework's PR covers %v files, want the whole branch (3)", out["files_changed"])
	}
}

// TestCreatePRFromTheCLIWithoutWorktree: a session tied to no worktree
// (the person at the CLI, no bound issue) names the issue and the branch;
// git runs in the issue's worktree, which baton finds itself.
func TestCreatePRFromTheCLIWithoutWorktree(t *testing.T) {
	f := setup(t)
	f.work("a.txt", 4)
	k := f.as(baton.User, "", f.Repo)
	k.Principal.IssueID, k.Principal.Source = "", baton.SourceCLI
	out := k.OK("create_pr", f.createArgs(map[string]any{"issue_id": f.Issue}))
	if out["lines_added"] != float64(4) || out["issue_status"] != "review" {
		t.Fatalf("%v", out)
	}
	if p := f.pr("PR-1"); p.RepoDir != f.Worktree || p.CreatedBy != baton.User {
		t.Fatalf("record %+v: want it built in the issue's worktree", p)
	}
}

// TestCreatePRSchedulerCap: a scheduler-initiated session opens at most 3
// PRs; the fourth is refused with the cap named, and makes no PR.
func TestCreatePRSchedulerCap(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	ids := []string{f.Issue}
	for range 3 {
		ids = append(ids, f.k.StoreItem(&baton.Item{Project: project, Title: "more", Labels: []string{baton.PhaseReady.Label()}}))
	}
	k := f.as("agent-s", "worker", f.Repo)
	k.Principal.IssueID, k.Principal.SchedulerMode = "", true
	for i, id := range ids {
		wt, branch := f.Worktree, f.Branch
		if i > 0 {
			w, err := worktree.Create(ctx, worktree.Options{Repo: f.Repo, Issue: id, Project: project})
			if err != nil {
				t.Fatal(err)
			}
			wt, branch = w.Path, w.Branch
		}
		f.Write(wt, "f.txt", id+"\n")
		f.Commit(wt, "work")
		args := map[string]any{"issue_id": id, "diff": "", "branch_name": branch, "base_branch": "main"}
		if i < 3 {
			k.OK("create_pr", args)
			continue
		}
		e := k.FailEnvelope("create_pr", args, baton.ErrPermissionDenied)
		if e.Type != "scheduler_cap" {
			t.Fatalf("fourth PR: %+v", e)
		}
	}
	var n int
	_ = f.k.Store.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.PRs(ctx, baton.PRFilter{Project: project})
		n = len(ps)
		return err
	})
	if n != 3 {
		t.Fatalf("%d PRs, want 3", n)
	}
}

// TestCreatePRAfterApprovalSupersedes: new commits after an approval make
// a new PR; the approval was of a snapshot that is no longer the branch,
// so the approved PR is superseded and the issue stays in review.
func TestCreatePRAfterApprovalSupersedes(t *testing.T) {
	f := setup(t)
	f.work("a.txt", 1)
	f.worker().OK("create_pr", f.createArgs(nil))
	f.judge().OK("approve_pr", map[string]any{})
	f.work("b.txt", 1)
	out := f.worker().OK("create_pr", f.createArgs(nil))
	if out["pr_id"] != "PR-2" || out["issue_status"] != "review" || !slices.Equal(out["superseded"].([]any), []any{"PR-1"}) {
		t.Fatalf("%v", out)
	}
	if p := f.pr("PR-1"); p.Status != baton.PRSuperseded || p.ReviewedBy != "agent-j" {
		t.Fatalf("approved PR after a newer one: %+v", p)
	}
}

// TestPoint2ReportedGateCannotTurnARequiredGateOptional: an agent that
// reports a configured required gate with required: false still has it
// required (it fails and blocks approval); it may make a configured
// optional gate required, and an unconfigured gate is as it reports.
func TestPoint2ReportedGateCannotTurnARequiredGateOptional(t *testing.T) {
	f := setup(t)
	f.configure(func(cfg *baton.ProjectConfig) {
		cfg.Gates = []baton.Gate{{Command: "go test ./...", Label: "Tests", Required: true}, {Command: "go vet ./...", Label: "Vet"}}
	})
	f.work("a.txt", 3)
	out := f.worker().OK("create_pr", f.createArgs(map[string]any{"gate_results": []map[string]any{
		{"command": "go test ./...", "label": "Tests", "exit_code": 1, "output": "FAIL", "required": false},
		{"command": "go vet ./...", "label": "Vet", "exit_code": 0, "output": "ok", "required": true},
		{"command": "make lint", "label": "Lint", "exit_code": 2, "output": "lint", "required": false},
	}}))
	var got []string
	for _, g := range out["gate_results"].([]any) {
		m := g.(map[string]any)
		got = append(got, m["label"].(string)+":"+boolStr(m["required"].(bool)))
	}
	if want := []string{"Tests:required", "Vet:required", "Lint:optional"}; !slices.Equal(got, want) {
		t.Fatalf("gates %v, want %v", got, want)
	}
	if b := out["blocking_gates"].([]any); !slices.Equal(b, []any{"Tests"}) {
		t.Fatalf("blocking %v, want Tests", b)
	}
	e := f.judge().FailEnvelope("approve_pr", map[string]any{}, baton.ErrInvalidTransition)
	if e.Type != "gate_failed" {
		t.Fatalf("approve with the required gate failed: %+v", e)
	}
}

// TestPoint4CreatePRRunsGitOutsideTheWriteTransaction: while create_pr's
// git is running (held here by a git wrapper until the test lets it go),
// another writer gets the store at once; the PR is then recorded with its
// action and event as before.
func TestPoint4CreatePRRunsGitOutsideTheWriteTransaction(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the git wrapper is a POSIX shell script")
	}
	f := setup(t)
	f.work("a.txt", 3)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	started, release := filepath.Join(bin, "started"), filepath.Join(bin, "go")
	script := "#!/bin/sh\ncase \" $* \" in *\" --patch \"*)\n  touch '" + started + "'\n  i=0\n" +
		"  while [ ! -f '" + release + "' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done;;\nesac\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	w := f.worker()
	res := make(chan tool.Result, 1)
	go func() { res <- w.Call("create_pr", f.createArgs(nil)) }()
	for i := 0; ; i++ {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if i > 600 {
			os.WriteFile(release, nil, 0o644)
			t.Fatalf("create_pr never ran git diff --patch: %+v", <-res)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wrote := make(chan error, 1)
	go func() {
		ctx := context.Background()
		wrote <- f.k.Store.Update(ctx, func(tx baton.Tx) error {
			return tx.CreateItem(ctx, &baton.Item{Project: project, Title: "written while git runs", Status: baton.StatusTodo, CreatedBy: "user"})
		})
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Errorf("write while create_pr's git runs: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("a store write waited for create_pr's git: git runs inside the write transaction")
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.Err != nil {
		t.Fatalf("create_pr: %+v", r.Err)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'create_pr'`); n != 1 {
		t.Errorf("%d create_pr actions, want 1", n)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM events WHERE type = 'pr.created'`); n != 1 {
		t.Errorf("%d pr.created events, want 1", n)
	}
}

// TestPoint8CreatePRWithoutWorktreeUsesTheProjectRoot: for an issue with
// no worktree, called from a folder that is no repository (the server's
// working directory), git runs in the project's root, where the branch is.
func TestPoint8CreatePRWithoutWorktreeUsesTheProjectRoot(t *testing.T) {
	f := setup(t)
	other := f.k.StoreItem(&baton.Item{Project: project, Title: "no worktree", Labels: []string{baton.PhaseReady.Label()}})
	f.Git(f.Repo, "switch", "--quiet", "-c", "feature")
	f.Write(f.Repo, "b.txt", "one\ntwo\n")
	f.Commit(f.Repo, "feature")
	f.Git(f.Repo, "switch", "--quiet", "main")
	k := f.as(baton.User, "", t.TempDir())
	k.Principal.IssueID, k.Principal.Source = "", baton.SourceCLI
	out := k.OK("create_pr", map[string]any{"diff": "", "branch_name": "feature", "base_branch": "main", "issue_id": other})
	if out["lines_added"] != float64(2) || out["issue_id"] != other {
		t.Fatalf("%v", out)
	}
	if p := f.pr(out["pr_id"].(string)); p.RepoDir != f.Repo {
		t.Fatalf("built in %q, want the project root %q", p.RepoDir, f.Repo)
	}
}
