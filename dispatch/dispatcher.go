package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/review"
	"github.com/baton-dev/baton/worktree"
)

// Agent is who the dispatcher acts as in the action log, events and its
// messages to the human.
const Agent = "dispatcher"

// Source is the source of the dispatcher's actions in the action log.
const Source = "dispatch"

// Dispatcher starts agents on ready work and looks after them until they
// end. One runs per project per host (Lock); dispatchers on several hosts
// sharing a PostgreSQL database never start the same item twice, because
// each start is a claim and a claim has one holder.
type Dispatcher struct {
	Store  baton.Store
	Config *Config
	// Projects are the slugs dispatched; empty means every project.
	Projects []string
	// Baton is the command that starts baton; an agent's MCP configuration
	// runs Baton + ["mcp", ...]. Empty means this executable.
	Baton []string
	// DB is the --db the agent's baton opens: the same database.
	DB string
	// DataDir holds agent memory (memory.Show), for prompts.
	DataDir string
	// Repo is a project's git repository, where worktrees go.
	Repo func(p *baton.Project) string
	// Tools is the tool set of a profile in a project: what the run's
	// tool-scope file lists. Nil writes no scope file (the profile's
	// default set then applies through --agent-type).
	Tools func(ctx context.Context, profile, project string) ([]string, error)
	// Env is the agents' base environment; nil means this process's.
	Env []string
	// Phases, when set, is ticked before each dispatch so finished phase
	// work moves on first (Symphony's tick order), and after --once.
	Phases *orchestrator.Phases
	Clock  baton.Clock
	Bus    *events.Bus
	Log    *slog.Logger
	// Host names this machine in runs; default os.Hostname.
	Host string

	id      string // host:pid:random, in every run it starts
	initErr error
	once    sync.Once
	gitMu   sync.Mutex // git worktree commands of one repository must not interleave

	mu       sync.Mutex
	dir      string            // the runs' files (prompt, MCP config, scope); made on the first start
	running  map[string]*agent // by run id
	finished []*Finished       // ended and not yet taken (Once reports them)
	broken   map[string]string // profiles whose command cannot start, and why
	telling  map[string]string // profile → the run whose transaction tells the human it cannot start
	closed   bool
	wg       sync.WaitGroup
	wake     chan struct{} // an agent ended: refill its slot now
}

// init sets what the zero value lacks; it runs once.
func (d *Dispatcher) init() error {
	d.once.Do(func() {
		if d.Host == "" {
			d.Host, _ = os.Hostname()
			if d.Host == "" {
				d.Host = "localhost"
			}
		}
		d.id = fmt.Sprintf("%s:%d:%s", d.Host, os.Getpid(), randomHex(4))
		d.running, d.broken, d.telling = map[string]*agent{}, map[string]string{}, map[string]string{}
		d.wake = make(chan struct{}, 1)
		if len(d.Baton) == 0 {
			exe, err := os.Executable()
			if err != nil {
				d.initErr = fmt.Errorf("finding the baton executable for the agents' MCP configuration: %w", err)
				return
			}
			d.Baton = []string{exe}
		}
	})
	return d.initErr
}

// runDir makes (once) and returns the directory of the run's files.
func (d *Dispatcher) runDir(runID string) (string, error) {
	d.mu.Lock()
	if d.dir == "" {
		dir, err := os.MkdirTemp("", "baton-dispatch-")
		if err != nil {
			d.mu.Unlock()
			return "", fmt.Errorf("making the dispatcher's directory: %w", err)
		}
		d.dir = dir
	}
	dir := filepath.Join(d.dir, worktree.Sanitize(runID))
	d.mu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the run's directory: %w", err)
	}
	return dir, nil
}

// cleanup removes the runs' directory once no agent runs.
func (d *Dispatcher) cleanup() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.running) == 0 && d.dir != "" {
		_ = os.RemoveAll(d.dir)
		d.dir = ""
	}
}

