package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// prFixture is a dashboard with a project whose root is a real git
// repository, an issue in it and that issue's worktree
// (testkit.IssueRepo): PR records are built by create_pr from git.
type prFixture struct {
	*dash
	*testkit.IssueRepo
}

const prProject = "sym"

func newPRFixture(t *testing.T) *prFixture {
	t.Helper()
	d := newDash(t)
	return &prFixture{dash: d, IssueRepo: d.NewIssueRepo(prProject)}
}

// worker is agent-w working in the issue's worktree, its session bound to
// the issue.
func (f *prFixture) worker() *testkit.Kit {
	c := *f.Kit
	c.Principal = baton.Principal{Agent: "agent-w", Profile: "worker", AgentType: "worker", IssueID: f.Issue,
		WorktreePath: f.Worktree, Source: baton.SourceTest}
	c.Env = &tool.Env{Store: f.Store, Registry: f.Registry, DataDir: f.Env.DataDir, WorkDir: f.Worktree, Server: f.Env.Server, Bus: f.Env.Bus}
	return &c
}

// openPR has the worker claim the issue, commit a change adding a script
// tag and a Go file, and open the PR with a failing optional gate.
func (f *prFixture) openPR() string {
	f.t.Helper()
	w := f.worker()
	w.OK("claim_item", map[string]any{"item_id": f.Issue})
	f.Write(f.Worktree, "web/page.html", "<script>alert(1)</script>\n")
	f.Write(f.Worktree, "server/api.go", "package server\n\nfunc API() { return }\n")
	f.Commit(f.Worktree, "feature")
	out := w.OK("create_pr", map[string]any{"diff": "x", "branch_name": f.Branch, "base_branch": "main",
		"gate_results": []map[string]any{
			{"command": "go test ./...", "label": "tests", "exit_code": 0, "output": "ok", "required": true},
			{"command": "golint <x>", "label": "lint", "exit_code": 1, "output": "lint says <b>no</b>", "required": false},
		}})
	return out["pr_id"].(string)
}

func TestPRsListsAPRMadeThroughCreatePR(t *testing.T) {
	f := newPRFixture(t)
	id := f.openPR()
	st, page := f.get("/prs")
	if st != http.StatusOK {
		t.Fatalf("GET /prs: %d", st)
	}
	mustContain(t, page, `href="/prs/`+id+`"`, `href="/items/`+f.Issue+`"`, `<span class="badge review">open</span>`,
		"+2", "−1", "1 passed", "1 failed", "agent-w", `aria-current="page">PRs`)

	// The status filter narrows; a bad status is a structured error.
	_, page = f.get("/prs?status=approved")
	mustContain(t, page, "No PR records with status approved")
	if strings.Contains(page, `href="/prs/`+id+`"`) {
		t.Errorf("the approved filter lists the open %s", id)
	}
	_, page = f.get("/prs?status=open")
	mustContain(t, page, `href="/prs/`+id+`"`)
	st, page = f.get("/prs?status=%3Cbogus%3E")
	if st != http.StatusBadRequest {
		t.Fatalf("GET /prs?status=<bogus>: %d, want 400", st)
	}
	mustContain(t, page, "is not a PR status", "&lt;bogus&gt;")
}

func TestPRPageShowsDiffStatsGatesAndRisk(t *testing.T) {
	f := newPRFixture(t)
	id := f.openPR()
	st, page := f.get("/prs/" + id)
	if st != http.StatusOK {
		t.Fatalf("GET /prs/%s: %d", id, st)
	}
	// The diff is text: the added script tag is escaped, classed by line.
	mustContain(t, page, `<span class="add">&#43;&lt;script&gt;alert(1)&lt;/script&gt;</span>`,
		`<span class="del">-func API() {}</span>`, `<span class="hunk">@@`, `<span class="file">&#43;&#43;&#43; b/web/page.html</span>`,
		"<code>web/page.html</code>", "added", "modified",
		"<strong>tests</strong>", "<strong>lint</strong>", "failed, exit 1", "golint &lt;x&gt;", "lint says &lt;b&gt;no&lt;/b&gt;",
		`data-tool="approve_pr"`, `data-tool="reject_pr"`, `name="issue_id" value="`+f.Issue+`"`, "Not reviewed yet.")
	if strings.Contains(page, "<script>alert") {
		t.Error("the diff's script tag reached the page as HTML")
	}

	st, _ = f.get("/prs/PR-999")
	if st != http.StatusNotFound {
		t.Fatalf("GET /prs/PR-999: %d, want 404", st)
	}
}

