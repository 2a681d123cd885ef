package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The runs group (issue 17, baton dispatch): a dispatched run is recorded
// from its start (running) to its end, its events arrive in batches, its
// output tail is kept, runs are listed newest first, and items waiting out
// a retry backoff are shared by the dispatchers of every host.

var runCases = []testCase{
	{"Lifecycle", testRunLifecycle},
	{"FinishOnce", testRunFinishOnce},
	{"AppendEvents", testRunAppendEvents},
	{"Output", testRunOutput},
	{"ListFilters", testRunListFilters},
	{"ListLimit", testRunListLimit},
	{"Retries", testDispatchRetries},
	{"ClaimNextExclude", testClaimNextExclude},
	{"MoveKeepsRunsAndRetry", testRunsFollowMove},
}

// startRun records a running run of item, as baton dispatch starts one.
func (e *env) startRun(item, profile string, attempt, min int) *baton.Run {
	e.t.Helper()
	r := &baton.Run{ItemID: item, Agent: "dispatch-" + profile, Status: baton.RunRunning, Model: "opus",
		StartedAt: at(min), Profile: profile, Attempt: attempt, Worktree: "/wt/" + item, Host: "host-a", PID: 4000 + min,
		Dispatcher: "host-a:77:abc"}
	e.update(func(tx baton.Tx) error { c := *r; err := tx.CreateRun(e.ctx, &c, nil); *r = c; return err })
	return r
}

func (e *env) run(id string) *baton.Run {
	e.t.Helper()
	var r *baton.Run
	e.view(func(tx baton.Tx) (err error) { r, err = tx.Run(e.ctx, id); return err })
	return r
}

func (e *env) listRuns(f baton.RunFilter) []*baton.Run {
	e.t.Helper()
	var rs []*baton.Run
	e.view(func(tx baton.Tx) (err error) { rs, err = tx.ListRuns(e.ctx, f); return err })
	return rs
}

func (e *env) finish(r *baton.Run) error {
	return e.tryUpdate(func(tx baton.Tx) error { c := *r; return tx.FinishRun(e.ctx, &c) })
}

func (e *env) appendEvents(runID string, events []baton.RunEvent) error {
	return e.tryUpdate(func(tx baton.Tx) error { return tx.AppendRunEvents(e.ctx, runID, events) })
}

func (e *env) retries(project string) []*baton.DispatchRetry {
	e.t.Helper()
	var rs []*baton.DispatchRetry
	e.view(func(tx baton.Tx) (err error) { rs, err = tx.DispatchRetries(e.ctx, project); return err })
	return rs
}

func (e *env) runOutput(id string) (*baton.RunOutput, error) {
	var out *baton.RunOutput
	err := e.s.View(e.ctx, func(tx baton.Tx) (err error) { out, err = tx.RunOutput(e.ctx, id); return err })
	return out, err
}

// runLine renders every field of a run, for comparing runs whole.
func runLine(r *baton.Run) string {
	exit := "nil"
	if r.ExitCode != nil {
		exit = fmt.Sprint(*r.ExitCode)
	}
	return fmt.Sprintf("%s item=%s agent=%s status=%s error=%q cost=%g dur=%d turns=%d model=%s started=%s ended=%s events=%d "+
		"profile=%s attempt=%d worktree=%s host=%s pid=%d exit=%s dispatcher=%s",
		r.ID, r.ItemID, r.Agent, r.Status, r.Error, r.CostUSD, r.DurationMS, r.NumTurns, r.Model,
		r.StartedAt.Format(time.RFC3339Nano), r.EndedAt.Format(time.RFC3339Nano), r.EventCount,
		r.Profile, r.Attempt, r.Worktree, r.Host, r.PID, exit, r.Dispatcher)
}

func runIDs(rs []*baton.Run) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func retryLine(r *baton.DispatchRetry) string {
	return fmt.Sprintf("%s attempts=%d next=%s error=%q updated=%s", r.ItemID, r.Attempts,
		r.NextAt.Format(time.RFC3339Nano), r.LastError, r.UpdatedAt.Format(time.RFC3339Nano))
}

func streamEvent(typ, subtype, data string) baton.RunEvent {
	return baton.RunEvent{Type: typ, Subtype: subtype, Data: json.RawMessage(data), CreatedAt: at(2)}
}