// ended takes a finished run out of the running set and keeps its report,
// in one step: whoever sees nothing running finds every report.
func (d *Dispatcher) ended(runID string, f *Finished) {
	d.mu.Lock()
	delete(d.running, runID)
	if f != nil {
		d.finished = append(d.finished, f)
	}
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// take returns the runs ended since the last take, and how many still run.
func (d *Dispatcher) take() ([]*Finished, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.finished
	d.finished = nil
	return out, len(d.running)
}

// ID is the dispatcher's identity in the runs it starts: host:pid:random.
func (d *Dispatcher) ID() string {
	_ = d.init()
	return d.id
}

func (d *Dispatcher) now() time.Time {
	if d.Clock != nil {
		return d.Clock().UTC()
	}
	return time.Now().UTC()
}

func (d *Dispatcher) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.New(slog.DiscardHandler)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Kind says what an agent is started for.
type Kind string

// Kinds of work, in the order a tick fills slots: reviews first (they
// unblock finished work), then pre-ready phases, then implementation.
const (
	KindReviewPR    Kind = "review_pr"    // a judge on an open PR
	KindReviewPhase Kind = "review_phase" // a judge on a phase claim awaiting its verdict
	KindPhase       Kind = "phase"        // research, architecture or grooming
	KindWork        Kind = "work"         // ready work
)

// Start is one agent a tick starts (or, dry, would start).
type Start struct {
	Project string      `json:"project"`
	Item    string      `json:"issue"`
	Title   string      `json:"title"`
	Profile string      `json:"profile"`
	Kind    Kind        `json:"kind"`
	Phase   baton.Phase `json:"phase"`
	Attempt int         `json:"attempt"`
	Agent   string      `json:"agent"`            // the claim's holder and the agent's name
	RunID   string      `json:"run_id,omitempty"` // empty in a dry run
	PR      string      `json:"pr,omitempty"`
	Command []string    `json:"command"` // as it would run, placeholders shown unexpanded
}

// Skip is ready work a tick leaves alone, and why.
type Skip struct {
	Project string `json:"project"`
	Item    string `json:"issue,omitempty"`
	Profile string `json:"profile,omitempty"`
	Reason  string `json:"reason"`
}

// TickReport is what one tick did.
type TickReport struct {
	Started    []Start     `json:"started"`
	Skipped    []Skip      `json:"skipped"`
	Reconciled []*Finished `json:"reconciled"` // runs of dead dispatchers ended
	Running    int         `json:"running"`    // this dispatcher's agents after the tick
	Errors     []string    `json:"errors"`
}

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run")

// Tick reconciles runs whose dispatcher died, then starts agents on ready
// work in the free slots of every project. A dry tick only reports what
// it would start: its claims are rolled back and nothing runs.
func (d *Dispatcher) Tick(ctx context.Context, dry bool) (*TickReport, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	r := &TickReport{Started: []Start{}, Skipped: []Skip{}, Reconciled: []*Finished{}, Errors: []string{}}
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return r, nil // shutting down: start nothing more
	}
	if d.Phases != nil && !dry {
		if _, err := d.Phases.Once(ctx); err != nil && ctx.Err() == nil {
			r.Errors = append(r.Errors, "phase tick: "+err.Error())
		}
	}
	projects, err := d.projects(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range projects {
		if !dry {
			fs, err := d.reconcile(ctx, p)
			if err != nil {
				r.Errors = append(r.Errors, fmt.Sprintf("%s: reconciling runs: %v", p.Slug, err))
			}
			r.Reconciled = append(r.Reconciled, fs...)
		}
		if err := d.fill(ctx, p, dry, r); err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			r.Errors = append(r.Errors, fmt.Sprintf("%s: %v", p.Slug, err))
		}
	}
	r.Running = d.Running()
	return r, nil
}

// Running is how many agents this dispatcher has running.
func (d *Dispatcher) Running() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.running)
}

