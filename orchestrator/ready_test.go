package orchestrator_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/orchestrator"
)

// readyIssue is an issue in the ready phase, claimed by worker-1, whose
// worktree branch has one commit.
func (f *fixture) readyIssue() (id, dir string) {
	f.t.Helper()
	id, dir = f.issue(baton.PhaseReady)
	w := f.agent("worker-1", "worker", id, dir)
	w.OK("claim_item", map[string]any{"item_id": id})
	write(f.t, dir, "server/pool.go", "package server\n\nconst PoolSize = 32\n")
	git(f.t, dir, "add", "server/pool.go")
	git(f.t, dir, "commit", "-q", "-m", "bigger pool")
	return id, dir
}

func (f *fixture) completeReady(id, dir string) string {
	f.t.Helper()
	return f.agent("worker-1", "worker", id, dir).OK("complete_phase", map[string]any{"completed_phase": "ready",
		"summary": "pool raised to 32", "project_path": dir})["finding_id"].(string)
}

// setGates configures the project's quality gates.
func (f *fixture) setGates(gates ...baton.Gate) {
	f.t.Helper()
	if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error {
		c, err := tx.ProjectConfig(f.ctx, "sym")
		if err != nil {
			return err
		}
		c = c.Clone()
		c.Gates, c.UpdatedBy = gates, "user"
		return tx.PutProjectConfig(f.ctx, c)
	}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) prs(id string) []*baton.PR {
	f.t.Helper()
	var out []*baton.PR
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) (err error) {
		out, err = tx.PRs(f.ctx, baton.PRFilter{ItemID: id})
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// TestTickOpensThePRofAReadyClaim: a worker's ready claim becomes a PR
// record built by git from the commits on the issue's branch (never from
// text the agent sent), with the gates the project configures run in the
// worktree; the issue moves to review, the worker's claim ends, and a
// pr.created event joins the project's stream.
func TestTickOpensThePRofAReadyClaim(t *testing.T) {
	f := newFixture(t)
	f.setGates(baton.Gate{Command: "test -f server/pool.go", Label: "Pool", Required: true})
	id, dir := f.readyIssue()
	pc := f.completeReady(id, dir)
	r := f.once()
	if got := outcomes(r); !slices.Equal(got, []string{pc + ":" + baton.OutcomePRCreated}) {
		t.Fatalf("tick = %v, want the PR created", got)
	}
	prs := f.prs(id)
	if len(prs) != 1 || r.Transitions[0].PRID != prs[0].ID {
		t.Fatalf("PRs %+v, transition %+v", prs, r.Transitions[0])
	}
	var pr *baton.PR
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) (err error) { pr, err = tx.PR(f.ctx, prs[0].ID); return err }); err != nil {
		t.Fatal(err)
	}
	if pr.Status != baton.PROpen || pr.BranchName != "symphony/"+id || pr.BaseBranch != "main" || pr.CreatedBy != "worker-1" ||
		len(pr.Files) != 1 || pr.Files[0].Path != "server/pool.go" || !strings.Contains(pr.Diff, "+const PoolSize = 32") {
		t.Errorf("PR %+v does not hold the branch's commit", pr)
	}
	if len(pr.Gates) != 1 || pr.Gates[0].Source != "run" || !pr.Gates[0].Passed() {
		t.Errorf("gates %+v, want the configured gate run and passed", pr.Gates)
	}
	it := f.item(id)
	if it.Status != baton.StatusReview {
		t.Errorf("issue after the PR: %s, want review", describe(it))
	}
	var claim *baton.Claim
	_ = f.k.Store.View(f.ctx, func(tx baton.Tx) (err error) { claim, err = tx.ClaimOf(f.ctx, id); return err })
	if claim != nil {
		t.Errorf("the worker's claim survived the hand-over to review: %+v", claim)
	}
	if got := f.events("pr.created"); !slices.Equal(got, []string{"pr.created " + id}) {
		t.Errorf("pr events = %v", got)
	}
	// A second ready claim while the PR is under review disturbs nothing.
	pc2 := f.completeReadyAgain(id, dir)
	if got := outcomes(f.once()); !slices.Equal(got, []string{pc2 + ":" + baton.OutcomeStale}) {
		t.Errorf("second ready claim during review = %v, want stale", got)
	}
	if n := len(f.prs(id)); n != 1 || f.item(id).Status != baton.StatusReview {
		t.Errorf("after a claim during review: %d PRs, %s", n, describe(f.item(id)))
	}
}