// testRunLifecycle: a dispatched run reads back whole while running (no
// end, no exit code) and after it ends; an ingested run with an exit code
// keeps it too.
func testRunLifecycle(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := e.create(newItem("alpha", "work"))
	r := e.startRun(it.ID, "worker", 1, 1)
	want := baton.Run{ID: "R-1", ItemID: it.ID, Agent: "dispatch-worker", Status: baton.RunRunning, Model: "opus",
		StartedAt: at(1), Profile: "worker", Attempt: 1, Worktree: "/wt/" + it.ID, Host: "host-a", PID: 4001,
		Dispatcher: "host-a:77:abc"}
	if got := runLine(e.run(r.ID)); got != runLine(&want) {
		t.Errorf("running run =\n%s\nwant\n%s", got, runLine(&want))
	}
	if r.ID != "R-1" || r.EventCount != 0 {
		t.Errorf("CreateRun set ID %q, EventCount %d; want R-1, 0", r.ID, r.EventCount)
	}
	// The agent's process is recorded once it has started.
	e.update(func(tx baton.Tx) error { return tx.SetRunProcess(e.ctx, r.ID, "/wt/started", 4242) })
	want.Worktree, want.PID = "/wt/started", 4242
	if got := runLine(e.run(r.ID)); got != runLine(&want) {
		t.Errorf("after SetRunProcess =\n%s\nwant\n%s", got, runLine(&want))
	}
	if err := e.tryUpdate(func(tx baton.Tx) error { return tx.SetRunProcess(e.ctx, "R-404", "/x", 1) }); baton.ErrorCode(err) != baton.ErrNotFound {
		t.Errorf("SetRunProcess of an unknown run: %v", err)
	}
	// The dispatcher's heartbeat: set when the process starts, then on each beat.
	if got := e.run(r.ID); got.HeartbeatAt.IsZero() {
		t.Errorf("no heartbeat after SetRunProcess")
	}
	e.update(func(tx baton.Tx) error { return tx.BeatRun(e.ctx, r.ID, at(5)) })
	if got := e.run(r.ID); !got.HeartbeatAt.Equal(at(5)) {
		t.Errorf("heartbeat %v, want %v", got.HeartbeatAt, at(5))
	}

	end := &baton.Run{ID: r.ID, Status: baton.RunFailed, Error: "exit status 3", CostUSD: 1.25, DurationMS: 61000,
		NumTurns: 7, EndedAt: at(2), ExitCode: ptr(3)}
	if err := e.finish(end); err != nil {
		t.Fatalf("FinishRun: %v", err)
	}
	want.Status, want.Error, want.CostUSD, want.DurationMS, want.NumTurns = baton.RunFailed, "exit status 3", 1.25, 61000, 7
	want.EndedAt, want.ExitCode = at(2), ptr(3)
	// A beat after the end changes nothing.
	e.update(func(tx baton.Tx) error { return tx.BeatRun(e.ctx, r.ID, at(9)) })
	if got := e.run(r.ID); !got.HeartbeatAt.Equal(at(5)) {
		t.Errorf("a finished run's heartbeat moved to %v", got.HeartbeatAt)
	}
	// An empty model kept the one the run started with.
	if got := runLine(e.run(r.ID)); got != runLine(&want) {
		t.Errorf("finished run =\n%s\nwant\n%s", got, runLine(&want))
	}
	if got := e.run(r.ID); got.StartedAt.Location() != time.UTC || got.EndedAt.Location() != time.UTC {
		t.Errorf("run times in %v/%v, want UTC", got.StartedAt.Location(), got.EndedAt.Location())
	}

	// Ended in one go, as baton runs ingest records a run, with exit 0.
	ingested := &baton.Run{ItemID: it.ID, Agent: "agent-alice", Status: baton.RunSucceeded, Model: "sonnet",
		StartedAt: at(3), EndedAt: at(4), ExitCode: ptr(0)}
	e.update(func(tx baton.Tx) error {
		c := *ingested
		err := tx.CreateRun(e.ctx, &c, nil)
		*ingested = c
		return err
	})
	if got := e.run(ingested.ID); got.ExitCode == nil || *got.ExitCode != 0 || got.Profile != "" || got.Dispatcher != "" || got.Attempt != 0 {
		t.Errorf("ingested run = %s, want exit 0 and no dispatch fields", runLine(got))
	}
	// Runs (an item's) reads the new columns as well.
	var rs []*baton.Run
	e.view(func(tx baton.Tx) (err error) { rs, err = tx.Runs(e.ctx, it.ID, 0); return err })
	if len(rs) != 2 || runLine(rs[1]) != runLine(&want) {
		t.Errorf("Runs = %v, want [%s R-1] with R-1 whole", runIDs(rs), ingested.ID)
	}

	err := e.s.View(e.ctx, func(tx baton.Tx) error { _, err := tx.Run(e.ctx, "R-404"); return err })
	if be := wantCode(t, err, baton.ErrNotFound); be.Hint == "" || be.Details["run_id"] != "R-404" {
		t.Errorf("Run(unknown) = %v, want a hint and run_id in the details", be)
	}
}

