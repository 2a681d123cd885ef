package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// runsFixture is a dashboard on a still clock with runs stored as baton
// dispatch stores them: one running, and one of each way a run ends.
type runsFixture struct {
	*dash
	now                                         time.Time
	item, other                                 string // items in colibri and in "other"
	running, failed, succeeded, timedOut, cancl string // run ids
}

func newRunsFixture(t *testing.T) *runsFixture {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Second)
	d := newDashAt(t, testkit.NewClock(now, 0))
	d.AddProject("other", "OTH")
	f := &runsFixture{dash: d, now: now}
	f.item = d.StoreItem(&baton.Item{Title: "Build <the> thing", Status: baton.StatusInProgress})
	f.other = d.StoreItem(&baton.Item{Title: "Elsewhere", Project: "other", Status: baton.StatusInProgress})

	// Stored oldest first: the pages list them newest first.
	f.failed = f.run(&baton.Run{ItemID: f.item, Agent: "worker-a", Profile: "worker", Attempt: 1, StartedAt: now.Add(-10 * time.Minute)},
		&baton.Run{Status: baton.RunFailed, Error: "agent died: <script>alert('error')</script>", ExitCode: ptr(3), CostUSD: 1.25,
			DurationMS: (2 * time.Minute).Milliseconds(), EndedAt: now.Add(-8 * time.Minute)})
	f.succeeded = f.run(&baton.Run{ItemID: f.other, Agent: "judge-b", Profile: "judge", Attempt: 1, StartedAt: now.Add(-7 * time.Minute)},
		&baton.Run{Status: baton.RunSucceeded, ExitCode: ptr(0), CostUSD: 0.5, DurationMS: 30000, Model: "test-model", EndedAt: now.Add(-6 * time.Minute)})
	f.timedOut = f.run(&baton.Run{ItemID: f.item, Agent: "worker-c", Profile: "worker", Attempt: 2, StartedAt: now.Add(-5 * time.Minute)},
		&baton.Run{Status: baton.RunTimedOut, Error: "no output for 5m", ExitCode: ptr(-1), DurationMS: 60000, EndedAt: now.Add(-4 * time.Minute)})
	f.cancl = f.run(&baton.Run{ItemID: f.item, Agent: "worker-d", Profile: "worker", Attempt: 3, StartedAt: now.Add(-4 * time.Minute)},
		&baton.Run{Status: baton.RunCancelled, Error: "the dispatcher was stopped", DurationMS: 5000, EndedAt: now.Add(-3 * time.Minute)})
	f.running = f.run(&baton.Run{ItemID: f.item, Agent: "worker-e", Profile: "worker", Attempt: 4, Host: "host-a", PID: 4242,
		Worktree: "/work/trees/colibri/" + f.item, Dispatcher: "host-a:77:k3y", StartedAt: now.Add(-90 * time.Second)}, nil)

	// The failed run's output and more events than its page lists.
	ctx := context.Background()
	evs := make([]baton.RunEvent, runEventsShown+5)
	for i := range evs {
		evs[i] = baton.RunEvent{Type: "assistant", Subtype: "text",
			Data: json.RawMessage(fmt.Sprintf(`{"n":%d,"text":"<script>alert('event')</script>"}`, i+1))}
	}
	evs[len(evs)-1].Data = json.RawMessage(`{"text":"` + strings.Repeat("long ", 200) + `"}`)
	if err := d.Store.Update(ctx, func(tx baton.Tx) error {
		if err := tx.AppendRunEvents(ctx, f.failed, evs); err != nil {
			return err
		}
		return tx.SetRunOutput(ctx, f.failed, baton.RunOutput{Stdout: "hello from stdout\n",
			Stderr: "<script>alert('stderr')</script>\npanic: nil map", StderrDropped: 1234})
	}); err != nil {
		t.Fatal(err)
	}
	return f
}

func ptr(n int) *int { return &n }

// run stores a run as dispatch does: created running, then, when end is
// not nil, finished as end says. It returns the run's id.
func (f *runsFixture) run(r *baton.Run, end *baton.Run) string {
	f.t.Helper()
	ctx := context.Background()
	r.Status = baton.RunRunning
	if err := f.Store.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateRun(ctx, r, nil); err != nil {
			return err
		}
		if end == nil {
			return nil
		}
		done := *r
		done.Status, done.Error, done.ExitCode, done.CostUSD = end.Status, end.Error, end.ExitCode, end.CostUSD
		done.DurationMS, done.Model, done.EndedAt = end.DurationMS, end.Model, end.EndedAt
		return tx.FinishRun(ctx, &done)
	}); err != nil {
		f.t.Fatal(err)
	}
	return r.ID
}

