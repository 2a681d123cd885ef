package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The phase pipeline end to end (issue 14): real git repositories, the
// built binary, agents of different profiles in sessions of their own,
// the orchestrator's tick run as a person runs it, and what the people's
// commands (prs, pr show, watch, audit verify) say about it all.

// shop is a project's git repository and its database, as baton init
// makes them at the repository's top.
type shop struct {
	t    *testing.T
	repo string // the main repository
	db   string // --db: the SQLite file in repo/.baton, or a PostgreSQL URL
}

// newShop makes a git repository with one commit on main and a baton
// database for it, whose project shop (prefix SHOP) is rooted there.
func newShop(t *testing.T, db string) *shop {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the pipeline builds PRs and worktrees with it")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &shop{t: t, repo: filepath.Join(dir, "shop"), db: db}
	if err := os.Mkdir(s.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, s.repo, "init", "-q", "-b", "main")
	s.write(s.repo, "README.md", "# shop\n\nA shop.\n")
	s.write(s.repo, "go.mod", "module shop\n\ngo 1.22\n")
	git(t, s.repo, "add", "-A")
	git(t, s.repo, "commit", "-q", "-m", "initial")
	if s.db == "" {
		s.db = filepath.Join(s.repo, ".baton", "baton.db")
	}
	// The project's root is the repository: where init runs.
	s.ok(s.repo, "init", "--project", "shop", "--prefix", "SHOP", "--no-instructions")
	return s
}

