package dispatch_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/dispatch"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/memory"
	"github.com/baton-dev/baton/worktree"
)

const workers = `
[dispatch]
max_agents = 4
[dispatch.profiles.worker]
command = ["AGENT", "-mode", "work", "-sleep", "1500ms", "-mcp", "{mcp_config}", "-issue", "{issue}", "-prompt-file", "{prompt_file}"]
timeout = "1m"
[dispatch.profiles.judge]
command = ["AGENT", "-mode", "judge", "-mcp", "{mcp_config}", "-issue", "{issue}", "-prompt-file", "{prompt_file}"]
timeout = "1m"
`

// TestAgentsWorkTheirIssues: three ready items get three agents at once,
// each in its own worktree and bound to its issue through the MCP
// configuration; each commits and hands its work in (complete_phase), the
// tick opens the PRs, and the next round sends judges that approve them.
func TestAgentsWorkTheirIssues(t *testing.T) {
	f := newFixture(t, workers)
	ids := []string{f.item("Add the parser"), f.item("Add the printer"), f.item("Add the docs")}

	r, fin := f.once(f.d)
	if len(r.Started) != 3 || len(fin) != 3 {
		t.Fatalf("started %d, finished %d: %+v", len(r.Started), len(fin), r)
	}
	got := byItem(fin)
	for _, id := range ids {
		fi := got[id]
		if fi == nil || fi.Status != baton.RunSucceeded || fi.Profile != "worker" || fi.Attempt != 1 || fi.ExitCode == nil || *fi.ExitCode != 0 {
			t.Fatalf("%s: %+v", id, fi)
		}
		// The agent's commit is on the issue's branch, made in its worktree.
		if log := f.git("log", "--format=%s", "-1", worktree.Branch(id)); log != "work on "+id {
			t.Errorf("%s: branch head %q", id, log)
		}
		if fi.Worktree != worktree.Dir(f.repo, id) {
			t.Errorf("%s ran in %s", id, fi.Worktree)
		}
		// The run was recorded with the agent's stream and cost.
		rs := f.runs(id)
		if len(rs) != 1 || rs[0].Status != baton.RunSucceeded || rs[0].CostUSD != 0.25 || rs[0].Model != "test-model" ||
			rs[0].EventCount < 5 || rs[0].PID == 0 || rs[0].Host == "" {
			t.Fatalf("%s runs: %+v", id, rs[0])
		}
		var evs []baton.RunEvent
		f.view(func(tx baton.Tx) (err error) {
			evs, _, err = tx.RunEvents(f.ctx, baton.RunEventFilter{RunID: rs[0].ID, Subtype: "tool_use"})
			return err
		})
		var tools []string
		for _, e := range evs {
			tools = append(tools, string(e.Data))
		}
		if s := strings.Join(tools, " "); !strings.Contains(s, "verify_workspace") || !strings.Contains(s, "complete_phase") {
			t.Errorf("%s tool_use events: %s", id, s)
		}
		// complete_phase went through; the tick after the run opened the PR.
		if it := f.get(id); it.Status != baton.StatusReview {
			t.Errorf("%s is %s after its worker", id, it.Status)
		}
	}
	// The three ran at the same time: each agent began its stream (its
	// init line, read as it came) before any of them ended it.
	var lastInit, firstResult time.Time
	for _, id := range ids {
		run := f.runs(id)[0].ID
		var evs []baton.RunEvent
		f.view(func(tx baton.Tx) (err error) {
			evs, _, err = tx.RunEvents(f.ctx, baton.RunEventFilter{RunID: run, Limit: 500})
			return err
		})
		for _, e := range evs {
			switch {
			case e.Type == "system" && e.Subtype == "init" && e.CreatedAt.After(lastInit):
				lastInit = e.CreatedAt
			case e.Type == "result" && (firstResult.IsZero() || e.CreatedAt.Before(firstResult)):
				firstResult = e.CreatedAt
			}
		}
	}
	if lastInit.IsZero() || firstResult.IsZero() || !lastInit.Before(firstResult) {
		t.Errorf("the agents did not overlap: last init %s, first result %s", lastInit, firstResult)
	}

	// Round two: the open PRs go to judges, who approve them.
	r, fin = f.once(f.d)
	if len(fin) != 3 {
		t.Fatalf("judges: %+v", r)
	}
	for _, fi := range fin {
		if fi.Profile != "judge" || fi.Status != baton.RunSucceeded {
			t.Errorf("judge run: %+v", fi)
		}
	}
	for _, id := range ids {
		var prs []*baton.PR
		f.view(func(tx baton.Tx) (err error) { prs, err = tx.PRs(f.ctx, baton.PRFilter{ItemID: id}); return err })
		if len(prs) != 1 || prs[0].Status != baton.PRApproved {
			t.Errorf("%s PRs: %+v", id, prs)
		}
	}
	// Nothing is left: a third round starts nobody.
	if r, _ := f.once(f.d); len(r.Started) != 0 {
		t.Errorf("third round started %+v", r.Started)
	}
}