// page fetches path and fails unless the status is want.
func (f *runsFixture) page(path string, want int) string {
	f.t.Helper()
	st, page := f.get(path)
	if st != want {
		f.t.Fatalf("GET %s: %d, want %d\n%s", path, st, want, page)
	}
	return page
}

func href(id string) string { return `href="/runs/` + id + `"` }

func TestRunsPageShowsRunningThenFinishedRuns(t *testing.T) {
	f := newRunsFixture(t)
	page := f.page("/runs", http.StatusOK)
	mustContain(t, page, `aria-current="page">Runs`, `data-live="run."`, `1 running`)

	running := section(t, page, "runs-running")
	mustContain(t, running, href(f.running), `href="/items/`+f.item+`"`, "Build &lt;the&gt; thing",
		"<td>worker</td>", "<td>4</td>", "worker-e", "host-a <code>4242</code>", "<code>/work/trees/colibri/"+f.item+"</code>",
		"<td>1m</td>", "not yet")
	for _, id := range []string{f.failed, f.succeeded, f.timedOut, f.cancl} {
		if strings.Contains(running, href(id)) {
			t.Errorf("the running list has the finished %s", id)
		}
	}

	finished := section(t, page, "runs-finished")
	mustContain(t, finished, href(f.failed), href(f.succeeded), href(f.timedOut), href(f.cancl),
		// how each ended, the failures apart from the success
		`<span class="badge fail">failed</span>`, `<span class="badge fail">timed out</span>`,
		`<span class="badge review">cancelled</span>`, `<span class="badge pass">succeeded</span>`,
		"$1.25", "$0.50", "<td>2m</td>", "<td>30s</td>", "<code>3</code>", "<code>0</code>", "<code>-1</code>",
		"agent died: &lt;script&gt;", "no output for 5m", "Elsewhere", "Together they cost $1.75.")
	if strings.Contains(finished, href(f.running)) {
		t.Error("the finished list has the running run")
	}
	// Newest first.
	if strings.Index(finished, href(f.cancl)) > strings.Index(finished, href(f.failed)) {
		t.Error("the finished runs are not newest first")
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a run's error reached the page as HTML")
	}
}

func TestRunsPageFilters(t *testing.T) {
	f := newRunsFixture(t)

	page := f.page("/runs?status=failed", http.StatusOK)
	mustContain(t, page, "Latest failed runs", href(f.failed), `<option value="failed" selected>`)
	for _, id := range []string{f.running, f.succeeded, f.timedOut, f.cancl} {
		if strings.Contains(page, href(id)) {
			t.Errorf("?status=failed lists %s", id)
		}
	}
	if strings.Contains(page, `id="runs-running"`) {
		t.Error("?status=failed shows the running runs")
	}

	page = f.page("/runs?status=running", http.StatusOK)
	mustContain(t, page, href(f.running))
	if strings.Contains(page, `id="runs-finished"`) || strings.Contains(page, href(f.failed)) {
		t.Error("?status=running shows finished runs")
	}

	page = f.page("/runs?project=other", http.StatusOK)
	mustContain(t, page, href(f.succeeded), "Nothing is running in other.", `<input type="hidden" name="project" value="other">`)
	for _, id := range []string{f.running, f.failed, f.timedOut, f.cancl} {
		if strings.Contains(page, href(id)) {
			t.Errorf("?project=other lists %s of colibri", id)
		}
	}
	page = f.page("/runs?project=other&status=failed", http.StatusOK)
	mustContain(t, page, "No failed runs in other.")

	page = f.page("/runs?status=%3Cbogus%3E", http.StatusBadRequest)
	mustContain(t, page, "is not a run status", "&lt;bogus&gt;", "ERR_INVALID_INPUT")
	page = f.page("/runs?status="+strings.Repeat("x", 5000), http.StatusBadRequest)
	if strings.Contains(page, strings.Repeat("x", 100)) {
		t.Error("a long status filter is quoted whole")
	}
	// An over-long project is no project: every run.
	page = f.page("/runs?project="+strings.Repeat("p", 100), http.StatusOK)
	mustContain(t, page, href(f.running), href(f.succeeded))
}