// projects are the projects this dispatcher serves.
func (d *Dispatcher) projects(ctx context.Context) ([]*baton.Project, error) {
	var out []*baton.Project
	err := d.Store.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.Projects(ctx)
		if err != nil {
			return err
		}
		for _, slug := range d.Projects {
			if !slices.ContainsFunc(ps, func(p *baton.Project) bool { return p.Slug == slug }) {
				return baton.Errorf(baton.ErrNotFound, "no project %q", slug).WithDetails("project", slug).
					WithHint("baton project list shows the projects")
			}
		}
		for _, p := range ps {
			if len(d.Projects) == 0 || slices.Contains(d.Projects, p.Slug) {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// slots counts this dispatcher's agents of a project, in all and per profile.
func (d *Dispatcher) slots(project string) (total int, byProfile map[string]int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	byProfile = map[string]int{}
	for _, a := range d.running {
		if a.start.Project == project {
			total++
			byProfile[a.start.Profile]++
		}
	}
	return total, byProfile
}

// claimed is one item a tick claimed, with what its agent needs.
type claimed struct {
	start   Start
	item    *baton.Item
	run     *baton.Run
	profile *Profile
	state   snapshot
}

// fill claims work for the project's free slots and starts an agent on
// each claim: the claims and their runs are written in one transaction.
func (d *Dispatcher) fill(ctx context.Context, p *baton.Project, dry bool, r *TickReport) error {
	used, byProfile := d.slots(p.Slug)
	root := ""
	if d.Repo != nil {
		root = d.Repo(p)
	}
	// Which profile works on which phase comes from the project's
	// contracts (dispatch_profile), read before the transaction.
	phaseProfile := map[baton.Phase]string{}
	for _, ph := range baton.Phases {
		c, err := phases.Contract(root, ph)
		if err != nil {
			r.Skipped = append(r.Skipped, Skip{Project: p.Slug, Reason: fmt.Sprintf("phase %s: %v", ph, err)})
			continue
		}
		phaseProfile[ph] = c.DispatchProfile
	}
	now := d.now()
	var got []*claimed
	var skipped []Skip
	err := d.Store.Update(ctx, func(tx baton.Tx) error {
		got, skipped = got[:0], skipped[:0]
		free := d.Config.MaxAgents - used // inside: a retried transaction starts over
		retries, err := tx.DispatchRetries(ctx, p.Slug)
		if err != nil {
			return err
		}
		waiting := map[string]*baton.DispatchRetry{}
		var exclude []string
		for _, rt := range retries {
			waiting[rt.ItemID] = rt
			if rt.NextAt.After(now) {
				exclude = append(exclude, rt.ItemID)
			}
		}
		taken := map[string]int{}
		room := func(profile string) (*Profile, string) {
			prof := d.Config.Profiles[profile]
			d.mu.Lock()
			broken := d.broken[profile]
			d.mu.Unlock()
			switch {
			case prof == nil:
				return nil, fmt.Sprintf("no [dispatch.profiles.%s] command in %s", profile, d.Config.Path)
			case broken != "":
				return nil, broken
			case free <= 0:
				return nil, fmt.Sprintf("all %d slots of the project are busy", d.Config.MaxAgents)
			case byProfile[profile]+taken[profile] >= prof.MaxAgents:
				return nil, fmt.Sprintf("all %d %s slots are busy", prof.MaxAgents, profile)
			}
			return prof, ""
		}
		add := func(c *claimed) error {
			c.start.Project, c.start.Profile = p.Slug, c.profile.Name
			if rt := waiting[c.item.ID]; rt != nil {
				c.start.Attempt = rt.Attempts + 1
			} else {
				c.start.Attempt = 1
			}
			c.start.Item, c.start.Title = c.item.ID, c.item.Title
			c.start.Command = c.profile.Command
			c.run = &baton.Run{ItemID: c.item.ID, Agent: c.start.Agent, Status: baton.RunRunning, Profile: c.profile.Name,
				Attempt: c.start.Attempt, Host: d.Host, Dispatcher: d.id, StartedAt: now}
			if err := tx.CreateRun(ctx, c.run, nil); err != nil {
				return err
			}
			c.start.RunID = c.run.ID
			st, err := snap(ctx, tx, c.item.ID)
			if err != nil {
				return err
			}
			c.state = st
			if err := d.record(ctx, tx, "dispatch_start", "run.started", p.Slug, c.item.ID,
				map[string]any{"issue": c.item.ID, "profile": c.profile.Name, "kind": c.start.Kind, "attempt": c.start.Attempt},
				map[string]any{"run_id": c.run.ID, "agent": c.start.Agent, "host": d.Host}, now); err != nil {
				return err
			}
			got = append(got, c)
			taken[c.profile.Name]++
			free--
			return nil
		}
		// Judges first: reviews unblock work that is otherwise finished.
		reviews, err := d.reviews(ctx, tx, p.Slug, now, exclude)
		if err != nil {
			return err
		}
		for _, rv := range reviews {
			prof, why := room("judge")
			if prof == nil {
				skipped = append(skipped, Skip{Project: p.Slug, Item: rv.item.ID, Profile: "judge", Reason: why})
				continue
			}
			holder := holderName(prof.Name)
			if _, err := tx.Claim(ctx, rv.item.ID, holder, d.Config.Lease.Duration, now); err != nil {
				if baton.ErrorCode(err) == baton.ErrClaimed {
					continue // another dispatcher's judge took it a moment ago
				}
				return err
			}
			rv.start.Agent, rv.profile = holder, prof
			if err := add(rv); err != nil {
				return err
			}
		}
		// Then the pre-ready phases, then ready work; needs-planning keeps
		// workers off an item until a planner has been through it.
		planning, err := labelled(ctx, tx, p.Slug, "needs-planning")
		if err != nil {
			return err
		}
		for _, ph := range baton.Phases {
			profile := phaseProfile[ph]
			if profile == "" {
				continue
			}
			label, kind, skip := ph.Label(), KindPhase, exclude
			if ph == baton.PhaseReady {
				label, kind, skip = "", KindWork, append(slices.Clone(exclude), planning...)
			}
			for {
				prof, why := room(profile)
				if prof == nil {
					if workLeft(ctx, tx, p.Slug, label, skip) {
						skipped = append(skipped, Skip{Project: p.Slug, Profile: profile,
							Reason: fmt.Sprintf("%s work waits: %s", ph, why)})
					}
					break
				}
				holder := holderName(prof.Name)
				cl, it, err := tx.ClaimNext(ctx, holder, baton.ClaimNextFilter{Project: p.Slug, Label: label, Exclude: skip}, d.Config.Lease.Duration, now)
				if err != nil {
					return err
				}
				if cl == nil {
					break
				}
				if err := add(&claimed{item: it, profile: prof, start: Start{Kind: kind, Phase: ph, Agent: holder}}); err != nil {
					return err
				}
				skip = append(skip, it.ID)
			}
		}
		for id, rt := range waiting {
			if rt.NextAt.After(now) {
				skipped = append(skipped, Skip{Project: p.Slug, Item: id,
					Reason: fmt.Sprintf("attempt %d waits until %s after: %s", rt.Attempts+1, rt.NextAt.Format(time.RFC3339), rt.LastError)})
			}
		}
		if dry {
			return errDryRun
		}
		return nil
	})
	if dry && errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		return err // rolled back: nothing was claimed or started
	}
	r.Skipped = append(r.Skipped, skipped...)
	for _, c := range got {
		s := c.start
		if dry {
			s.RunID = ""
		}
		r.Started = append(r.Started, s)
	}
	if dry {
		return nil
	}
	if len(got) > 0 && d.Bus != nil {
		d.Bus.Publish(p.Slug)
	}
	for _, c := range got {
		d.launch(ctx, p, root, c)
	}
	return nil
}

// holderName is a fresh agent name for one run: the claim's holder, so
// no two runs (on any host) share a lease.
func holderName(profile string) string {
	return profile + "-" + randomHex(4)
}

// reviews lists the project's items waiting for a judge: open PRs whose
// required gates passed, and phase claims awaiting their verdict. Claimed
// items and items backing off are left out.
func (d *Dispatcher) reviews(ctx context.Context, tx baton.Tx, project string, now time.Time, exclude []string) ([]*claimed, error) {
	page, err := tx.ListItems(ctx, baton.ItemFilter{Project: project, Statuses: []baton.Status{baton.StatusReview}, Limit: 200})
	if err != nil {
		return nil, err
	}
	var out []*claimed
	for _, it := range page.Items {
		if slices.Contains(exclude, it.ID) {
			continue
		}
		if cl, err := tx.ClaimOf(ctx, it.ID); err != nil {
			return nil, err
		} else if cl.Active(now) {
			continue
		}
		pr, err := latestPR(ctx, tx, it.ID)
		if err != nil {
			return nil, err
		}
		if pr != nil && (pr.Status == baton.PROpen || pr.Status == baton.PRApproved) {
			// An open PR whose required gates passed is a judge's; an
			// approved one waits for a human to merge it.
			if pr.Status == baton.PROpen && len(review.Blocking(pr.Gates)) == 0 {
				out = append(out, &claimed{item: it, start: Start{Kind: KindReviewPR, Phase: it.Phase(), PR: pr.ID}})
			}
			continue
		}
		if ph := it.Phase(); ph.PreReady() {
			st, err := orchestrator.LatestClaim(ctx, tx, it.ID, ph)
			if err != nil {
				return nil, err
			}
			if st != nil && st.Awaiting() && st.Verdict == nil {
				out = append(out, &claimed{item: it, start: Start{Kind: KindReviewPhase, Phase: ph}})
			}
		}
	}
	return out, nil
}

// latestPR is an item's latest PR record, or nil.
func latestPR(ctx context.Context, tx baton.Tx, itemID string) (*baton.PR, error) {
	ps, err := tx.PRs(ctx, baton.PRFilter{ItemID: itemID, Limit: 1})
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	return ps[0], nil
}

// labelled lists the project's todo items carrying label.
func labelled(ctx context.Context, tx baton.Tx, project, label string) ([]string, error) {
	page, err := tx.ListItems(ctx, baton.ItemFilter{Project: project, Statuses: []baton.Status{baton.StatusTodo}, Label: label, Limit: 1000})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(page.Items))
	for i, it := range page.Items {
		ids[i] = it.ID
	}
	return ids, nil
}

// workLeft reports whether todo work of a phase (label "" for ready) that
// is not excluded is left, for the reason a skip gives. It reads at most
// len(exclude)+1 items, whatever the queue's length; dependencies are not
// checked, so it is a hint, not a promise.
func workLeft(ctx context.Context, tx baton.Tx, project, label string, exclude []string) bool {
	f := baton.ItemFilter{Project: project, Statuses: []baton.Status{baton.StatusTodo}, Label: label, Limit: len(exclude) + 1}
	page, err := tx.ListItems(ctx, f)
	if err != nil {
		return false
	}
	for _, it := range page.Items {
		if !slices.Contains(exclude, it.ID) && (label != "" || !it.Phase().PreReady()) {
			return true
		}
	}
	return false
}

// Run dispatches every Config.Poll, and at once when an agent ends, until
// ctx ends; then it stops every agent (Shutdown) and returns.
func (d *Dispatcher) Run(ctx context.Context) error {
	if err := d.init(); err != nil {
		return err
	}
	t := time.NewTicker(d.Config.Poll.Duration)
	defer t.Stop()
	for {
		if r, err := d.Tick(ctx, false); err != nil && ctx.Err() == nil {
			d.log().Warn("dispatch tick", "err", err)
		} else if r != nil {
			for _, e := range r.Errors {
				d.log().Warn("dispatch", "err", e)
			}
		}
		select {
		case <-ctx.Done():
			d.Shutdown(context.WithoutCancel(ctx))
			return nil
		case <-t.C:
		case <-d.wake:
			d.take() // recorded in the store; nobody waits for the reports here
		}
	}
}

// Once starts agents on what is ready now, waits for them all to end,
// ticks the phase pipeline so their results are processed, and reports
// every run it ended. ctx ending stops the agents (Shutdown).
func (d *Dispatcher) Once(ctx context.Context) (*TickReport, []*Finished, error) {
	r, err := d.Tick(ctx, false)
	if err != nil {
		// Agents started for the projects ticked before the error stop
		// with the command.
		d.Shutdown(context.WithoutCancel(ctx))
		fin, _ := d.take()
		return r, fin, err
	}
	var out []*Finished
	for {
		fin, n := d.take()
		out = append(out, fin...)
		if n == 0 {
			break
		}
		select {
		case <-d.wake:
		case <-ctx.Done():
			d.Shutdown(context.WithoutCancel(ctx))
			fin, _ := d.take()
			return r, append(out, fin...), ctx.Err()
		}
	}
	d.cleanup()
	if d.Phases != nil {
		if _, err := d.Phases.Once(ctx); err != nil {
			r.Errors = append(r.Errors, "phase tick: "+err.Error())
		}
	}
	return r, out, nil
}

// Shutdown stops every running agent (SIGTERM to its process group, then
// SIGKILL after the grace period), records their runs as cancelled,
// gives their claims back, and removes the dispatcher's files. No agent
// process outlives it.
func (d *Dispatcher) Shutdown(ctx context.Context) {
	d.mu.Lock()
	d.closed = true
	as := make([]*agent, 0, len(d.running))
	for _, a := range d.running {
		as = append(as, a)
	}
	d.mu.Unlock()
	for _, a := range as {
		a.stop(stopShutdown, "the dispatcher was stopped")
	}
	d.wg.Wait()
	d.cleanup()
}