// TestPhasePipeline: a phase:research item goes to the researcher its
// contract names, who writes the artifact and claims the phase complete;
// the tick sends the claim to review, where a judge is dispatched on it and
// approves, and the next tick moves the item to architecture.
func TestPhasePipeline(t *testing.T) {
	f := newFixture(t, `
[dispatch.profiles.researcher]
command = ["AGENT", "-mode", "research", "-mcp", "{mcp_config}", "-issue", "{issue}", "-prompt-file", "{prompt_file}"]
[dispatch.profiles.judge]
command = ["AGENT", "-mode", "judge-phase", "-mcp", "{mcp_config}", "-issue", "{issue}", "-prompt-file", "{prompt_file}"]
`)
	id := f.item("Find out how", baton.PhaseResearch.Label())
	r, fin := f.once(f.d)
	if len(fin) != 1 || fin[0].Profile != "researcher" || fin[0].Status != baton.RunSucceeded || r.Started[0].Kind != dispatch.KindPhase {
		t.Fatalf("research round: %+v %+v", r.Started, *fin[0])
	}
	// The run's first event is the prompt, which carries the research
	// contract and the workspace line.
	var evs []baton.RunEvent
	f.view(func(tx baton.Tx) (err error) {
		evs, _, err = tx.RunEvents(f.ctx, baton.RunEventFilter{RunID: fin[0].RunID, Subtype: "prompt"})
		return err
	})
	if len(evs) != 1 || evs[0].Seq != 1 || !strings.Contains(string(evs[0].Data), "Phase contract: research (version 1)") ||
		!strings.Contains(string(evs[0].Data), "Working in: "+worktree.Dir(f.repo, id)) {
		t.Fatalf("prompt event: %+v", evs)
	}
	if it := f.get(id); it.Status != baton.StatusReview {
		t.Fatalf("after the research: %s %v", it.Status, it.Labels)
	}
	r, fin = f.once(f.d)
	if len(fin) != 1 || fin[0].Profile != "judge" || fin[0].Status != baton.RunSucceeded || r.Started[0].Kind != dispatch.KindReviewPhase {
		t.Fatalf("judge round: %+v %+v", r.Started, fin)
	}
	if it := f.get(id); it.Status != baton.StatusTodo || it.Phase() != baton.PhaseArchitecture {
		t.Fatalf("after the verdict: %s %v", it.Status, it.Labels)
	}
}