func (f *fixture) completeReadyAgain(id, dir string) string {
	f.t.Helper()
	// The issue is in review now: the tool takes the claim (it is the
	// tick that judges what it is worth).
	return f.agent("worker-1", "worker", id, dir).OK("complete_phase", map[string]any{"completed_phase": "ready",
		"summary": "again", "project_path": dir})["finding_id"].(string)
}

// TestTickSendsAReadyClaimBackWhenARequiredGateFails: the PR is recorded
// with the failing gate and rejected by the orchestrator at once, no
// judge needed: the issue goes back to todo with needs-revision and a
// comment carrying the gate's output.
func TestTickSendsAReadyClaimBackWhenARequiredGateFails(t *testing.T) {
	f := newFixture(t)
	f.setGates(baton.Gate{Command: "echo 'FAIL: TestPool wants 64'; exit 3", Label: "Tests", Required: true},
		baton.Gate{Command: "true", Label: "Lint", Required: false})
	id, dir := f.readyIssue()
	pc := f.completeReady(id, dir)
	r := f.once()
	if got := outcomes(r); !slices.Equal(got, []string{pc + ":" + baton.OutcomeRejected}) {
		t.Fatalf("tick = %v, want the claim rejected", got)
	}
	tr := r.Transitions[0]
	if tr.PRID == "" || !strings.Contains(tr.Reason, "required gate Tests failed") || tr.Status != string(baton.StatusTodo) {
		t.Errorf("transition %+v", tr)
	}
	prs := f.prs(id)
	if len(prs) != 1 || prs[0].Status != baton.PRRejected || prs[0].ReviewedBy != orchestrator.Agent {
		t.Fatalf("PRs %+v, want one rejected by the orchestrator", prs)
	}
	it := f.item(id)
	if it.Status != baton.StatusTodo || !hasLabel(it, orchestrator.NeedsRevision) {
		t.Errorf("issue %s, want todo with needs-revision", describe(it))
	}
	b, _ := json.Marshal(f.comments(id))
	if !strings.Contains(string(b), "FAIL: TestPool wants 64") {
		t.Errorf("no comment carries the gate's output: %s", b)
	}
}

// TestTickRejectsAReadyClaimWithoutCommits: a claim whose branch has no
// committed change against its base (the tool refuses one, so it is
// written to the store here) is rejected with git's word for it.
func TestTickRejectsAReadyClaimWithoutCommits(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseReady)
	b, _ := json.Marshal(baton.PhaseCompletion{CompletedPhase: "ready", Summary: "nothing", OpenQuestions: []string{}, Confidence: "medium", ProjectPath: dir})
	fd := &baton.Finding{ItemID: id, Category: baton.CategoryPhaseCompletion, Summary: "nothing", Details: string(b), CreatedBy: "worker-1"}
	if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error { return tx.AddFinding(f.ctx, fd) }); err != nil {
		t.Fatal(err)
	}
	r := f.once()
	if got := outcomes(r); !slices.Equal(got, []string{fd.ID + ":" + baton.OutcomeRejected}) || !strings.Contains(r.Transitions[0].Reason, "no committed changes") {
		t.Fatalf("tick = %v %+v", got, r.Transitions)
	}
	if n := len(f.prs(id)); n != 0 {
		t.Errorf("%d PRs for a branch without commits", n)
	}
}

// TestPoint3TickRunsGatesOnThePRsCommit: the tick's gates run in a clean
// checkout of the PR's head commit: a file left uncommitted in the
// worktree is not there, and the commit tested is recorded.
func TestPoint3TickRunsGatesOnThePRsCommit(t *testing.T) {
	f := newFixture(t)
	f.setGates(baton.Gate{Command: "test -f server/pool.go && test ! -e scratch.txt", Label: "Clean", Required: true})
	id, dir := f.readyIssue()
	pc := f.completeReady(id, dir)
	write(t, dir, "scratch.txt", "left uncommitted\n")
	if got := outcomes(f.once()); !slices.Equal(got, []string{pc + ":" + baton.OutcomePRCreated}) {
		t.Fatalf("tick = %v, want the PR created with its gate passed", got)
	}
	pr := f.prs(id)[0]
	if len(pr.Gates) != 1 || !pr.Gates[0].Passed() || pr.Gates[0].HeadSHA != pr.HeadSHA || pr.HeadSHA == "" {
		t.Errorf("gates %+v on head %s, want the gate passed on the PR's commit", pr.Gates, pr.HeadSHA)
	}
}
