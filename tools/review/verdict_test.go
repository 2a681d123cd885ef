package review_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/review"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestApprovePR: the judge approves the open PR; it is approved, the
// issue stays in review for a human merge, and the verdict is logged with
// a pr.approved event. A second verdict on it is refused.
func TestApprovePR(t *testing.T) {
	f := setup(t)
	f.claim()
	f.work("a.txt", 2)
	f.worker().OK("create_pr", f.createArgs(nil))
	out := f.judge().OK("approve_pr", map[string]any{"reason": "Matches the requirements"})
	if out["pr_id"] != "PR-1" || out["status"] != "approved" || out["issue_status"] != "review" ||
		out["reviewed_by"] != "agent-j" || out["reason"] != "Matches the requirements" || out["risk_level"] != "low" {
		t.Fatalf("approve_pr: %v", out)
	}
	p := f.pr("PR-1")
	if p.Status != baton.PRApproved || p.ReviewedBy != "agent-j" || p.ReviewedAt.IsZero() || p.Reason != "Matches the requirements" {
		t.Fatalf("record %+v", p)
	}
	if it := f.item(); it.Status != baton.StatusReview {
		t.Fatalf("issue %s, want review", it.Status)
	}
	for _, name := range []string{"approve_pr", "reject_pr"} {
		e := f.judge().FailEnvelope(name, map[string]any{}, baton.ErrInvalidTransition)
		if !strings.Contains(e.Message, "PR-1, the latest PR of "+f.Issue+", is already approved") {
			t.Fatalf("%s after approval: %+v", name, e)
		}
	}
	if ev := f.events(); !slices.Contains(ev, "pr.approved") {
		t.Fatalf("events %v lack pr.approved", ev)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'approve_pr' AND agent = 'agent-j' AND subject = ?`, f.Issue); n != 1 {
		t.Fatalf("%d approve_pr actions", n)
	}
}

// TestRejectPR: rejection records reason and fix instructions, sends the
// issue back to todo (assigned to its worker, so claim_next gives it back
// to them), and the worker reads what to fix in get_issue: as a comment
// and in the issue's pull_request.
func TestRejectPR(t *testing.T) {
	f := setup(t)
	f.claim()
	f.work("a.txt", 2)
	f.worker().OK("create_pr", f.createArgs(nil))
	out := f.judge().OK("reject_pr", map[string]any{"reason": "Missing error handling",
		"fix_instructions": "Return 400 for validation errors."})
	if out["status"] != "rejected" || out["issue_status"] != "todo" || out["fix_instructions"] != "Return 400 for validation errors." ||
		out["comment_id"] == "" {
		t.Fatalf("reject_pr: %v", out)
	}
	it := f.item()
	if it.Status != baton.StatusTodo || it.Assignee != "agent-w" || it.UpdatedBy != "agent-j" {
		t.Fatalf("issue %s assignee %q updated by %q", it.Status, it.Assignee, it.UpdatedBy)
	}
	got := f.worker().OK("get_issue", map[string]any{})
	pr := got["pull_request"].(map[string]any)
	if pr["id"] != "PR-1" || pr["status"] != "rejected" || pr["fix_instructions"] != "Return 400 for validation errors." ||
		pr["reason"] != "Missing error handling" || pr["reviewed_by"] != "agent-j" {
		t.Fatalf("get_issue pull_request %v", pr)
	}
	comments := got["comments"].([]any)
	last := comments[len(comments)-1].(map[string]any)
	want := "PR PR-1 rejected: Missing error handling\n\nFix instructions:\nReturn 400 for validation errors."
	if last["content"] != want || last["created_by"] != "agent-j" {
		t.Fatalf("last comment %v, want %q", last, want)
	}
	// The worker takes the rework back from the queue.
	next := f.as("agent-w", "worker", f.Worktree).OK("claim_next", map[string]any{"project": project})
	if next["item_id"] != f.Issue && next["id"] != f.Issue {
		t.Fatalf("claim_next gave %v, want %s", next, f.Issue)
	}
	if ev := f.events(); !slices.Contains(ev, "pr.rejected") {
		t.Fatalf("events %v lack pr.rejected", ev)
	}
}

// TestApprovePRBlockedByRequiredGate: a failed required gate refuses
// approval (naming the gate, changing nothing); an optional one does not;
// rejection is still possible.
func TestApprovePRBlockedByRequiredGate(t *testing.T) {
	f := setup(t)
	f.configure(func(c *baton.ProjectConfig) {
		c.Gates = []baton.Gate{{Command: "go test ./...", Label: "Tests", Required: true}}
	})
	f.work("a.txt", 2)
	f.worker().OK("create_pr", f.createArgs(map[string]any{"gate_results": []map[string]any{
		{"command": "go test ./...", "label": "Tests", "exit_code": 1, "output": "FAIL"},
		{"command": "golint", "label": "Lint", "exit_code": 1, "output": "style", "required": false},
	}}))
	e := f.judge().FailEnvelope("approve_pr", map[string]any{"reason": "looks fine"}, baton.ErrInvalidTransition)
	if e.Type != "gate_failed" || !strings.Contains(e.Message, "PR-1 cannot be approved: required gate Tests (exit 1) did not pass") ||
		!strings.Contains(e.Hint, "baton pr gates PR-1") {
		t.Fatalf("approve with a failed gate: %+v", e)
	}
	if p := f.pr("PR-1"); p.Status != baton.PROpen || p.Reason != "" || p.ReviewedBy != "" {
		t.Fatalf("a refused approval changed the PR: %+v", p)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'approve_pr'`); n != 0 {
		t.Fatal("a refused approval was logged")
	}
	f.judge().OK("reject_pr", map[string]any{"fix_instructions": "make Tests pass"})
}