// testRunFinishOnce: a run ends once; a second finish (another dispatcher,
// or a retry of the first) is ERR_CONFLICT and changes nothing.
func testRunFinishOnce(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := e.create(newItem("alpha", "work"))
	r := e.startRun(it.ID, "worker", 1, 1)
	if err := e.finish(&baton.Run{ID: r.ID, Status: baton.RunSucceeded, Model: "opus-2", EndedAt: at(2), ExitCode: ptr(0)}); err != nil {
		t.Fatalf("FinishRun: %v", err)
	}
	before := runLine(e.run(r.ID))
	be := wantCode(t, e.finish(&baton.Run{ID: r.ID, Status: baton.RunFailed, Error: "late", EndedAt: at(3), ExitCode: ptr(1)}), baton.ErrConflict)
	if be.Type != "run_finished" || be.Hint == "" {
		t.Errorf("second finish: type %q, hint %q; want run_finished with a hint", be.Type, be.Hint)
	}
	if after := runLine(e.run(r.ID)); after != before {
		t.Errorf("a refused finish changed the run:\n%s\nwas\n%s", after, before)
	}
	if got := e.run(r.ID); got.Model != "opus-2" || got.Status != baton.RunSucceeded {
		t.Errorf("finished run: model %q, status %q; want opus-2, succeeded", got.Model, got.Status)
	}
	wantCode(t, e.finish(&baton.Run{ID: "R-404", Status: baton.RunFailed}), baton.ErrNotFound)
	other := e.startRun(it.ID, "worker", 2, 4)
	wantCode(t, e.finish(&baton.Run{ID: other.ID, Status: baton.RunRunning}), baton.ErrInvalidInput)
	wantCode(t, e.finish(&baton.Run{ID: other.ID}), baton.ErrInvalidInput)
	// Finished without an end time: it ends now, and the caller's run says when.
	var ended time.Time
	e.update(func(tx baton.Tx) error {
		f := &baton.Run{ID: other.ID, Status: baton.RunCancelled}
		err := tx.FinishRun(e.ctx, f)
		ended = f.EndedAt
		return err
	})
	if got := e.run(other.ID); ended.IsZero() || !got.EndedAt.Equal(ended.Truncate(time.Millisecond)) || got.ExitCode != nil {
		t.Errorf("finished with no end time: EndedAt %v (caller saw %v), exit %v; want the clock's now and no exit code", got.EndedAt, ended, got.ExitCode)
	}
}