// TestCrashingAgentRetriedThenBlocked: an agent that exits non-zero fails
// its run; the item is retried after the backoff, and once max_retries
// retries have failed it is blocked and the human gets a message.
func TestCrashingAgentRetriedThenBlocked(t *testing.T) {
	f := newFixture(t, `
[dispatch]
max_retries = 2
backoff = "400ms"
max_backoff = "600ms"
[dispatch.profiles.worker]
command = ["AGENT", "-mode", "crash"]
`)
	id := f.item("Fragile work")
	var last *dispatch.Finished
	for attempt := 1; attempt <= 3; attempt++ {
		// The backoff keeps the item out until it has passed.
		if attempt > 1 {
			if r, _ := f.once(f.d); len(r.Started) != 0 {
				t.Fatalf("attempt %d started before its backoff: %+v", attempt, r.Started)
			}
			time.Sleep(700 * time.Millisecond)
		}
		_, fin := f.once(f.d)
		if len(fin) != 1 {
			t.Fatalf("attempt %d: %+v", attempt, fin)
		}
		last = fin[0]
		if last.Attempt != attempt || last.Status != baton.RunFailed || last.ExitCode == nil || *last.ExitCode != 3 ||
			!strings.Contains(last.Error, "exited with status 3: agent: something broke") {
			t.Fatalf("attempt %d: %+v", attempt, last)
		}
		if blocked := attempt == 3; last.Blocked != blocked || (last.RetryAt != "") == blocked {
			t.Fatalf("attempt %d: blocked %v, retry at %q", attempt, last.Blocked, last.RetryAt)
		}
	}
	it := f.get(id)
	if it.Status != baton.StatusBlocked || !strings.Contains(it.BlockedReason, "3 runs failed") {
		t.Fatalf("item after the last retry: %s %q", it.Status, it.BlockedReason)
	}
	var msgs []*baton.Message
	f.update(func(tx baton.Tx) (err error) {
		msgs, err = tx.ReadMessages(f.ctx, baton.User, baton.MessageFilter{To: baton.User})
		return err
	})
	if len(msgs) != 1 || msgs[0].ID != last.MessageID || !strings.Contains(msgs[0].Body, id+" (Fragile work) needs you") {
		t.Fatalf("messages to the human: %+v", msgs)
	}
	// The agent's stderr is kept with the run.
	var out *baton.RunOutput
	f.view(func(tx baton.Tx) (err error) { out, err = tx.RunOutput(f.ctx, last.RunID); return err })
	if !strings.Contains(out.Stderr, "something broke") {
		t.Errorf("stderr kept: %q", out.Stderr)
	}
	// Blocked, it is not dispatched again; nothing holds it.
	if r, _ := f.once(f.d); len(r.Started) != 0 {
		t.Errorf("a blocked item was dispatched: %+v", r.Started)
	}
	var cl *baton.Claim
	f.view(func(tx baton.Tx) (err error) { cl, err = tx.ClaimOf(f.ctx, id); return err })
	if cl != nil {
		t.Errorf("claim left: %+v", cl)
	}
}

// TestNothingHandedIn: an agent that exits 0 having handed nothing in
// (it gave the item back, or only talked) failed its run: the item is
// retried after a backoff, not taken again at once.
func TestNothingHandedIn(t *testing.T) {
	f := newFixture(t, `
[dispatch.profiles.worker]
command = ["AGENT", "-mode", "giveup", "-mcp", "{mcp_config}", "-issue", "{issue}", "-prompt-file", "{prompt_file}"]
[dispatch.profiles.planner]
command = ["AGENT", "-mode", "idle", "-mcp", "{mcp_config}", "-issue", "{issue}", "-prompt-file", "{prompt_file}"]
`)
	back, idle := f.item("Given back"), f.item("Talked only", baton.PhaseGrooming.Label())
	_, fin := f.once(f.d)
	got := byItem(fin)
	for _, id := range []string{back, idle} {
		fi := got[id]
		if fi == nil || fi.Status != baton.RunFailed || !strings.Contains(fi.Error, "without handing its work in") || fi.RetryAt == "" ||
			fi.ExitCode == nil || *fi.ExitCode != 0 {
			t.Errorf("%s: %+v", id, fi)
		}
	}
	if r, _ := f.once(f.d); len(r.Started) != 0 {
		t.Errorf("taken again before the backoff: %+v", r.Started)
	}
}