// TestReviewRefusals: no PR, reviewing your own PR, a PR whose issue left
// review.
func TestReviewRefusals(t *testing.T) {
	t.Run("no PR", func(t *testing.T) {
		f := setup(t)
		e := f.judge().FailEnvelope("approve_pr", map[string]any{}, baton.ErrNotFound)
		if e.Type != "pr_not_found" || !strings.Contains(e.Message, f.Issue+" has no PR to review") {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("own PR", func(t *testing.T) {
		f := setup(t)
		f.work("a.txt", 1)
		f.worker().OK("create_pr", f.createArgs(nil))
		// A profile granted both tools still may not judge its own work.
		k := f.as("agent-w", "", f.Worktree)
		e := k.FailEnvelope("approve_pr", map[string]any{}, baton.ErrPermissionDenied)
		if e.Type != "self_review" || !strings.Contains(e.Message, "agent-w opened PR-1: an agent does not review its own PR") {
			t.Fatalf("%+v", e)
		}
		// The user may: they merge it anyway.
		u := f.as(baton.User, "", f.Repo)
		u.OK("approve_pr", map[string]any{"issue_id": f.Issue})
	})
	t.Run("issue left review", func(t *testing.T) {
		f := setup(t)
		f.work("a.txt", 1)
		f.worker().OK("create_pr", f.createArgs(nil))
		it := f.item()
		it.Status = baton.StatusBlocked
		ctx := context.Background()
		if err := f.k.Store.Update(ctx, func(tx baton.Tx) error { return tx.UpdateItem(ctx, it) }); err != nil {
			t.Fatal(err)
		}
		e := f.judge().FailEnvelope("approve_pr", map[string]any{}, baton.ErrInvalidTransition)
		if !strings.Contains(e.Message, "is blocked, not in review") {
			t.Fatalf("%+v", e)
		}
	})
}

// TestPRToolProfiles: create_pr is the worker's (deprecated), approve_pr
// and reject_pr the judge's; each is refused to the other profile.
func TestPRToolProfiles(t *testing.T) {
	f := setup(t)
	f.work("a.txt", 1)
	f.judge().FailEnvelope("create_pr", f.createArgs(nil), baton.ErrPermissionDenied)
	f.worker().FailEnvelope("approve_pr", map[string]any{}, baton.ErrPermissionDenied)
	f.worker().FailEnvelope("reject_pr", map[string]any{}, baton.ErrPermissionDenied)
	if len(f.prs()) != 0 {
		t.Fatal("a refused call made a PR")
	}
	for _, c := range []struct {
		profile string
		has     []string
		lacks   []string
	}{
		{"worker", []string{"create_pr"}, []string{"approve_pr", "reject_pr"}},
		{"judge", []string{"approve_pr", "reject_pr"}, []string{"create_pr"}},
		{"researcher", nil, []string{"create_pr", "approve_pr", "reject_pr"}},
	} {
		names := listTools(t, f, c.profile)
		for _, n := range c.has {
			if !slices.Contains(names, n) {
				t.Errorf("%s lacks %s", c.profile, n)
			}
		}
		for _, n := range c.lacks {
			if slices.Contains(names, n) {
				t.Errorf("%s has %s", c.profile, n)
			}
		}
	}
}

// session connects an in-memory MCP client to a baton server that runs
// its calls as the principal of k.
func session(t *testing.T, f *fx, agent, profile, dir string) *mcp.ClientSession {
	t.Helper()
	k := f.as(agent, profile, dir)
	k.Principal.Source = baton.SourceStdio
	if profile == "worker" {
		k.Principal.WorktreePath = f.Worktree
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.NewFactory(k.Registry, k.Env, "test").Server(k.Principal).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listTools(t *testing.T, f *fx, profile string) []string {
	t.Helper()
	res, err := session(t, f, "agent-"+profile, profile, f.Repo).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out, res.IsError
}

// TestPRCycleOverMCP: a worker session and a judge session, each with its
// profile, over MCP: PR, rejection, rework, second PR, approval.
func TestPRCycleOverMCP(t *testing.T) {
	f := setup(t)
	worker := session(t, f, "agent-w", "worker", f.Worktree)
	judge := session(t, f, "agent-j", "judge", f.Repo)
	if out, isErr := call(t, worker, "claim_item", map[string]any{"item_id": f.Issue}); isErr {
		t.Fatalf("claim: %v", out)
	}
	f.work("feature.go", 30)
	out, isErr := call(t, worker, "create_pr", f.createArgs(nil))
	if isErr || out["risk"].(map[string]any)["level"] != "medium" {
		t.Fatalf("create_pr: %v", out)
	}
	if out, isErr = call(t, judge, "reject_pr", map[string]any{"reason": "no tests", "fix_instructions": "add feature_test.go"}); isErr {
		t.Fatalf("reject_pr: %v", out)
	}
	got, _ := call(t, worker, "get_issue", map[string]any{})
	if got["status"] != "todo" || got["pull_request"].(map[string]any)["fix_instructions"] != "add feature_test.go" {
		t.Fatalf("the worker's view after the rejection: %v", got)
	}
	if out, isErr = call(t, worker, "claim_item", map[string]any{"item_id": f.Issue}); isErr {
		t.Fatalf("claim again: %v", out)
	}
	f.work("feature_test.go", 10)
	if out, isErr = call(t, worker, "create_pr", f.createArgs(nil)); isErr || out["pr_id"] != "PR-2" {
		t.Fatalf("second create_pr: %v", out)
	}
	if out, isErr = call(t, judge, "approve_pr", map[string]any{"reason": "tests added"}); isErr || out["status"] != "approved" {
		t.Fatalf("approve_pr: %v", out)
	}
	if it := f.item(); it.Status != baton.StatusReview {
		t.Fatalf("issue %s after approval, want review", it.Status)
	}
	var statuses []string
	for _, p := range f.prs() {
		statuses = append(statuses, p.ID+":"+string(p.Status))
	}
	if !slices.Equal(statuses, []string{"PR-2:approved", "PR-1:superseded"}) {
		t.Fatalf("PRs %v", statuses)
	}
}

// TestOrchestratorOpensPR: Open as the orchestrator (actor not the
// creator) ends the worker's claim, moves the issue to review and
// records the gates it ran, whose failure blocks approval.
func TestOrchestratorOpensPR(t *testing.T) {
	f := setup(t)
	f.configure(func(c *baton.ProjectConfig) {
		c.Gates = []baton.Gate{{Command: "test -f a.txt", Label: "Has a", Required: true},
			{Command: "exit 4", Label: "Fails", Required: true}}
	})
	f.claim()
	f.work("a.txt", 1)
	ctx := context.Background()
	var cfg *baton.ProjectConfig
	if err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) { cfg, err = review.LoadConfig(ctx, tx, project); return err }); err != nil {
		t.Fatal(err)
	}
	d, err := review.Prepare(ctx, f.Worktree, "main", f.Branch, cfg, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	var o *review.Opened
	if err := f.k.Store.Update(ctx, func(tx baton.Tx) (err error) {
		o, err = review.Open(ctx, tx, review.OpenInput{ItemID: f.Issue, Draft: d, Creator: "agent-w", Actor: "orchestrator", Now: time.Now().UTC()})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if o.Item.Status != baton.StatusReview || o.PreviousStatus != baton.StatusInProgress || o.PR.CreatedBy != "agent-w" {
		t.Fatalf("opened %+v", o)
	}
	if len(o.PR.Gates) != 2 || !o.PR.Gates[0].Passed() || o.PR.Gates[1].ExitCode != 4 || o.PR.Gates[1].Source != "run" {
		t.Fatalf("gates %+v", o.PR.Gates)
	}
	if len(o.Blocking) != 1 || o.Blocking[0].Label != "Fails" {
		t.Fatalf("blocking %+v", o.Blocking)
	}
	_ = f.k.Store.View(ctx, func(tx baton.Tx) error {
		if cl, _ := tx.ClaimOf(ctx, f.Issue); cl != nil {
			t.Errorf("the worker's claim survived: %+v", cl)
		}
		return nil
	})
	// No judge for work that fails its gates: the orchestrator sends it
	// back with the gate's output as the fix instructions.
	v, ok := review.GateVerdict(o.PR, "orchestrator", time.Now().UTC())
	if !ok || v.Reason != "required gate Fails failed" || v.FixInstructions != "Make the Fails gate pass: `exit 4` exited 4" {
		t.Fatalf("gate verdict %+v", v)
	}
	if err := f.k.Store.Update(ctx, func(tx baton.Tx) error {
		_, _, err := review.Decide(ctx, tx, o.PR, v)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got := f.worker().OK("get_issue", map[string]any{})
	if got["status"] != "todo" || got["pull_request"].(map[string]any)["fix_instructions"] != v.FixInstructions {
		t.Fatalf("the worker's view after the gate rejection: %v", got)
	}
}