func (s *shop) write(dir, name, body string) {
	s.t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// run runs the binary on the shop's database in dir.
func (s *shop) run(dir string, args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	cmd := exec.Command(bin, append([]string{"--db", s.db}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// ok runs a command that must succeed and returns its stdout.
func (s *shop) ok(dir string, args ...string) string {
	s.t.Helper()
	out, errOut, code := s.run(dir, args...)
	if code != 0 {
		s.t.Fatalf("baton %v exited %d:\n%s%s", args, code, out, errOut)
	}
	return out
}

// okJSON runs a command with --json and decodes its document.
func (s *shop) okJSON(dir string, args ...string) map[string]any {
	s.t.Helper()
	var m map[string]any
	out := s.ok(dir, append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		s.t.Fatalf("baton %v --json: %v\n%s", args, err, out)
	}
	return m
}

// tick runs `baton orchestrator tick --json` once and returns its
// transitions as "ISSUE PHASE OUTCOME" lines, with the report.
func (s *shop) tick() ([]string, map[string]any) {
	s.t.Helper()
	r := s.okJSON(s.repo, "orchestrator", "tick")
	var lines []string
	for _, x := range list(r["transitions"]) {
		tr := x.(map[string]any)
		lines = append(lines, fmt.Sprintf("%v %v %v", tr["issue_id"], tr["phase"], tr["outcome"]))
	}
	return lines, r
}

// mustTick ticks and fails unless the tick did exactly want.
func (s *shop) mustTick(want ...string) map[string]any {
	s.t.Helper()
	got, r := s.tick()
	if !slices.Equal(got, want) {
		s.t.Fatalf("tick did %q, want %q (report %v)", got, want, r)
	}
	return r
}

// agent is one agent's MCP session: `baton mcp` started in dir the way an
// orchestrator starts it, with Symphony's vocabulary.
type agent struct {
	t    *testing.T
	name string
	cs   *mcp.ClientSession
}

func (s *shop) agent(name, profile, issue, dir, worktree string) *agent {
	s.t.Helper()
	args := []string{"--db", s.db, "mcp", "--preset", "symphony", "--agent", name, "--project", "shop", "--agent-type", profile}
	if issue != "" {
		args = append(args, "--issue-id", issue)
	}
	if worktree != "" {
		args = append(args, "--worktree-path", worktree)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	return &agent{t: s.t, name: name, cs: connect(s.t, &mcp.CommandTransport{Command: cmd})}
}

// call runs a tool and returns its structured output and whether it failed.
func (a *agent) call(tool string, args map[string]any) (map[string]any, bool) {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %s: %v", a.name, tool, err)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	return sc, res.IsError
}

func (a *agent) ok(tool string, args map[string]any) map[string]any {
	a.t.Helper()
	out, isErr := a.call(tool, args)
	if isErr {
		a.t.Fatalf("%s: %s(%v) failed: %v", a.name, tool, args, out)
	}
	return out
}

// fail runs a tool that must fail with code and returns the error object.
func (a *agent) fail(tool string, args map[string]any, code string) map[string]any {
	a.t.Helper()
	out, isErr := a.call(tool, args)
	e, _ := out["error"].(map[string]any)
	if !isErr || e["code"] != code {
		a.t.Fatalf("%s: %s(%v) = %v, want %s", a.name, tool, args, out, code)
	}
	return e
}

// tools lists the session's tools.
func (a *agent) tools() []string {
	a.t.Helper()
	res, err := a.cs.ListTools(context.Background(), nil)
	if err != nil {
		a.t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func strs(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func sha(body string) string {
	h := sha256.Sum256([]byte(body))
	return hex.EncodeToString(h[:])
}

// artifact writes a phase artifact the way its agent would: a title, an
// introduction, and one section per required section of the contract
// get_issue shows, plus extra sections. It returns the relative path and
// the SHA-256 of what it wrote.
func (s *shop) artifact(dir string, issue map[string]any, title string, extra ...string) (path, hash string) {
	s.t.Helper()
	c, _ := issue["phase_contract"].(map[string]any)
	path, _ = c["artifact_path"].(string)
	if path == "" {
		s.t.Fatalf("get_issue shows no artifact path for phase %v: %v", issue["phase"], issue["phase_contract"])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nWhat this %s phase found for %s, written for the next phase's agent and the judge.\n", title, issue["phase"], issue["id"])
	for _, sec := range append(strs(c["required_sections"]), extra...) {
		fmt.Fprintf(&b, "\n## %s\n\nThe %s of %s: carts live in memory, keyed by session, flushed every minute.\n", sec, strings.ToLower(sec), title)
	}
	s.write(dir, path, b.String())
	return path, sha(b.String())
}

// commit commits files (already written) on the worktree's branch.
func commitIn(t *testing.T, dir, msg string, files ...string) {
	t.Helper()
	git(t, dir, append([]string{"add", "--"}, files...)...)
	git(t, dir, "commit", "-q", "-m", msg)
}

// comments are the bodies of an issue's comments as get_issue shows them.
func comments(issue map[string]any) []string {
	var out []string
	for _, c := range list(issue["comments"]) {
		out = append(out, fmt.Sprint(c.(map[string]any)["content"]))
	}
	return out
}

func containsText(list []string, part string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, part) })
}

// expectIssue checks an issue's status, phase and whether it carries
// needs-revision, as get_issue reports them.
func expectIssue(t *testing.T, issue map[string]any, status, phase string, needsRevision bool) {
	t.Helper()
	labels := strs(issue["labels"])
	if issue["status"] != status || issue["phase"] != phase || !slices.Contains(labels, "phase:"+phase) ||
		slices.Contains(labels, "needs-revision") != needsRevision {
		t.Fatalf("%v is %v in phase %v with labels %v; want %s in %s, needs-revision %v", issue["id"], issue["status"], issue["phase"],
			labels, status, phase, needsRevision)
	}
	n := 0
	for _, l := range labels {
		if strings.HasPrefix(l, "phase:") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%v has %d phase labels: %v", issue["id"], n, labels)
	}
}

// TestPipelineCycleOverMCP drives one issue through the whole pipeline with
// agents of four profiles, each in its own `baton mcp` session as Symphony
// starts them, and the orchestrator's tick between their steps:
// research → architecture (rejected once, reworked) → grooming → ready →
// PR → rejected → rework → second PR → approved.
func TestPipelineCycleOverMCP(t *testing.T) { cycleOverMCP(t, newShop(t, "")) }

// TestPipelineCycleOverMCPOnPostgres is the same cycle on PostgreSQL.
func TestPipelineCycleOverMCPOnPostgres(t *testing.T) { cycleOverMCP(t, newShop(t, pgDB(t))) }

func cycleOverMCP(t *testing.T, s *shop) {
	s.ok(s.repo, "project", "configure", "--gate", "Build=test -f cache.go", "--optional-gate", "Docs=test -f CHANGES.md",
		"--sensitive-paths", "db/**", "--low-lines", "3", "--high-lines", "40", "--low-files", "1", "--high-files", "5",
		"--worker-instructions", "Keep carts in memory.", "--judge-instructions", "Refuse designs without a rollback.")

	// A researcher files the issue: backlog, phase:research.
	scout := s.agent("researcher-1", "researcher", "", s.repo, "")
	created := scout.ok("create_issue", map[string]any{"title": "Cache carts", "description": "Carts are slow to load."})
	id := created["issue_id"].(string)
	if id != "SHOP-1" {
		t.Fatalf("create_issue = %v", created)
	}
	// Not ready work while in research.
	if out := s.okJSON(s.repo, "ready"); out["count"] != 0.0 {
		t.Fatalf("ready queue holds a pre-ready issue: %v", out)
	}

	// The issue's worktree, as an orchestrator makes it on dispatch.
	wt := s.okJSON(s.repo, "worktree", "create", id)["worktree"].(map[string]any)
	dir := wt["path"].(string)
	if dir != filepath.Join(s.repo, ".symphony-workspaces", id) || wt["branch"] != "symphony/"+id {
		t.Fatalf("worktree = %v", wt)
	}

	// --- research -------------------------------------------------------
	// An agent started outside its worktree is stopped before anything
	// is recorded, with the way back.
	lost := s.agent("researcher-1", "researcher", id, s.repo, "")
	e := lost.fail("complete_phase", map[string]any{"completed_phase": "research", "contract_version": 1,
		"artifact_path": "docs/tickets/SHOP-1/research.md", "artifact_hash": sha("x"), "summary": "s",
		"recommended_next_phase": "architecture", "project_path": s.repo}, "ERR_CONFLICT")
	if e["type"] != "workspace_invalid" || !strings.Contains(e["message"].(string), "Recovery: run `cd "+dir+"`") {
		t.Fatalf("complete_phase outside the worktree = %v", e)
	}

	researcher := s.agent("researcher-1", "researcher", id, dir, dir)
	if v := researcher.ok("verify_workspace", nil); v["valid"] != true || v["issue"] != id || v["branch"] != "symphony/"+id || v["path"] != dir {
		t.Fatalf("verify_workspace = %v", v)
	}
	issue := researcher.ok("get_issue", nil)
	expectIssue(t, issue, "backlog", "research", false)
	if cfg := issue["project_config"].(map[string]any); cfg["worker_instructions"] != "Keep carts in memory." {
		t.Fatalf("get_issue shows the project config %v", cfg)
	}
	// The catalogue's validation messages, each with the file really
	// there, over the agent's own session; none records anything.
	long := strings.Repeat("Carts are slow because every request reloads them from the database. ", 3)
	for _, tc := range []struct{ path, body, hash, says string }{
		{"docs/tickets/SHOP-1/research.md", "# Research\n\ntoo short", "", "Artifact content too short (21 chars, minimum 100)"},
		{"docs/tickets/SHOP-1/research.md", long, "", "Artifact does not appear to be Markdown — no headings found"},
		{"docs/tickets/SHOP-1/research.md", "# Research\n\n" + long, "", "Artifact missing required sections: problem statement, recommendation"},
		{"docs/tickets/SHOP-1/research.md", "# Research\n\n## Problem Statement\n\n" + long, "", "Artifact missing required sections: recommendation"},
		{"docs/research.md", "# Research\n\n" + long, "", "artifact_path must be inside docs/tickets/"},
		{"docs/tickets/SHOP-1/research.md", "# Research\n\n## Problem Statement\n\n## Recommendation\n\n" + long, sha("another text"), "SHA-256"},
	} {
		s.write(dir, tc.path, tc.body)
		hash := tc.hash
		if hash == "" {
			hash = sha(tc.body)
		}
		e = researcher.fail("complete_phase", map[string]any{"completed_phase": "research", "contract_version": 1,
			"artifact_path": tc.path, "artifact_hash": hash, "summary": "s", "recommended_next_phase": "architecture",
			"project_path": dir}, "ERR_INVALID_INPUT")
		if !strings.Contains(e["message"].(string), tc.says) {
			t.Errorf("complete_phase with %q = %v, want it to say %q", tc.body, e["message"], tc.says)
		}
	}
	if fs := researcher.ok("get_issue", nil)["findings"]; len(list(fs)) != 0 {
		t.Fatalf("refused claims were recorded: %v", fs)
	}
	path, hash := s.artifact(dir, issue, "Research: cart caching")
	claim := researcher.ok("complete_phase", map[string]any{"completed_phase": "research", "contract_version": 1,
		"artifact_path": path, "artifact_hash": hash, "summary": "Carts can be cached in memory", "confidence": "high",
		"recommended_next_phase": "architecture", "project_path": dir})
	if claim["processed"] != false || claim["category"] != "phase_completion" || !strings.HasPrefix(claim["finding_id"].(string), "pc-") {
		t.Fatalf("complete_phase = %v", claim)
	}
	s.mustTick(id + " research awaiting_verdict")
	s.mustTick() // idempotent: the claim is processed once

	judge := s.agent("judge-1", "judge", id, s.repo, "")
	// Profiles keep to their tools: the judge cannot claim a phase, the
	// researcher cannot judge one.
	if names := judge.tools(); slices.Contains(names, "complete_phase") || !slices.Contains(names, "approve_phase") {
		t.Fatalf("the judge's tools: %v", names)
	}
	judge.fail("complete_phase", map[string]any{"completed_phase": "research", "summary": "x", "project_path": dir}, "ERR_PERMISSION_DENIED")
	researcher.fail("approve_phase", map[string]any{"phase": "research", "artifact_hash": hash}, "ERR_PERMISSION_DENIED")
	judge.ok("approve_phase", map[string]any{"phase": "research", "artifact_hash": hash, "reason": "Clear problem statement"})
	r := s.mustTick(id + " research advanced")
	if tr := list(r["transitions"])[0].(map[string]any); tr["next_phase"] != "architecture" || tr["status"] != "todo" {
		t.Fatalf("advance = %v", tr)
	}
	s.mustTick()

	// --- architecture: rejected once, reworked ---------------------------
	issue = researcher.ok("get_issue", nil)
	expectIssue(t, issue, "todo", "architecture", false)
	path, hash = s.artifact(dir, issue, "Design: cart cache")
	researcher.ok("complete_phase", map[string]any{"completed_phase": "architecture", "contract_version": 1,
		"artifact_path": path, "artifact_hash": hash, "summary": "An in-memory cache per session",
		"recommended_next_phase": "grooming", "project_path": dir})
	s.mustTick(id + " architecture awaiting_verdict")
	rejected := judge.ok("reject_phase", map[string]any{"phase": "architecture", "artifact_hash": hash,
		"reason": "Missing rollback strategy", "fix_instructions": "Add a Rollback section covering how to turn the cache off"})
	if rejected["verdict"] != "rejected" || rejected["comment_id"] == "" {
		t.Fatalf("reject_phase = %v", rejected)
	}
	s.mustTick(id + " architecture rejected")
	issue = researcher.ok("get_issue", nil)
	expectIssue(t, issue, "todo", "architecture", true)
	if cs := comments(issue); !containsText(cs, "Add a Rollback section covering how to turn the cache off") {
		t.Fatalf("the researcher does not see the fix instructions: %q", cs)
	}
	oldHash := hash
	path, hash = s.artifact(dir, issue, "Design: cart cache", "Rollback")
	researcher.ok("complete_phase", map[string]any{"completed_phase": "architecture", "contract_version": 1,
		"artifact_path": path, "artifact_hash": hash, "summary": "Now with a rollback",
		"recommended_next_phase": "grooming", "project_path": dir})
	s.mustTick(id + " architecture awaiting_verdict")
	// A verdict on the first version is refused: the hash is stale.
	e = judge.fail("approve_phase", map[string]any{"phase": "architecture", "artifact_hash": oldHash}, "ERR_CONFLICT")
	if e["type"] != "stale_hash" {
		t.Fatalf("stale verdict = %v", e)
	}
	judge.ok("approve_phase", map[string]any{"phase": "architecture", "artifact_hash": hash})
	s.mustTick(id + " architecture advanced")

	// --- grooming: the planner, promoting its plan into docs/ -------------
	planner := s.agent("planner-1", "planner", id, dir, dir)
	issue = planner.ok("get_issue", nil)
	expectIssue(t, issue, "todo", "grooming", false)
	path, hash = s.artifact(dir, issue, "Plan: cart cache")
	planner.ok("complete_phase", map[string]any{"completed_phase": "grooming", "contract_version": 1,
		"artifact_path": path, "artifact_hash": hash, "summary": "Two tasks", "promote_to": "docs/plans/cart-cache.md",
		"recommended_next_phase": "ready", "project_path": dir})
	s.mustTick(id + " grooming awaiting_verdict")
	judge.ok("approve_phase", map[string]any{"phase": "grooming", "artifact_hash": hash})
	r = s.mustTick(id + " grooming advanced")
	if tr := list(r["transitions"])[0].(map[string]any); tr["next_phase"] != "ready" || tr["promoted_to"] != "docs/plans/cart-cache.md" {
		t.Fatalf("advance to ready = %v", tr)
	}
	// Promoted into the project's docs tree: the repository's, not the worktree's.
	if b, err := os.ReadFile(filepath.Join(s.repo, "docs/plans/cart-cache.md")); err != nil || sha(string(b)) != hash {
		t.Fatalf("the plan was not promoted as approved: %v", err)
	}

	// --- ready: committed code becomes a PR ------------------------------
	worker := s.agent("worker-1", "worker", id, dir, dir)
	issue = worker.ok("get_issue", nil)
	expectIssue(t, issue, "todo", "ready", false)
	if out := s.okJSON(s.repo, "ready"); out["count"] != 1.0 {
		t.Fatalf("the ready issue is not in the queue: %v", out)
	}
	// Nothing committed yet: refused now, so the worker commits this turn.
	worker.fail("complete_phase", map[string]any{"completed_phase": "ready", "summary": "done", "project_path": dir}, "ERR_INVALID_INPUT")
	s.write(dir, "cache.go", "package shop\n\n// Cache keeps carts.\ntype Cache struct{}\n")
	commitIn(t, dir, "cart cache", "cache.go")
	worker.ok("complete_phase", map[string]any{"completed_phase": "ready", "summary": "The cache", "project_path": dir})
	r = s.mustTick(id + " ready pr_created")
	first := list(r["transitions"])[0].(map[string]any)["pr_id"].(string)

	prs := s.okJSON(s.repo, "prs")
	if prs["count"] != 1.0 {
		t.Fatalf("prs = %v", prs)
	}
	pr := list(prs["prs"])[0].(map[string]any)
	risk := pr["risk"].(map[string]any)
	// 4 lines in 1 file: past lowLines 3, not past lowFiles 1: medium.
	if pr["id"] != first || pr["status"] != "open" || pr["branch_name"] != "symphony/"+id || pr["base_branch"] != "main" ||
		pr["files_changed"] != 1.0 || pr["lines_added"] != 4.0 || risk["level"] != "medium" {
		t.Fatalf("PR = %v", pr)
	}
	gates := map[string]float64{}
	for _, g := range list(pr["gate_results"]) {
		gm := g.(map[string]any)
		gates[gm["label"].(string)] = gm["exit_code"].(float64)
	}
	if gates["Build"] != 0 || gates["Docs"] == 0 || len(gates) != 2 {
		t.Fatalf("gate results = %v (Build passes, Docs fails, optional)", pr["gate_results"])
	}
	show := s.ok(s.repo, "pr", "show", first)
	if !strings.Contains(show, "cache.go") || !strings.Contains(show, "+type Cache struct{}") {
		t.Fatalf("pr show lacks the diff:\n%s", show)
	}
	if issue = judge.ok("get_issue", nil); issue["status"] != "review" {
		t.Fatalf("after the PR the issue is %v", issue["status"])
	}

	// The judge rejects the PR; the worker sees why.
	judge.fail("create_pr", map[string]any{"diff": "x", "branch_name": "b", "base_branch": "main"}, "ERR_PERMISSION_DENIED")
	rej := judge.ok("reject_pr", map[string]any{"reason": "No constructor", "fix_instructions": "Add NewCache returning an empty cache"})
	if rej["status"] != "rejected" || rej["issue_status"] != "todo" || rej["pr_id"] != first {
		t.Fatalf("reject_pr = %v", rej)
	}
	issue = worker.ok("get_issue", nil)
	expectIssue(t, issue, "todo", "ready", false)
	if p := issue["pull_request"].(map[string]any); p["status"] != "rejected" || p["fix_instructions"] != "Add NewCache returning an empty cache" {
		t.Fatalf("the worker sees the PR as %v", p)
	}

	// Rework: a second commit, a second claim, a second PR.
	s.write(dir, "cache.go", "package shop\n\n// Cache keeps carts.\ntype Cache struct{}\n\n// NewCache returns an empty cache.\nfunc NewCache() *Cache { return &Cache{} }\n")
	commitIn(t, dir, "constructor", "cache.go")
	worker.ok("complete_phase", map[string]any{"completed_phase": "ready", "summary": "With NewCache", "project_path": dir})
	r = s.mustTick(id + " ready pr_created")
	second := list(r["transitions"])[0].(map[string]any)["pr_id"].(string)
	if second == first {
		t.Fatalf("the rework reopened %s", first)
	}
	s.mustTick()
	app := judge.ok("approve_pr", map[string]any{"reason": "Matches the plan"})
	if app["status"] != "approved" || app["issue_status"] != "review" || app["pr_id"] != second {
		t.Fatalf("approve_pr = %v", app)
	}
	statuses := map[string]string{}
	for _, p := range list(s.okJSON(s.repo, "prs", "--issue", id)["prs"]) {
		pm := p.(map[string]any)
		statuses[pm["id"].(string)] = pm["status"].(string)
	}
	if statuses[first] != "superseded" || statuses[second] != "approved" {
		t.Fatalf("PR statuses = %v", statuses)
	}
	shown := s.okJSON(s.repo, "pr", "show", second)
	if d, _ := shown["diff"].(string); !strings.Contains(d, "+func NewCache() *Cache") {
		t.Fatalf("the second PR's diff = %q", d)
	}
	if issue = worker.ok("get_issue", nil); issue["status"] != "review" {
		t.Fatalf("after approval the issue is %v, want review (a human merges)", issue["status"])
	}

	// Everything reached the event stream and the audit trail.
	checkTrail(t, s, []string{"issue.created", "worktree.created", "phase.completed", "phase.awaiting_verdict",
		"phase.verdict", "phase.advanced", "phase.rejected", "pr.created", "pr.rejected", "pr.approved"})
}

// checkTrail reads every event of the project through `baton watch
// --json` and fails unless each of want appears; then the audit trail
// must verify.
func checkTrail(t *testing.T, s *shop, want []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--db", s.db, "--project", "shop", "watch", "--json", "--every", "20ms")
	cmd.Dir = s.repo
	out := &syncBuffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	seen := map[string]bool{}
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, line := range strings.Split(out.String(), "\n") {
			var ev map[string]any
			if json.Unmarshal([]byte(line), &ev) == nil {
				seen[fmt.Sprint(ev["type"])] = true
			}
		}
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return seen[w] })
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("baton watch never showed %q; it showed %v", missing, seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if v := s.okJSON(s.repo, "audit", "verify"); v["ok"] != true {
		t.Fatalf("audit verify = %v", v)
	}
}

// cliAgent is an agent (or a person) using the tool commands of the CLI:
// `baton --agent NAME --agent-type PROFILE TOOLSET TOOL --input JSON`, run
// in its folder.
type cliAgent struct {
	s                  *shop
	name, profile, dir string
}

// toolsets of the tools the cycle uses.
var toolsets = map[string]string{
	"create_issue": "issues", "get_issue": "issues", "verify_workspace": "issues", "add_comment": "issues",
	"complete_phase": "phases", "approve_phase": "phases", "reject_phase": "phases",
	"approve_pr": "review", "reject_pr": "review",
}

func (c cliAgent) call(tool string, args map[string]any) (map[string]any, int) {
	c.s.t.Helper()
	in, _ := json.Marshal(args)
	out, errOut, code := c.s.run(c.dir, "--agent", c.name, "--agent-type", c.profile, toolsets[tool], tool, "--input", string(in), "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		c.s.t.Fatalf("%s: baton %s %s --json printed no JSON (exit %d): %v\n%s%s", c.name, toolsets[tool], tool, code, err, out, errOut)
	}
	return m, code
}

func (c cliAgent) ok(tool string, args map[string]any) map[string]any {
	c.s.t.Helper()
	m, code := c.call(tool, args)
	if code != 0 {
		c.s.t.Fatalf("%s: %s(%v) exited %d: %v", c.name, tool, args, code, m)
	}
	return m
}

func (c cliAgent) fail(tool string, args map[string]any, code string) map[string]any {
	c.s.t.Helper()
	m, exit := c.call(tool, args)
	e, _ := m["error"].(map[string]any)
	if exit == 0 || e["code"] != code {
		c.s.t.Fatalf("%s: %s(%v) = exit %d %v, want %s", c.name, tool, args, exit, m, code)
	}
	return e
}

// TestPipelineCycleThroughTheCLI runs the cycle with nothing but baton
// commands, as a person (or a script) would: the tool commands acting as
// each agent in its folder, `baton orchestrator tick`, `baton prs`, `baton
// pr show` and `baton pr gates`. A required gate that fails sends the
// first ready claim back before any judge sees it.
func TestPipelineCycleThroughTheCLI(t *testing.T) {
	t.Parallel()
	s := newShop(t, "")
	s.ok(s.repo, "project", "configure", "--gate", "Constructor=grep -q NewCache cache.go", "--sensitive-paths", "db/**,**/.env*")
	cfg := s.okJSON(s.repo, "project", "show")["config"].(map[string]any)
	if gates := list(cfg["gates"]); len(gates) != 1 || gates[0].(map[string]any)["label"] != "Constructor" || cfg["version"] != 1.0 {
		t.Fatalf("project show = %v", cfg)
	}

	researcher := cliAgent{s, "researcher-1", "researcher", s.repo}
	id := researcher.ok("create_issue", map[string]any{"title": "Cache carts"})["issue_id"].(string)
	out := s.ok(s.repo, "worktree", "create", id)
	dir := filepath.Join(s.repo, ".symphony-workspaces", id)
	if !strings.Contains(out, "created the worktree of "+id+": "+dir) {
		t.Fatalf("worktree create said %q", out)
	}
	researcher.dir = dir
	if v := researcher.ok("verify_workspace", nil); v["valid"] != true || v["issue"] != id {
		t.Fatalf("verify_workspace = %v", v)
	}
	judge := cliAgent{s, "judge-1", "judge", s.repo}
	planner := cliAgent{s, "planner-1", "planner", dir}
	worker := cliAgent{s, "worker-1", "worker", dir}

	// The three pre-ready phases, each claimed, checked by the tick,
	// approved by the judge and advanced by the tick.
	for _, step := range []struct {
		phase, next string
		agent       cliAgent
	}{{"research", "architecture", researcher}, {"architecture", "grooming", researcher}, {"grooming", "ready", planner}} {
		issue := step.agent.ok("get_issue", map[string]any{"issue_id": id})
		expectIssue(t, issue, map[bool]string{true: "backlog", false: "todo"}[step.phase == "research"], step.phase, false)
		path, hash := s.artifact(dir, issue, strings.ToUpper(step.phase[:1])+step.phase[1:]+" of the cart cache")
		step.agent.ok("complete_phase", map[string]any{"issue_id": id, "completed_phase": step.phase, "contract_version": 1,
			"artifact_path": path, "artifact_hash": hash, "summary": step.phase + " done", "recommended_next_phase": step.next,
			"project_path": dir})
		s.mustTick(id + " " + step.phase + " awaiting_verdict")
		judge.ok("approve_phase", map[string]any{"issue_id": id, "phase": step.phase, "artifact_hash": hash})
		s.mustTick(id + " " + step.phase + " advanced")
	}

	// Ready. The first commit lacks the constructor: the required gate
	// fails, the tick sends the claim back with the gate's verdict.
	s.write(dir, "cache.go", "package shop\n\ntype Cache struct{}\n")
	commitIn(t, dir, "cache", "cache.go")
	worker.ok("complete_phase", map[string]any{"issue_id": id, "completed_phase": "ready", "summary": "the cache", "project_path": dir})
	s.mustTick(id + " ready rejected")
	issue := worker.ok("get_issue", map[string]any{"issue_id": id})
	expectIssue(t, issue, "todo", "ready", true)
	if p := issue["pull_request"].(map[string]any); p["status"] != "rejected" || !slices.Contains(strs(p["failed_gates"]), "Constructor") ||
		!strings.Contains(fmt.Sprint(p["fix_instructions"]), "grep -q NewCache cache.go") {
		t.Fatalf("after the failed gate the worker sees %v", p)
	}

	// Fixed: the gate passes, a PR waits for the judge, who rejects it.
	s.write(dir, "cache.go", "package shop\n\ntype Cache struct{}\n\nfunc NewCache() *Cache { return &Cache{} }\n")
	commitIn(t, dir, "constructor", "cache.go")
	worker.ok("complete_phase", map[string]any{"issue_id": id, "completed_phase": "ready", "summary": "with NewCache", "project_path": dir})
	r := s.mustTick(id + " ready pr_created")
	second := list(r["transitions"])[0].(map[string]any)["pr_id"].(string)
	if out := s.ok(s.repo, "prs"); !strings.Contains(out, second) || !strings.Contains(out, "open") {
		t.Fatalf("baton prs:\n%s", out)
	}
	judge.ok("reject_pr", map[string]any{"issue_id": id, "reason": "No test", "fix_instructions": "Add cache_test.go"})
	issue = worker.ok("get_issue", map[string]any{"issue_id": id})
	if p := issue["pull_request"].(map[string]any); issue["status"] != "todo" || p["fix_instructions"] != "Add cache_test.go" {
		t.Fatalf("after reject_pr the worker sees %v / %v", issue["status"], p)
	}

	// Reworked: a third PR, approved; its gates run again for real.
	s.write(dir, "cache_test.go", "package shop\n\nimport \"testing\"\n\nfunc TestNewCache(t *testing.T) { _ = NewCache() }\n")
	commitIn(t, dir, "test", "cache_test.go")
	worker.ok("complete_phase", map[string]any{"issue_id": id, "completed_phase": "ready", "summary": "with a test", "project_path": dir})
	r = s.mustTick(id + " ready pr_created")
	third := list(r["transitions"])[0].(map[string]any)["pr_id"].(string)
	show := s.okJSON(s.repo, "pr", "show", third)
	var files []string
	for _, f := range list(show["files"]) {
		files = append(files, f.(map[string]any)["path"].(string))
	}
	slices.Sort(files)
	if !slices.Equal(files, []string{"cache.go", "cache_test.go"}) || !strings.Contains(show["diff"].(string), "+func TestNewCache") {
		t.Fatalf("pr show %s: files %v, diff %q", third, files, show["diff"])
	}
	gates := s.okJSON(s.repo, "pr", "gates", third)
	if g := list(gates["gate_results"]); len(g) != 1 || g[0].(map[string]any)["exit_code"] != 0.0 || g[0].(map[string]any)["source"] != "run" {
		t.Fatalf("pr gates = %v", gates)
	}
	if a := judge.ok("approve_pr", map[string]any{"issue_id": id}); a["status"] != "approved" || a["issue_status"] != "review" {
		t.Fatalf("approve_pr = %v", a)
	}
	// Two more ticks change nothing.
	s.mustTick()
	s.mustTick()
	checkTrail(t, s, []string{"phase.completed", "phase.advanced", "phase.rejected", "pr.created", "pr.rejected", "pr.approved", "pr.gates_run"})
}

// watchUntil reads the project's events through `baton watch --json`
// until done says it has seen enough (or 60 s pass), and returns them.
func watchUntil(t *testing.T, s *shop, done func(evs []map[string]any) bool) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--db", s.db, "--project", "shop", "watch", "--json", "--every", "20ms")
	cmd.Dir = s.repo
	out := &syncBuffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var evs []map[string]any
		for _, line := range strings.Split(out.String(), "\n") {
			var ev map[string]any
			if json.Unmarshal([]byte(line), &ev) == nil {
				evs = append(evs, ev)
			}
		}
		if done(evs) || time.Now().After(deadline) {
			return evs
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// perIssue counts the events of type typ by subject.
func perIssue(evs []map[string]any, typ string) map[string]int {
	n := map[string]int{}
	for _, e := range evs {
		if e["type"] == typ {
			n[fmt.Sprint(e["subject"])]++
		}
	}
	return n
}

// TestPipelineTwoReplicasTickOnPostgres: two `baton serve` replicas on one
// PostgreSQL database tick every 50 ms, and four `baton orchestrator tick`
// processes join in at once; every claim and every verdict is still
// processed exactly once (one transition each, one action each), and an
// SSE subscriber of one replica sees the transitions the other made.
func TestPipelineTwoReplicasTickOnPostgres(t *testing.T) {
	t.Parallel()
	s := newShop(t, pgDB(t))
	const n = 6
	researcher := cliAgent{s, "researcher-1", "researcher", s.repo}
	judge := cliAgent{s, "judge-1", "judge", s.repo}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = researcher.ok("create_issue", map[string]any{"title": fmt.Sprintf("Issue %d", i+1)})["issue_id"].(string)
	}

	startHTTP(t, s.db, "--agent", "replica-a", "--tick-every", "50ms")
	b := startHTTP(t, s.db, "--agent", "replica-b", "--tick-every", "50ms")
	// B's live event stream, read into sse as it comes.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url+"/events?project=shop", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /events on B: %v %v", resp, err)
	}
	defer resp.Body.Close()
	sse := &syncBuffer{}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				sse.Write([]byte(data + "\n"))
			}
		}
	}()

	// Ticking by hand as well, four at once, while the replicas tick.
	ticking := make(chan struct{})
	tickers := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-ticking:
					tickers <- nil
					return
				default:
				}
				cmd := exec.Command(bin, "--db", s.db, "orchestrator", "tick")
				if out, err := cmd.CombinedOutput(); err != nil {
					tickers <- fmt.Errorf("tick: %v\n%s", err, out)
					return
				}
			}
		}()
	}
	stopTickers := func() {
		close(ticking)
		for range 4 {
			if err := <-tickers; err != nil {
				t.Error(err)
			}
		}
	}

	hashes := map[string]string{}
	for _, id := range ids {
		issue := researcher.ok("get_issue", map[string]any{"issue_id": id})
		path, hash := s.artifact(s.repo, issue, "Research for "+id)
		hashes[id] = hash
		researcher.ok("complete_phase", map[string]any{"issue_id": id, "completed_phase": "research", "contract_version": 1,
			"artifact_path": path, "artifact_hash": hash, "summary": "found", "recommended_next_phase": "architecture",
			"project_path": s.repo})
	}
	evs := watchUntil(t, s, func(evs []map[string]any) bool { return len(perIssue(evs, "phase.awaiting_verdict")) == n })
	for _, id := range ids {
		judge.ok("approve_phase", map[string]any{"issue_id": id, "phase": "research", "artifact_hash": hashes[id]})
	}
	evs = watchUntil(t, s, func(evs []map[string]any) bool { return len(perIssue(evs, "phase.advanced")) == n })
	// Let every ticker have another go at it, then stop them.
	time.Sleep(300 * time.Millisecond)
	stopTickers()
	// An event after the last tick's: once watch shows it, it has shown
	// everything before it.
	cliAgent{s, "end-marker", "judge", s.repo}.ok("add_comment", map[string]any{"issue_id": ids[0], "content": "checked"})
	evs = watchUntil(t, s, func(evs []map[string]any) bool {
		return slices.ContainsFunc(evs, func(e map[string]any) bool { return e["agent"] == "end-marker" })
	})
	for _, typ := range []string{"phase.completed", "phase.awaiting_verdict", "phase.verdict", "phase.advanced"} {
		got := perIssue(evs, typ)
		for _, id := range ids {
			if got[id] != 1 {
				t.Errorf("%s: %d %s events, want exactly 1 (%v)", id, got[id], typ, got)
			}
		}
	}
	for _, typ := range []string{"phase.stale", "phase.rejected", "phase.ignored", "phase.escalated"} {
		if got := perIssue(evs, typ); len(got) != 0 {
			t.Errorf("%s events: %v, want none", typ, got)
		}
	}
	for _, id := range ids {
		issue := judge.ok("get_issue", map[string]any{"issue_id": id})
		expectIssue(t, issue, "todo", "architecture", false)
	}
	// One action per transition in the audit trail, which verifies.
	if trail := s.okJSON(s.repo, "audit", "verify"); trail["ok"] != true {
		t.Fatalf("audit verify = %v", trail)
	}
	st, err := postgres.Open(context.Background(), s.db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ticks := map[string]int{}
	err = st.View(context.Background(), func(tx baton.Tx) error {
		as, err := tx.Actions(context.Background(), 0, 10000)
		for _, a := range as {
			if a.Tool == "orchestrator_tick" {
				ticks[a.Subject]++
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if ticks[id] != 2 { // the claim checked, the verdict applied
			t.Errorf("%s: %d orchestrator actions, want 2 (%v)", id, ticks[id], ticks)
		}
	}
	// B's subscribers saw every transition, whichever replica made it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		seen := map[string]int{}
		for _, line := range strings.Split(sse.String(), "\n") {
			var ev map[string]any
			if json.Unmarshal([]byte(line), &ev) == nil && ev["type"] == "phase.advanced" {
				seen[fmt.Sprint(ev["subject"])]++
			}
		}
		if len(seen) == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B's SSE stream showed phase.advanced for %v, want all of %v", seen, ids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