func TestRunPageShowsFieldsOutputAndLatestEvents(t *testing.T) {
	f := newRunsFixture(t)
	page := f.page("/runs/"+f.failed, http.StatusOK)
	mustContain(t, page, "<title>"+f.failed+" on "+f.item+" · baton</title>", `aria-current="page">Runs`, `data-live="run."`,
		`<span class="badge fail">failed</span>`, `href="/items/`+f.item+`"`, "Build &lt;the&gt; thing",
		"<td>worker</td>", "<td>1</td>", "worker-a", "$1.25", "<td>2m</td>", "<code>3</code>",
		// the error and the output tails are text
		`<div class="body">agent died: &lt;script&gt;alert(&#39;error&#39;)&lt;/script&gt;</div>`,
		`<h3>stdout</h3>`, `>hello from stdout`+"\n</pre>",
		`<h3>stderr</h3>`, "1234 bytes before this were not kept.", `>&lt;script&gt;alert(&#39;stderr&#39;)&lt;/script&gt;`+"\npanic: nil map</pre>",
		// the latest events, each data cut short and escaped
		"5 earlier events are not shown", `data-seq="6"`, fmt.Sprintf(`data-seq="%d"`, runEventsShown+5),
		"<td>assistant</td><td>text</td>", `&lt;script&gt;alert(&#39;event&#39;)&lt;/script&gt;`, "…</code>")
	if strings.Contains(page, `data-seq="5"`) {
		t.Error("the page lists an event before the latest 100")
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a run's text reached the page as HTML")
	}
	if strings.Contains(page, strings.Repeat("long ", runEventExcerpt/5+1)) {
		t.Error("an event's data is shown whole")
	}

	page = f.page("/runs/"+f.running, http.StatusOK)
	mustContain(t, page, `<span class="badge running">running</span>`, "Running for", "<td>1m</td>", "still running",
		"reported when the agent ends", "<code>4242</code>", "host-a", "<code>host-a:77:k3y</code>",
		"<code>/work/trees/colibri/"+f.item+"</code>", "No events.", "nothing is kept while it runs")
}

func TestRunPageOfAnUnknownRunIsA404(t *testing.T) {
	f := newRunsFixture(t)
	page := f.page("/runs/R-999", http.StatusNotFound)
	mustContain(t, page, "Not found", "run &#34;R-999&#34; does not exist", "open a run from the runs page", "ERR_NOT_FOUND")

	page = f.page("/runs/%3Cscript%3E", http.StatusNotFound)
	mustContain(t, page, "&lt;script&gt;")
	if strings.Contains(page, "<script>") {
		t.Error("the unknown id reached the page as HTML")
	}
	page = f.page("/runs/"+strings.Repeat("r", runIDMax+1), http.StatusNotFound)
	if strings.Contains(page, strings.Repeat("r", 100)) {
		t.Error("an over-long id is quoted whole")
	}
}

func TestItemPageLinksItsRuns(t *testing.T) {
	f := newRunsFixture(t)
	page := f.getItem(f.item)
	runs := section(t, page, "item-runs")
	mustContain(t, runs, href(f.running), href(f.failed), href(f.timedOut), href(f.cancl),
		`<span class="badge running">running</span>`, "running for 1m", `<span class="badge" title="profile">worker</span>`, "attempt 4",
		`<span class="badge fail">failed</span>`, `<span class="badge fail">timed out</span>`, `<span class="badge review">cancelled</span>`,
		"exit code 3", "$1.25", "agent died: &lt;script&gt;")
	if strings.Contains(runs, href(f.succeeded)) {
		t.Error("the item page lists another item's run")
	}
}

func TestOutputTailAndExcerptCutAtCharacters(t *testing.T) {
	text := strings.Repeat("é", runOutputShown) // two bytes each
	o := outputTail("stdout", text, 7)
	if len(o.Text) > runOutputShown || !strings.HasPrefix(o.Text, "é") || o.Hidden != int64(len(text)-len(o.Text)) || o.Dropped != 7 {
		t.Errorf("tail of %d bytes: %d shown, %d hidden, starts %q", len(text), len(o.Text), o.Hidden, o.Text[:2])
	}
	if o := outputTail("stderr", "short", 0); o.Text != "short" || o.Hidden != 0 {
		t.Errorf("a short output: %+v", o)
	}
	if s, cut := excerpt("héllo", 2); s != "hé" || !cut {
		t.Errorf("excerpt: %q %v", s, cut)
	}
	if s, cut := excerpt("hé", 2); s != "hé" || cut {
		t.Errorf("excerpt of a short text: %q %v", s, cut)
	}
}