// TestCommandCannotStart: a command that does not exist fails the run
// without counting an attempt against the item; the profile is set aside
// (its work waits, saying why) and the human is told once.
func TestCommandCannotStart(t *testing.T) {
	f := newFixture(t, `
[dispatch.profiles.worker]
command = ["/nonexistent/agent", "{prompt}"]
`)
	a, b := f.item("One"), f.item("Two")
	_, fin := f.once(f.d)
	if len(fin) != 2 {
		t.Fatalf("finished: %+v", fin)
	}
	for _, fi := range fin {
		if fi.Status != baton.RunFailed || !strings.Contains(fi.Error, "[dispatch.profiles.worker] command cannot start /nonexistent/agent") ||
			!strings.Contains(fi.Error, "fix command in [dispatch.profiles.worker] of baton.toml") || fi.RetryAt != "" || fi.Blocked {
			t.Errorf("run: %+v", fi)
		}
	}
	var retries []*baton.DispatchRetry
	f.view(func(tx baton.Tx) (err error) { retries, err = tx.DispatchRetries(f.ctx, project); return err })
	if len(retries) != 0 {
		t.Errorf("attempts counted: %+v", retries)
	}
	for _, id := range []string{a, b} {
		if it := f.get(id); it.Status != baton.StatusTodo {
			t.Errorf("%s is %s", id, it.Status)
		}
	}
	r, err := f.d.Tick(f.ctx, true)
	if err != nil || len(r.Started) != 0 || !slices.ContainsFunc(r.Skipped, func(s dispatch.Skip) bool {
		return strings.Contains(s.Reason, "command cannot start")
	}) {
		t.Errorf("the profile was not set aside: %+v %v", r, err)
	}
	var msgs []*baton.Message
	f.update(func(tx baton.Tx) (err error) {
		msgs, err = tx.ReadMessages(f.ctx, baton.User, baton.MessageFilter{To: baton.User})
		return err
	})
	if len(msgs) != 1 || msgs[0].ThreadID != "dispatch-config" || !strings.Contains(msgs[0].Body, "cannot start worker agents") {
		t.Errorf("messages: %+v", msgs)
	}
}

// TestHangingAgentKilledAtTimeout: an agent past its profile's timeout is
// stopped with SIGTERM, and one that ignores SIGTERM is killed after the
// grace period; both runs are timed_out.
func TestHangingAgentKilledAtTimeout(t *testing.T) {
	f := newFixture(t, `
[dispatch]
grace = "300ms"
[dispatch.profiles.worker]
command = ["AGENT", "-mode", "hang"]
timeout = "1s"
[dispatch.profiles.planner]
command = ["AGENT", "-mode", "trap"]
timeout = "1s"
`)
	hang := f.item("Hangs")
	trap := f.item("Ignores SIGTERM", baton.PhaseGrooming.Label())
	start := time.Now()
	_, fin := f.once(f.d)
	got := byItem(fin)
	if len(fin) != 2 {
		t.Fatalf("finished: %+v", fin)
	}
	for id, code := range map[string]int{hang: 128 + 15, trap: 128 + 9} {
		fi := got[id]
		if fi.Status != baton.RunTimedOut || fi.ExitCode == nil || *fi.ExitCode != code || fi.Error != "timed out after 1s" || fi.RetryAt == "" {
			t.Errorf("%s: %+v (exit %v)", id, fi, fi.ExitCode)
		}
	}
	if got[trap].Profile != "planner" {
		t.Errorf("the grooming item went to %s", got[trap].Profile)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %s", el)
	}
	if it := f.get(hang); it.Status != baton.StatusTodo {
		t.Errorf("a timed-out item is %s, want todo (back in the queue)", it.Status)
	}
}

