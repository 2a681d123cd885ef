package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// The Runs pages: what agent runs are going on (started by baton dispatch,
// or ingested from a stream), where each runs, for how long and at what
// cost; then the latest finished ones and how they ended. One run's page
// adds its error, the tails of its output and its latest stream events.

const (
	// runsRunningCap bounds the running runs listed: dispatchers bound
	// their agents (max_agents), so more means several dispatchers at full
	// tilt; the page says the list was cut.
	runsRunningCap = 200
	// runsFinishedCap bounds the finished runs listed, newest first; the
	// filters and `baton runs list` reach further back.
	runsFinishedCap = 100
	// runIDMax bounds a run id in the URL: ids are R-N, or an ingested
	// run's own id, which the tools bound far below this.
	runIDMax = 128
	// runEventsShown is how many of a run's latest events its page lists:
	// a long run has thousands, query_run_events reads them all.
	runEventsShown = 100
	// runEventExcerpt is how much of an event's data its row shows, in
	// runes: enough to tell what the event was about.
	runEventExcerpt = 300
	// runOutputShown is how much of each output tail a run page renders,
	// in bytes: a dispatcher keeps up to 16 MiB (output_limit), more than
	// a browser shows usefully; the end is what tells why a run stopped.
	runOutputShown = 64 << 10
)

// runStatuses are the statuses the ?status filter accepts, in the order
// a run goes through them.
var runStatuses = []string{baton.RunRunning, baton.RunSucceeded, baton.RunFailed, baton.RunTimedOut, baton.RunCancelled}

var runsPage = &pageDef{
	Pattern: "/runs", Name: "runs", Title: "Runs", Nav: "runs",
	// run.started, run.finished (dispatch) and run.ingested (baton runs
	// ingest): every change of what the page lists.
	Live: []string{"run."},
	Load: loadRuns,
}

var runPage = &pageDef{
	Pattern: "/runs/{id}", Name: "run", Title: "Run", Nav: "runs",
	// A run's events and output are stored without an event of their own
	// (agents write many a second); the page refreshes when a run starts
	// or ends, which is when its status, output and cost change.
	Live: []string{"run."},
	Load: loadRun,
}

func init() {
	register(runsPage)
	register(runPage)
}

// runClass is the badge class (app.css) of a run status: the endings
// that need a look (failed, timed out, cancelled) stand apart from a
// success, and a running run from both.
func runClass(status string) string {
	switch status {
	case baton.RunRunning:
		return "running"
	case baton.RunSucceeded:
		return "pass"
	case baton.RunFailed, baton.RunTimedOut:
		return "fail"
	case baton.RunCancelled:
		return "review"
	}
	return ""
}

// runLabel is a run status as a person reads it ("timed out").
func runLabel(status string) string { return strings.ReplaceAll(status, "_", " ") }

// runRow is a run as the pages show it.
type runRow struct {
	*baton.Run
	Title string // the item's title, "" when the item is gone
	// Took is how long the run ran: until now while it runs, else its
	// recorded duration.
	Took time.Duration
}

func newRunRow(r *baton.Run, now time.Time) runRow {
	row := runRow{Run: r}
	switch {
	case r.Status == baton.RunRunning:
		row.Took = max(now.Sub(r.StartedAt), 0)
	case r.DurationMS > 0:
		row.Took = time.Duration(r.DurationMS) * time.Millisecond
	case !r.EndedAt.IsZero():
		row.Took = max(r.EndedAt.Sub(r.StartedAt), 0)
	}
	return row
}

// Class is the badge class of the run's status.
func (r runRow) Class() string { return runClass(r.Status) }

// Label is the run's status as a person reads it.
func (r runRow) Label() string { return runLabel(r.Status) }

// Running says whether the run has not ended yet.
func (r runRow) Running() bool { return r.Status == baton.RunRunning }

// Href links the run's page; an ingested run's id is the agent's text,
// so it is escaped as one path segment.
func (r runRow) Href() string { return "/runs/" + segment(r.ID) }

// ItemHref links the run's item.
func (r runRow) ItemHref() string { return "/items/" + segment(r.ItemID) }

// Cost is the run's cost in dollars, "" while none was reported: an
// agent reports its cost in its stream's last line, so a running run's
// is not known yet.
func (r runRow) Cost() string {
	if r.CostUSD == 0 {
		return ""
	}
	return fmt.Sprintf("$%.2f", r.CostUSD)
}

type runsData struct {
	Running  []runRow
	Finished []runRow
	// MoreRunning and MoreFinished say a list was cut at its cap.
	MoreRunning, MoreFinished bool
	RunningCap, FinishedCap   int
	Status                    string // the ?status filter
	Statuses                  []string
	ShowRunning, ShowFinished bool   // which sections the filter keeps
	FinishedCost              string // of the finished runs listed
}