func TestRejectingAPRFromItsPageIsAuditedAsTheUser(t *testing.T) {
	f := newPRFixture(t)
	id := f.openPR()
	out := f.mustAct("reject_pr", map[string]any{"issue_id": f.Issue, "reason": "too <risky>", "fix_instructions": "split it"})
	if out["status"] != "rejected" || out["issue_status"] != "todo" {
		t.Fatalf("reject_pr: %v", out)
	}
	_, page := f.get("/prs/" + id)
	mustContain(t, page, `<span class="badge fail">rejected</span>`, "reviewed by <strong>user</strong>", "too &lt;risky&gt;", "split it")
	if strings.Contains(page, `data-tool="reject_pr"`) {
		t.Error("a rejected PR still offers to reject it")
	}
	if n := f.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'reject_pr' AND agent = ? AND source = ? AND subject = ?`,
		baton.User, string(baton.SourceWeb), f.Issue); n != 1 {
		t.Fatalf("%d reject_pr actions by the user from the web, want 1", n)
	}
	_, page = f.get("/prs?status=rejected")
	mustContain(t, page, `href="/prs/`+id+`"`)
}

func TestDiffLinesClassesByHunk(t *testing.T) {
	diff := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n--- a removed line starting with dashes\n+added\n"
	lines, hidden := diffLines(diff, 100)
	want := []string{"file", "file", "file", "hunk", "", "del", "add"}
	if hidden != 0 || len(lines) != len(want) {
		t.Fatalf("got %d lines (%d hidden): %+v", len(lines), hidden, lines)
	}
	for i, w := range want {
		if lines[i].Class != w {
			t.Errorf("line %d %q: class %q, want %q", i, lines[i].Text, lines[i].Class, w)
		}
	}
	if lines, hidden = diffLines(diff, 3); len(lines) != 3 || hidden != 4 {
		t.Errorf("bounded to 3: %d lines, %d hidden", len(lines), hidden)
	}
}

// TestPRPageSaysTruncatedAndBlocked: a PR whose diff was cut at 1 MiB says
// so, and one whose required gate failed offers no approval (made in the
// store: create_pr would need a diff over 1 MiB).
func TestPRPageSaysTruncatedAndBlocked(t *testing.T) {
	d := newDash(t)
	item := d.StoreItem(&baton.Item{Title: "big", Status: baton.StatusReview})
	p := &baton.PR{ItemID: item, BranchName: "b", BaseBranch: "main", Diff: "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n",
		DiffTruncated: true, Status: baton.PROpen, CreatedBy: "agent-bob",
		Files: []baton.FileStat{{Path: "x", Status: "modified", Added: 1, Removed: 1}, {Path: "logo.png", OldPath: "old.png", Status: "renamed", Binary: true}},
		Gates: []baton.GateResult{{Command: "make test", Label: "tests", ExitCode: 2, Required: true, Source: "run", TimedOut: true}},
		Risk:  baton.RiskScore{Level: baton.RiskHigh, SensitiveFiles: []string{"x"}, Reasons: []string{"x is <sensitive>"}}}
	ctx := context.Background()
	if err := d.Store.Update(ctx, func(tx baton.Tx) error { return tx.CreatePR(ctx, p) }); err != nil {
		t.Fatal(err)
	}
	_, page := d.get("/prs/" + p.ID)
	mustContain(t, page, "The diff was truncated", "cannot be approved", "timed out", `<span class="badge high">high</span>`,
		"x is &lt;sensitive&gt;", "<code>old.png</code>", "renamed", "binary", `data-tool="reject_pr"`)
	if strings.Contains(page, `data-tool="approve_pr"`) {
		t.Error("a PR with a failed required gate offers approval")
	}
	_, page = d.get("/prs")
	mustContain(t, page, `<span class="badge blocked">blocking</span>`)
}