// TestLostLeaseStopsAgent: when the claim an agent works under is taken
// from it (a human releases it), the dispatcher stops the agent.
func TestLostLeaseStopsAgent(t *testing.T) {
	f := newFixture(t, `
[dispatch]
lease = "3s"
[dispatch.profiles.worker]
command = ["AGENT", "-mode", "hang"]
`)
	id := f.item("Taken away")
	ctx, cancel := context.WithTimeout(f.ctx, time.Minute)
	defer cancel()
	done := make(chan []*dispatch.Finished, 1)
	go func() {
		_, fin, err := f.d.Once(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- fin
	}()
	waitFor(t, "the agent to start", func() bool { rs := f.runs(id); return len(rs) == 1 && rs[0].PID != 0 })
	f.update(func(tx baton.Tx) error {
		_, err := tx.ForceReleaseClaim(f.ctx, id, "user", time.Now())
		return err
	})
	fin := <-done
	if len(fin) != 1 || fin[0].Status != baton.RunCancelled || !strings.HasPrefix(fin[0].Error, "lease lost: ") ||
		!strings.Contains(fin[0].Error, "released by user") {
		t.Fatalf("finished: %+v", fin)
	}
	if pid := f.runs(id)[0].PID; !gone(pid) {
		t.Errorf("agent %d still runs", pid)
	}
}

// TestDispatchersRace: two dispatchers (two hosts) ticking at once never
// start the same item twice, and between them start every ready item; on
// SQLite and, with BATON_TEST_POSTGRES_URL, on PostgreSQL.
func TestDispatchersRace(t *testing.T) {
	const conf = `
[dispatch]
max_agents = 4
[dispatch.profiles.worker]
command = ["AGENT", "-mode", "hang"]
`
	t.Run("sqlite", func(t *testing.T) { race(t, newFixture(t, conf)) })
	t.Run("postgres", func(t *testing.T) {
		s := testkit.OpenPostgres(t, nil)
		race(t, newFixtureOn(t, conf, nil, s, os.Getenv("BATON_TEST_POSTGRES_URL")))
	})
}

func race(t *testing.T, f *fixture) {
	var ids []string
	for i := range 6 {
		ids = append(ids, f.item("Item "+strconv.Itoa(i)))
	}
	a := f.dispatcher(f.d.Config, "host-a")
	b := f.dispatcher(f.d.Config, "host-b")
	defer a.Shutdown(f.ctx)
	defer b.Shutdown(f.ctx)
	var wg sync.WaitGroup
	reports := make([]*dispatch.TickReport, 2)
	for i, d := range []*dispatch.Dispatcher{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := d.Tick(f.ctx, false)
			if err != nil {
				t.Error(err)
			}
			reports[i] = r
		}()
	}
	wg.Wait()
	var started []string
	for _, r := range reports {
		if r == nil {
			t.FailNow()
		}
		for _, e := range r.Errors {
			t.Errorf("tick: %s", e)
		}
		for _, s := range r.Started {
			started = append(started, s.Item)
		}
	}
	slices.Sort(started)
	if !slices.Equal(started, ids) {
		t.Fatalf("started %v, want each of %v once", started, ids)
	}
	if a.Running()+b.Running() != 6 || a.Running() > 4 || b.Running() > 4 {
		t.Errorf("running: a %d, b %d", a.Running(), b.Running())
	}
	// Each host's tick leaves the other's live runs alone.
	for _, d := range []*dispatch.Dispatcher{a, b} {
		if r, err := d.Tick(f.ctx, false); err != nil || len(r.Reconciled) != 0 || len(r.Started) != 0 {
			t.Errorf("second tick: %+v, %v", r, err)
		}
	}
	a.Shutdown(f.ctx)
	b.Shutdown(f.ctx)
	for _, id := range ids {
		rs := f.runs(id)
		if len(rs) != 1 || rs[0].Status != baton.RunCancelled {
			t.Errorf("%s runs: %+v", id, rs)
		}
	}
}