// testRunAppendEvents: events arrive in batches numbered on from the
// run's last, in place; a batch with bad JSON stores nothing.
func testRunAppendEvents(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := e.create(newItem("alpha", "work"))
	r := e.startRun(it.ID, "worker", 1, 1)
	first := []baton.RunEvent{streamEvent("system", "init", `{"n":1}`), streamEvent("assistant", "text", `{"n":2}`)}
	second := []baton.RunEvent{streamEvent("user", "tool_result", `{"n":3}`), {Type: "result", Subtype: "success"}}
	if err := e.appendEvents(r.ID, first); err != nil {
		t.Fatal(err)
	}
	var stored []baton.RunEvent
	e.update(func(tx baton.Tx) error {
		stored = slices.Clone(second)
		return tx.AppendRunEvents(e.ctx, r.ID, stored)
	})
	if stored[0].RunID != r.ID || stored[0].Seq != 3 || stored[1].Seq != 4 || string(stored[1].Data) != "{}" || stored[1].CreatedAt.IsZero() {
		t.Errorf("second batch numbered %+v, want seq 3 and 4 of %s, data {} and a time for the event without", stored, r.ID)
	}
	if got := e.run(r.ID).EventCount; got != 4 {
		t.Errorf("EventCount = %d after two batches of two, want 4", got)
	}
	// Bad JSON in the second event: nothing of the batch is stored.
	be := wantCode(t, e.appendEvents(r.ID, []baton.RunEvent{streamEvent("assistant", "text", `{}`), streamEvent("assistant", "text", `{not json`)}),
		baton.ErrInvalidInput)
	if be.Details["field"] != "events[1].data" {
		t.Errorf("bad JSON: details %v, want field events[1].data", be.Details)
	}
	wantCode(t, e.appendEvents("R-404", first), baton.ErrNotFound)
	if err := e.appendEvents(r.ID, nil); err != nil {
		t.Errorf("appending no events: %v", err)
	}
	// Events may still arrive after the run ended (its last batch). A byte
	// that is not UTF-8 inside a JSON string is kept as U+FFFD.
	if err := e.finish(&baton.Run{ID: r.ID, Status: baton.RunSucceeded, EndedAt: at(3)}); err != nil {
		t.Fatal(err)
	}
	if err := e.appendEvents(r.ID, []baton.RunEvent{streamEvent("result", "success", "{\"n\":5,\"s\":\"\xff\"}")}); err != nil {
		t.Fatalf("appending to an ended run: %v", err)
	}
	var evs []baton.RunEvent
	var total int
	e.view(func(tx baton.Tx) (err error) {
		evs, total, err = tx.RunEvents(e.ctx, baton.RunEventFilter{RunID: r.ID})
		return err
	})
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%d %s/%s %s", ev.Seq, ev.Type, ev.Subtype, ev.Data))
	}
	want := []string{`1 system/init {"n":1}`, `2 assistant/text {"n":2}`, `3 user/tool_result {"n":3}`, `4 result/success {}`, "5 result/success {\"n\":5,\"s\":\"\uFFFD\"}"}
	if !slices.Equal(got, want) || total != 5 {
		t.Errorf("events = %q (total %d), want %q", got, total, want)
	}
	if got := e.run(r.ID).EventCount; got != 5 {
		t.Errorf("EventCount = %d, want 5", got)
	}
}

// testRunOutput: a run's output is replaced whole, empty until set; bytes
// PostgreSQL cannot hold in text read back as U+FFFD on every store.
func testRunOutput(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := e.create(newItem("alpha", "work"))
	r := e.startRun(it.ID, "worker", 1, 1)
	set := func(out baton.RunOutput) error {
		return e.tryUpdate(func(tx baton.Tx) error { return tx.SetRunOutput(e.ctx, r.ID, out) })
	}
	if out, err := e.runOutput(r.ID); err != nil || out == nil || *out != (baton.RunOutput{}) {
		t.Errorf("RunOutput before any = %+v, %v; want an empty output", out, err)
	}
	big := strings.Repeat("0123456789abcdef", 256<<10/16) // the dispatcher's cap: 256 KiB
	first := baton.RunOutput{Stdout: big, Stderr: "warning: x\n", StdoutDropped: 1 << 33, StderrDropped: 0}
	if err := set(first); err != nil {
		t.Fatal(err)
	}
	if out, err := e.runOutput(r.ID); err != nil || *out != first {
		t.Errorf("RunOutput = %d bytes of stdout, %q, %d, %d (%v); want what was set", len(out.Stdout), out.Stderr, out.StdoutDropped, out.StderrDropped, err)
	}
	second := baton.RunOutput{Stdout: "done\n"}
	if err := set(second); err != nil {
		t.Fatal(err)
	}
	if out, err := e.runOutput(r.ID); err != nil || *out != second {
		t.Errorf("RunOutput after replacing = %+v (%v), want %+v", out, err, second)
	}
	// A tail cut inside a character, and a NUL.
	if err := set(baton.RunOutput{Stdout: "\xa9 ok\n", Stderr: "a\x00b"}); err != nil {
		t.Fatalf("output with invalid UTF-8 and NUL: %v", err)
	}
	if out, err := e.runOutput(r.ID); err != nil || out.Stdout != "\uFFFD ok\n" || out.Stderr != "a\uFFFDb" {
		t.Errorf("RunOutput = %q, %q (%v); want the bad bytes as U+FFFD", out.Stdout, out.Stderr, err)
	}
	_, err := e.runOutput("R-404")
	wantCode(t, err, baton.ErrNotFound)
	wantCode(t, e.tryUpdate(func(tx baton.Tx) error { return tx.SetRunOutput(e.ctx, "R-404", second) }), baton.ErrNotFound)
}