func loadRuns(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	project := projectParam(r)
	d := &runsData{RunningCap: runsRunningCap, FinishedCap: runsFinishedCap, Statuses: runStatuses}
	if st := r.URL.Query().Get("status"); st != "" {
		if !slices.Contains(runStatuses, st) {
			return d, baton.Errorf(baton.ErrInvalidInput, "%q is not a run status", clipText(st, 32)).
				WithDetails("field", "status", "allowed", runStatuses).
				WithHint("use one of running, succeeded, failed, timed_out, cancelled, or no status for every run")
		}
		d.Status = st
	}
	d.ShowRunning = d.Status == "" || d.Status == baton.RunRunning
	d.ShowFinished = d.Status != baton.RunRunning
	now := s.now()
	err := s.view(ctx, func(tx baton.Tx) error {
		var running, finished []*baton.Run
		if d.ShowRunning {
			rs, err := tx.ListRuns(ctx, baton.RunFilter{Project: project, Status: baton.RunRunning, Limit: runsRunningCap + 1})
			if err != nil {
				return err
			}
			running = rs
		}
		if d.ShowFinished {
			f := baton.RunFilter{Project: project, Status: d.Status, Limit: runsFinishedCap + 1}
			if d.Status == "" {
				// Every status, newest first, less the running runs the
				// first list has: read as many more as it holds.
				f.Limit += len(running)
			}
			rs, err := tx.ListRuns(ctx, f)
			if err != nil {
				return err
			}
			for _, run := range rs {
				if run.Status != baton.RunRunning {
					finished = append(finished, run)
				}
			}
		}
		if len(running) > runsRunningCap {
			running, d.MoreRunning = running[:runsRunningCap], true
		}
		if len(finished) > runsFinishedCap {
			finished, d.MoreFinished = finished[:runsFinishedCap], true
		}
		titles, err := itemTitles(ctx, tx, running, finished)
		if err != nil {
			return err
		}
		var cost float64
		for _, run := range running {
			row := newRunRow(run, now)
			row.Title = titles[run.ItemID]
			d.Running = append(d.Running, row)
		}
		for _, run := range finished {
			row := newRunRow(run, now)
			row.Title = titles[run.ItemID]
			d.Finished = append(d.Finished, row)
			cost += run.CostUSD
		}
		d.FinishedCost = fmt.Sprintf("$%.2f", cost)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// itemTitles reads the titles of the runs' items: one lookup by key per
// item, at most runsRunningCap+runsFinishedCap of them, and runs of one
// item share it. An item that is gone has no title.
func itemTitles(ctx context.Context, tx baton.Tx, lists ...[]*baton.Run) (map[string]string, error) {
	out := map[string]string{}
	for _, l := range lists {
		for _, r := range l {
			if _, ok := out[r.ItemID]; ok {
				continue
			}
			it, err := tx.Item(ctx, r.ItemID)
			switch {
			case baton.ErrorCode(err) == baton.ErrTaskNotFound:
				out[r.ItemID] = ""
			case err != nil:
				return nil, err
			default:
				out[r.ItemID] = it.Title
			}
		}
	}
	return out, nil
}

// runEvent is one stream event as the run page lists it.
type runEvent struct {
	baton.RunEvent
	// Excerpt is the start of the event's data (its JSON as stored);
	// Cut says there was more.
	Excerpt string
	Cut     bool
}

// runOutput is one output stream's kept tail as the page shows it.
type runOutput struct {
	Name string // stdout, stderr
	Text string
	// Dropped is how many bytes the dispatcher cut from the front;
	// Hidden how many more of the kept tail the page leaves out.
	Dropped, Hidden int64
}

type runData struct {
	Run     runRow
	Outputs []runOutput
	Events  []runEvent
	// EarlierEvents is how many events come before the ones listed.
	EarlierEvents int
	EventsCap     int
}

func loadRun(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	id := r.PathValue("id")
	if n := utf8.RuneCountInString(id); n > runIDMax || !utf8.ValidString(id) {
		return nil, baton.Errorf(baton.ErrNotFound, "run %q does not exist", clipText(id, 64)).
			WithDetails("run_id", clipText(id, 64)).
			WithHint("open a run from the runs page (/runs); ids look like R-NUMBER")
	}
	now := s.now()
	d := &runData{EventsCap: runEventsShown}
	err := s.view(ctx, func(tx baton.Tx) error {
		run, err := tx.Run(ctx, id)
		if err != nil {
			if e := baton.AsError(err); e.Code == baton.ErrNotFound {
				return e.WithHint("open a run from the runs page (/runs); ids look like R-NUMBER")
			}
			return err
		}
		d.Run = newRunRow(run, now)
		titles, err := itemTitles(ctx, tx, []*baton.Run{run})
		if err != nil {
			return err
		}
		d.Run.Title = titles[run.ItemID]
		out, err := tx.RunOutput(ctx, run.ID)
		if err != nil {
			return err
		}
		d.Outputs = []runOutput{outputTail("stdout", out.Stdout, out.StdoutDropped), outputTail("stderr", out.Stderr, out.StderrDropped)}
		// The latest events: the run's count says where they start, and
		// the query's total corrects it should more have come meanwhile.
		offset := max(run.EventCount-runEventsShown, 0)
		evs, total, err := tx.RunEvents(ctx, baton.RunEventFilter{RunID: run.ID, Limit: runEventsShown, Offset: offset})
		if err != nil {
			return err
		}
		d.EarlierEvents = max(total-len(evs), 0)
		for _, e := range evs {
			ex, cut := excerpt(string(e.Data), runEventExcerpt)
			d.Events = append(d.Events, runEvent{RunEvent: e, Excerpt: ex, Cut: cut})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// outputTail keeps the last runOutputShown bytes of text, starting at a
// character boundary.
func outputTail(name, text string, dropped int64) runOutput {
	o := runOutput{Name: name, Text: text, Dropped: dropped}
	if len(text) > runOutputShown {
		cut := len(text) - runOutputShown
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		o.Text, o.Hidden = text[cut:], int64(cut)
	}
	return o
}

// excerpt is the first n runes of s, and whether there were more.
func excerpt(s string, n int) (string, bool) {
	i := 0
	for at := range s {
		if i == n {
			return s[:at], true
		}
		i++
	}
	return s, false
}

// PageTitle names the page after the run and its item.
func (d *runData) PageTitle() string { return d.Run.ID + " on " + d.Run.ItemID }