// TestShutdownStopsAgents: stopping the dispatcher (SIGINT/SIGTERM end
// Run's context) stops every agent and what it started, records the runs
// as cancelled, and gives the items back without counting an attempt.
func TestShutdownStopsAgents(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, `
[dispatch]
grace = "500ms"
[dispatch.profiles.worker]
command = ["AGENT", "-mode", "trap", "-child", "`+filepath.Join(dir, "{issue}.pid")+`"]
`)
	ids := []string{f.item("One"), f.item("Two")}
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx) }()
	waitFor(t, "both agents and their children", func() bool {
		for _, id := range ids {
			if _, err := os.Stat(filepath.Join(dir, id+".pid")); err != nil {
				return false
			}
		}
		return true
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	for _, id := range ids {
		b, _ := os.ReadFile(filepath.Join(dir, id+".pid"))
		child, _ := strconv.Atoi(string(b))
		rs := f.runs(id)
		if len(rs) != 1 || rs[0].Status != baton.RunCancelled || rs[0].Error != "the dispatcher was stopped" {
			t.Fatalf("%s runs: %+v", id, rs)
		}
		if !gone(rs[0].PID) || !gone(child) {
			t.Errorf("%s: agent %d or its child %d outlived the dispatcher", id, rs[0].PID, child)
		}
		if it := f.get(id); it.Status != baton.StatusTodo {
			t.Errorf("%s is %s after shutdown", id, it.Status)
		}
	}
	var retries []*baton.DispatchRetry
	f.view(func(tx baton.Tx) (err error) { retries, err = tx.DispatchRetries(f.ctx, project); return err })
	if len(retries) != 0 {
		t.Errorf("a shutdown counted attempts: %+v", retries)
	}
}

// TestDryRun reports what would start and changes nothing.
func TestDryRun(t *testing.T) {
	f := newFixture(t, workers)
	id := f.item("Ready")
	research := f.item("Needs research", baton.PhaseResearch.Label())
	r, err := f.d.Tick(f.ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Started) != 1 || r.Started[0].Item != id || r.Started[0].Profile != "worker" || r.Started[0].RunID != "" {
		t.Fatalf("dry run: %+v", r)
	}
	if !slices.ContainsFunc(r.Skipped, func(s dispatch.Skip) bool {
		return s.Profile == "researcher" && strings.Contains(s.Reason, "no [dispatch.profiles.researcher] command")
	}) {
		t.Errorf("the research item's skip is not explained: %+v", r.Skipped)
	}
	if it := f.get(id); it.Status != baton.StatusTodo || len(f.runs(id)) != 0 || f.d.Running() != 0 {
		t.Errorf("a dry run changed %s: %s, %d runs", id, it.Status, len(f.runs(id)))
	}
	_ = research
}

// TestReconcileDeadDispatcher: runs nobody looks after any more are ended
// as failed by the next tick and count as attempts, their claims released
// with a fence: a run of a dispatcher of this host whose process is gone,
// and a run of another host whose heartbeat is stale. A live run of
// another host, and a run of this host's live dispatcher, are left alone.
func TestReconcileDeadDispatcher(t *testing.T) {
	f := newFixture(t, workers)
	dead, stale, live, sibling := f.item("Dead here"), f.item("Stale elsewhere"), f.item("Live elsewhere"), f.item("Live here")
	host, _ := os.Hostname() // the fixture's Host "" is os.Hostname
	// A pid that is gone: a process that has ended.
	gonePID := exec.Command("true")
	if err := gonePID.Run(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, r := range []struct {
		item, host, dispatcher string
		beat                   time.Time
	}{
		{dead, host, fmt.Sprintf("%s:%d:dead", host, gonePID.Process.Pid), now},
		{stale, "elsewhere", "elsewhere:77:old", now.Add(-time.Hour)},
		{live, "elsewhere", "elsewhere:77:new", now},
		{sibling, host, fmt.Sprintf("%s:%d:sibling", host, os.Getpid()), now}, // another dispatcher of this live process
	} {
		f.update(func(tx baton.Tx) error {
			if _, err := tx.Claim(f.ctx, r.item, "worker-"+r.item, time.Hour, now); err != nil {
				return err
			}
			return tx.CreateRun(f.ctx, &baton.Run{ItemID: r.item, Agent: "worker-" + r.item, Status: baton.RunRunning, Profile: "worker",
				Attempt: 1, Host: r.host, Dispatcher: r.dispatcher, StartedAt: r.beat, HeartbeatAt: r.beat}, nil)
		})
	}
	r, err := f.d.Tick(f.ctx, true)
	if err != nil || len(r.Reconciled) != 0 {
		t.Fatalf("a dry tick reconciled: %+v %v", r, err)
	}
	f.d.Config.MaxAgents = 0 // start nothing: only reconcile
	r, err = f.d.Tick(f.ctx, false)
	if err != nil || len(r.Reconciled) != 2 {
		t.Fatalf("reconciled: %+v %v", r, err)
	}
	got := byItem(r.Reconciled)
	if fi := got[dead]; fi == nil || !strings.Contains(fi.Error, "stopped while it ran") || fi.RetryAt == "" {
		t.Errorf("dead: %+v", fi)
	}
	if fi := got[stale]; fi == nil || !strings.Contains(fi.Error, "has not looked after it for 1h") || fi.RetryAt == "" {
		t.Errorf("stale: %+v", fi)
	}
	for _, id := range []string{dead, stale} {
		if rs := f.runs(id); rs[0].Status != baton.RunFailed {
			t.Errorf("%s: the orphaned run is %s", id, rs[0].Status)
		}
		// The holder is fenced: an agent still at work cannot write.
		err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error {
			_, err := tx.RenewClaim(f.ctx, id, "worker-"+id, time.Now())
			return err
		})
		if e := baton.AsError(err); e == nil || e.Code != baton.ErrClaimed || e.Details["fenced"] != true {
			t.Errorf("%s: the orphan's renewal: %v", id, err)
		}
	}
	for _, id := range []string{live, sibling} {
		if rs := f.runs(id); rs[0].Status != baton.RunRunning {
			t.Errorf("%s: a live run was ended: %+v", id, rs[0])
		}
	}
}

// TestLock: one dispatcher per project per host.
func TestLock(t *testing.T) {
	path := dispatch.LockFile(t.TempDir(), "/db/baton.db", "sym")
	l, err := dispatch.Acquire(path, "sym")
	if err != nil {
		t.Fatal(err)
	}
	_, err = dispatch.Acquire(path, "sym")
	if e := baton.AsError(err); e == nil || e.Type != "dispatcher_running" || !strings.Contains(e.Message, "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	l.Release()
	l2, err := dispatch.Acquire(path, "sym")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Release()
}

// TestPrompt: the prompt holds the workspace line, the issue, its latest
// comments, the phase's contract, the project's instructions, the
// profile's memory and the learnings that match the issue; a judge gets
// the judge instructions instead of the worker's.
func TestPrompt(t *testing.T) {
	f := newFixture(t, workers)
	id := f.item("Retry the flaky upload")
	f.update(func(tx baton.Tx) error {
		it, err := tx.Item(f.ctx, id)
		if err != nil {
			return err
		}
		it.Description = "Uploads fail on a slow network."
		if err := tx.UpdateItem(f.ctx, it); err != nil {
			return err
		}
		if err := tx.AddComment(f.ctx, &baton.Comment{ItemID: id, Body: "Fix: keep the partial upload.", CreatedBy: "judge-1"}); err != nil {
			return err
		}
		cfg := baton.DefaultProjectConfig(project)
		cfg.WorkerInstructions, cfg.JudgeInstructions = "Run make check first.", "Reject anything without tests."
		if err := tx.PutProjectConfig(f.ctx, cfg); err != nil {
			return err
		}
		return tx.AddLearning(f.ctx, &baton.Learning{ItemID: id, Project: project, Pattern: "upload retries need jitter",
			Context: "thundering herd on the upload service", Type: "convention", QualityScore: 80, CreatedBy: "w"})
	})
	if _, err := memory.Write(f.d.DataDir, project, "worker", "notes.md", "The upload client lives in net/up."); err != nil {
		t.Fatal(err)
	}
	it := f.get(id)
	wt := worktree.Dir(f.repo, id)
	p, err := f.d.Prompt(f.ctx, dispatch.Start{Profile: "worker", Kind: dispatch.KindWork, Phase: baton.PhaseReady, RunID: "R-9", Attempt: 2}, it, wt, []string{"verify_workspace"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"You are the worker agent for " + id, "(run R-9, attempt 2)", "Working in: " + wt + " | Branch: symphony/" + id,
		"call `verify_workspace`", "# " + id + ": Retry the flaky upload", "Uploads fail on a slow network.",
		"judge-1", "Fix: keep the partial upload.", "## Phase contract: ready (version 1)", "Run make check first.",
		"The upload client lives in net/up.", "upload retries need jitter"} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, p)
		}
	}
	p, err = f.d.Prompt(f.ctx, dispatch.Start{Profile: "judge", Kind: dispatch.KindReviewPR, Phase: baton.PhaseReady}, it, wt, []string{"approve_pr"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "Reject anything without tests.") || strings.Contains(p, "Run make check first.") || strings.Contains(p, "verify_workspace") {
		t.Errorf("the judge's prompt:\n%s", p)
	}
}

// BenchmarkDryTick is one dry tick (what a tick reads, claims and rolls
// back) on a project with 1,000 ready items and four slots.
func BenchmarkDryTick(b *testing.B) {
	f := newFixture(b, workers)
	f.update(func(tx baton.Tx) error {
		for i := range 1000 {
			it := &baton.Item{Project: project, Title: "Item " + strconv.Itoa(i), Status: baton.StatusTodo, Kind: baton.KindTask, CreatedBy: "user"}
			if err := tx.CreateItem(f.ctx, it); err != nil {
				return err
			}
		}
		return nil
	})
	b.ResetTimer()
	for b.Loop() {
		r, err := f.d.Tick(f.ctx, true)
		if err != nil || len(r.Started) != 4 {
			b.Fatalf("%+v %v", r, err)
		}
	}
}