// testRunListFilters: newest first, by project (the item's), item,
// status and profile, alone and together.
func testRunListFilters(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	a := e.create(newItem("alpha", "a")).ID
	b := e.create(newItem("alpha", "b")).ID
	c := e.create(newItem("beta", "c")).ID
	// R-1..R-6, then end.
	e.startRun(a, "worker", 1, 1)
	e.startRun(b, "judge", 1, 2)
	e.startRun(c, "worker", 1, 3)
	e.startRun(a, "worker", 2, 4)
	e.startRun(c, "judge", 1, 5)
	e.startRun(b, "worker", 1, 6)
	for _, id := range []string{"R-1", "R-3", "R-6"} {
		if err := e.finish(&baton.Run{ID: id, Status: baton.RunFailed, EndedAt: at(9)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		f    baton.RunFilter
		want []string
	}{
		{baton.RunFilter{}, []string{"R-6", "R-5", "R-4", "R-3", "R-2", "R-1"}},
		{baton.RunFilter{Project: "alpha"}, []string{"R-6", "R-4", "R-2", "R-1"}},
		{baton.RunFilter{Project: "beta"}, []string{"R-5", "R-3"}},
		{baton.RunFilter{Project: "nope"}, []string{}},
		{baton.RunFilter{ItemID: a}, []string{"R-4", "R-1"}},
		{baton.RunFilter{ItemID: "ALP-404"}, []string{}},
		{baton.RunFilter{Status: baton.RunRunning}, []string{"R-5", "R-4", "R-2"}},
		{baton.RunFilter{Status: baton.RunFailed}, []string{"R-6", "R-3", "R-1"}},
		{baton.RunFilter{Profile: "judge"}, []string{"R-5", "R-2"}},
		{baton.RunFilter{Project: "alpha", Status: baton.RunRunning}, []string{"R-4", "R-2"}},
		{baton.RunFilter{Project: "alpha", Profile: "worker", Status: baton.RunFailed}, []string{"R-6", "R-1"}},
		{baton.RunFilter{ItemID: c, Profile: "judge"}, []string{"R-5"}},
		{baton.RunFilter{Status: baton.RunRunning, Limit: 2}, []string{"R-5", "R-4"}},
	} {
		got := e.listRuns(tc.f)
		if got == nil || !slices.Equal(runIDs(got), tc.want) {
			t.Errorf("ListRuns(%+v) = %v, want %v", tc.f, runIDs(got), tc.want)
		}
	}
	// Listed runs are whole.
	got := e.listRuns(baton.RunFilter{ItemID: b, Status: baton.RunRunning})
	if len(got) != 1 || runLine(got[0]) != runLine(e.run("R-2")) {
		t.Errorf("ListRuns(b, running) = %v, want R-2 as Run reads it", runIDs(got))
	}
}

// testRunListLimit: 50 runs when no limit is given, never more than 500.
func testRunListLimit(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := e.create(newItem("alpha", "busy")).ID
	const n = 505
	e.update(func(tx baton.Tx) error {
		for i := range n {
			r := &baton.Run{ItemID: it, Agent: "dispatch", Status: baton.RunSucceeded, StartedAt: at(i), EndedAt: at(i + 1)}
			if err := tx.CreateRun(e.ctx, r, nil); err != nil {
				return err
			}
		}
		return nil
	})
	for _, tc := range []struct {
		limit, want int
	}{{0, 50}, {-1, 50}, {7, 7}, {500, 500}, {10000, 500}} {
		got := e.listRuns(baton.RunFilter{Limit: tc.limit})
		if len(got) != tc.want {
			t.Errorf("ListRuns(limit %d) = %d runs, want %d", tc.limit, len(got), tc.want)
			continue
		}
		if got[0].ID != fmt.Sprintf("R-%d", n) || got[len(got)-1].ID != fmt.Sprintf("R-%d", n-tc.want+1) {
			t.Errorf("ListRuns(limit %d) = %s..%s, want the newest, R-%d..R-%d", tc.limit, got[0].ID, got[len(got)-1].ID, n, n-tc.want+1)
		}
	}
}

// testDispatchRetries: one row per item, replaced by the next set, listed
// soonest due first per project or for all, forgotten on clear.
func testDispatchRetries(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	a := e.create(newItem("alpha", "a")).ID
	b := e.create(newItem("alpha", "b")).ID
	c := e.create(newItem("beta", "c")).ID
	set := func(r baton.DispatchRetry) error {
		return e.tryUpdate(func(tx baton.Tx) error { return tx.SetDispatchRetry(e.ctx, &r) })
	}
	for _, r := range []baton.DispatchRetry{
		{ItemID: a, Attempts: 1, NextAt: at(10), LastError: "exit 1", UpdatedAt: at(1)},
		{ItemID: b, Attempts: 2, NextAt: at(5), LastError: "timed out", UpdatedAt: at(2)},
		{ItemID: c, Attempts: 1, NextAt: at(7), LastError: "exit 2", UpdatedAt: at(3)},
	} {
		if err := set(r); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(rs []*baton.DispatchRetry) string {
		var out []string
		for _, r := range rs {
			out = append(out, retryLine(r))
		}
		return strings.Join(out, "\n")
	}
	ra := retryLine(&baton.DispatchRetry{ItemID: a, Attempts: 1, NextAt: at(10), LastError: "exit 1", UpdatedAt: at(1)})
	rb := retryLine(&baton.DispatchRetry{ItemID: b, Attempts: 2, NextAt: at(5), LastError: "timed out", UpdatedAt: at(2)})
	rc := retryLine(&baton.DispatchRetry{ItemID: c, Attempts: 1, NextAt: at(7), LastError: "exit 2", UpdatedAt: at(3)})
	if got, want := lines(e.retries("alpha")), rb+"\n"+ra; got != want {
		t.Errorf("DispatchRetries(alpha) =\n%s\nwant\n%s", got, want)
	}
	if got, want := lines(e.retries("")), rb+"\n"+rc+"\n"+ra; got != want {
		t.Errorf("DispatchRetries(all) =\n%s\nwant\n%s", got, want)
	}
	// Another failure of a replaces its row.
	if err := set(baton.DispatchRetry{ItemID: a, Attempts: 2, NextAt: at(20), LastError: "exit 9", UpdatedAt: at(11)}); err != nil {
		t.Fatal(err)
	}
	ra = retryLine(&baton.DispatchRetry{ItemID: a, Attempts: 2, NextAt: at(20), LastError: "exit 9", UpdatedAt: at(11)})
	if got, want := lines(e.retries("alpha")), rb+"\n"+ra; got != want {
		t.Errorf("DispatchRetries(alpha) after a second failure =\n%s\nwant\n%s", got, want)
	}
	e.update(func(tx baton.Tx) error { return tx.ClearDispatchRetry(e.ctx, b) })
	e.update(func(tx baton.Tx) error { return tx.ClearDispatchRetry(e.ctx, b) }) // none left: no error
	e.update(func(tx baton.Tx) error { return tx.ClearDispatchRetry(e.ctx, "ALP-404") })
	if got := lines(e.retries("alpha")); got != ra {
		t.Errorf("DispatchRetries(alpha) after clearing %s =\n%s\nwant\n%s", b, got, ra)
	}
	if got := e.retries("nope"); got == nil || len(got) != 0 {
		t.Errorf("DispatchRetries(nope) = %v, want an empty, non-nil list", got)
	}
	wantCode(t, set(baton.DispatchRetry{ItemID: "ALP-404", Attempts: 1, NextAt: at(1)}), baton.ErrTaskNotFound)
	// No NextAt: due at once, and it reads back as the zero time.
	if err := set(baton.DispatchRetry{ItemID: b, Attempts: 1, UpdatedAt: at(12)}); err != nil {
		t.Fatal(err)
	}
	if got := e.retries("alpha"); len(got) != 2 || got[0].ItemID != b || !got[0].NextAt.IsZero() {
		t.Errorf("DispatchRetries(alpha) = %s, want %s first with a zero NextAt", lines(got), b)
	}
}

// testClaimNextExclude: an excluded item (waiting out a retry backoff) is
// passed over however urgent it is.
func testClaimNextExclude(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	urgent := newItem("alpha", "urgent")
	urgent.Priority = baton.PriorityCritical
	u := e.create(urgent).ID
	n := e.create(newItem("alpha", "normal")).ID
	l := e.create(newItem("alpha", "later")).ID
	next := func(exclude []string) string {
		var id string
		e.update(func(tx baton.Tx) error {
			c, _, err := tx.ClaimNext(e.ctx, "dispatch", baton.ClaimNextFilter{Project: "alpha", Exclude: exclude}, time.Minute, base)
			if c != nil {
				id = c.ItemID
				// Leave the item ready for the next call.
				return tx.ReleaseClaim(e.ctx, c.ItemID, "dispatch", base)
			}
			return err
		})
		return id
	}
	for _, tc := range []struct {
		exclude []string
		want    string
	}{
		{nil, u},
		{[]string{}, u},
		{[]string{u}, n},
		{[]string{u, n}, l},
		{[]string{"ALP-404", u}, n},
		{[]string{u, n, l}, ""},
	} {
		if got := next(tc.exclude); got != tc.want {
			t.Errorf("ClaimNext(exclude %v) claimed %q, want %q", tc.exclude, got, tc.want)
		}
	}
}

// testRunsFollowMove: a moved item keeps its runs and its retry state,
// found by its new id, by its old one, and under its new project.
func testRunsFollowMove(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	e.create(newItem("beta", "first in beta"))
	it := e.create(newItem("alpha", "moving"))
	r := e.startRun(it.ID, "worker", 1, 1)
	e.update(func(tx baton.Tx) error {
		return tx.SetDispatchRetry(e.ctx, &baton.DispatchRetry{ItemID: it.ID, Attempts: 1, NextAt: at(5), UpdatedAt: at(2)})
	})
	var moved *baton.Item
	e.update(func(tx baton.Tx) (err error) { moved, err = tx.MoveItem(e.ctx, it.ID, "beta"); return err })
	if moved.ID == it.ID {
		t.Fatalf("the move kept id %s", it.ID)
	}
	if got := e.run(r.ID); got.ItemID != moved.ID {
		t.Errorf("the run's item after the move = %s, want %s", got.ItemID, moved.ID)
	}
	for _, f := range []baton.RunFilter{{ItemID: moved.ID}, {ItemID: it.ID}, {Project: "beta"}} {
		if got := e.listRuns(f); !slices.Equal(runIDs(got), []string{r.ID}) {
			t.Errorf("ListRuns(%+v) after the move = %v, want [%s]", f, runIDs(got), r.ID)
		}
	}
	if got := e.listRuns(baton.RunFilter{Project: "alpha"}); len(got) != 0 {
		t.Errorf("ListRuns(alpha) after the move = %v, want none", runIDs(got))
	}
	if got := e.retries("beta"); len(got) != 1 || got[0].ItemID != moved.ID || got[0].Attempts != 1 {
		t.Errorf("DispatchRetries(beta) after the move = %v, want %s's", got, moved.ID)
	}
	if got := e.retries("alpha"); len(got) != 0 {
		t.Errorf("DispatchRetries(alpha) after the move = %v, want none", got)
	}
	// Setting and clearing by the old id reach the moved item's row.
	e.update(func(tx baton.Tx) error {
		return tx.SetDispatchRetry(e.ctx, &baton.DispatchRetry{ItemID: it.ID, Attempts: 2, NextAt: at(9), UpdatedAt: at(3)})
	})
	if got := e.retries(""); len(got) != 1 || got[0].ItemID != moved.ID || got[0].Attempts != 2 {
		t.Errorf("DispatchRetries after setting by the old id = %v, want %s's, attempts 2", got, moved.ID)
	}
	e.update(func(tx baton.Tx) error { return tx.ClearDispatchRetry(e.ctx, it.ID) })
	if got := e.retries(""); len(got) != 0 {
		t.Errorf("DispatchRetries after clearing by the old id = %v, want none", got)
	}
	// The run goes on after the move.
	if err := e.appendEvents(r.ID, []baton.RunEvent{streamEvent("result", "success", `{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := e.finish(&baton.Run{ID: r.ID, Status: baton.RunSucceeded, EndedAt: at(4), ExitCode: ptr(0)}); err != nil {
		t.Fatal(err)
	}
}
