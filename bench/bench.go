// Package bench is baton's load harness: N simulated agents, each with its
// own MCP session over Streamable HTTP (or its own `baton mcp` process over
// stdio), run a realistic mix of calls against a fresh database on
// loopback, for a fixed time or number of calls, and stop by themselves.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a run.
type Options struct {
	Agents   int           // simulated agents (default 64)
	Duration time.Duration // how long to run (default 10 s) ...
	Calls    int           // ... or stop after this many calls in all
	Stdio    bool          // one `baton mcp` process per agent instead of HTTP sessions
	// Binary is the baton binary that stdio mode starts per agent and
	// --split re-executes as its server process (default: this
	// executable; a test binary serves through ServeFromEnv in TestMain).
	Binary string
	Dir    string // where the database goes (default: a temporary directory)
	// Postgres, a postgres:// URL, runs on a fresh schema of that database
	// (dropped afterwards) instead of a SQLite file.
	Postgres string
	// Replicas, with Postgres, runs this many baton servers on the one
	// schema, each with its own store handle, server factory and
	// listener; the agents are dealt out to them in turn.
	Replicas int
	// ReadOnly runs a mix of read-only tools only (get_issue,
	// get_issue_status, task_list, search_learnings, list_threads,
	// list_agents), the reads that need no writer.
	ReadOnly bool
	// Dashboard keeps this many dashboard pages open at DashboardPath
	// (default "/") during the run, refreshing live as a browser does
	// (dashboard.go); HTTP mode only.
	Dashboard     int
	DashboardPath string
	// Floors measures, after the run and in the same process, the no-op
	// go-sdk floor, the replay floor (replay.go) and the write floor of the
	// run's store (floor.go) with the run's concurrency and duration; HTTP
	// mode only.
	Floors bool
	// Split runs the server in a process of its own pinned to one CPU and
	// the agents in this process pinned to another, and reports the CPU
	// each side spends per call (Linux, two CPUs; see SplitSupported).
	Split bool
	// Rate, when above zero, paces the agents open-loop at this many calls
	// per second in all (rate.go) instead of each calling again as soon as
	// its last call returns.
	Rate float64

	// replay is the file of results a replay floor's server answers with
	// (replay.go).
	replay string
}

// Project is the project every run works in.
const Project = "bench"

// agentHeader names the simulated agent of an HTTP request. Only the
// harness's own bench server reads it; `baton serve` never does.
const agentHeader = "X-Baton-Bench-Agent"

// agentName is the name of the i-th simulated agent.
func agentName(i int) string { return fmt.Sprintf("agent-%02d", i) }

// Run seeds a fresh database, runs the agents, measures the floors if
// asked, and reports.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Agents <= 0 {
		o.Agents = 64
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.Rate > 0 && o.Calls > 0 {
		// A paced run of N calls is a run of N/rate seconds.
		o.Duration, o.Calls = time.Duration(float64(o.Calls)/o.Rate*float64(time.Second)), 0
	}
	if o.Duration <= 0 && o.Calls <= 0 {
		o.Duration = 10 * time.Second
	}
	switch {
	case o.Replicas > 1 && o.Postgres == "":
		return nil, errors.New("replicas share one database: they need Postgres")
	case o.Replicas > 1 && o.Stdio:
		return nil, errors.New("replicas are HTTP servers: they do not run with Stdio")
	case o.Split && o.Stdio:
		return nil, errors.New("split pins one server process: stdio runs one per agent")
	}
	if o.Binary == "" && (o.Stdio || o.Split) {
		bin, err := os.Executable()
		if err != nil {
			return nil, err
		}
		o.Binary = bin
	}
	cpus := cpuPlan{server: -1, client: -1}
	if o.Split {
		s, c, err := splitCPUs()
		if err != nil {
			return nil, err
		}
		cpus = cpuPlan{server: s, client: c}
		restore, err := pinProcess(c)
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	var rep *Report
	var err error
	if o.Stdio {
		rep, err = runStdio(ctx, o)
	} else {
		rep, err = runHTTP(ctx, o, KindBaton, cpus)
	}
	if err != nil {
		return nil, err
	}
	reg := tools.Registry()
	for name, s := range rep.Tools {
		if t, ok := reg.Get(name); ok && !t.Spec().Annotations.ReadOnly {
			rep.Writes += s.Calls
		}
	}
	if o.Floors && !o.Stdio && ctx.Err() == nil {
		// The floors run for the run's duration; a run with a call budget
		// may end sooner, and then they run as long as it did (never
		// shorter than a tenth of a second).
		d := o.Duration
		if o.Calls > 0 || d <= 0 {
			d = max(rep.Elapsed, 100*time.Millisecond)
		}
		fo := Options{Agents: o.Agents, Duration: d, Binary: o.Binary, ReadOnly: o.ReadOnly}
		noop, err := runHTTP(ctx, fo, KindNoop, cpus)
		if err != nil {
			return nil, fmt.Errorf("the no-op floor: %w", err)
		}
		rep.Floors = &Floors{NoOp: &NoOpFloor{Sessions: o.Agents, Elapsed: noop.Elapsed, Calls: noop.Calls, Errors: noop.Errors, CPU: noop.CPU}}
		if s := noop.Tools[noopTool]; s != nil {
			rep.Floors.NoOp.FirstError = s.FirstError
		}
		if rep.Floors.Replay, err = measureReplayFloor(ctx, fo, rep, cpus); err != nil {
			return nil, fmt.Errorf("the replay floor: %w", err)
		}
		// The write floor is the run's store's. In a split run it runs
		// here, pinned to the clients' one CPU, as the server ran on its
		// one CPU (PostgreSQL's backends run where they always do).
		if o.Postgres == "" {
			if rep.Floors.SQLite, err = measureSQLiteFloor(ctx, o.Agents, d); err != nil {
				return nil, fmt.Errorf("the SQLite floor: %w", err)
			}
		} else if rep.Floors.Postgres, err = measurePostgresFloor(ctx, o.Postgres, o.Agents, d); err != nil {
			return nil, fmt.Errorf("the PostgreSQL floor: %w", err)
		}
	}
	return rep, nil
}

// cpuPlan is where a split run's two sides run; -1: anywhere.
type cpuPlan struct{ server, client int }

// runStdio runs the agents each on its own `baton mcp` process.
func runStdio(ctx context.Context, o Options) (*Report, error) {
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "baton-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	dbPath := filepath.Join(dir, "bench.db")
	var store baton.Store
	if o.Postgres != "" {
		schema := scratchSchema("bench_")
		ps, err := postgres.Open(ctx, o.Postgres, postgres.Options{Schema: schema, MaxConns: 32})
		if err != nil {
			return nil, err
		}
		defer postgres.DropSchema(context.WithoutCancel(ctx), o.Postgres, schema)
		if dbPath, err = postgres.SchemaURL(o.Postgres, schema); err != nil {
			ps.Close()
			return nil, err
		}
		store = ps
	} else {
		ss, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
		if err != nil {
			return nil, err
		}
		store = ss
	}
	err := seed(ctx, store, o.Agents)
	store.Close() // the agents' processes own the database now
	if err != nil {
		return nil, err
	}
	connect := func(ctx context.Context, _ int, agent string) (*mcp.ClientSession, error) {
		// A benchmark measures the server, not the per-agent rate limit.
		cmd := exec.Command(o.Binary, "--db", dbPath, "mcp", "--preset", "full", "--agent", agent, "--project", Project, "--rate-limit", "0")
		return client().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	}
	// The servers are the agents' child processes: this process's CPU
	// time would leave them out, so none is reported.
	return drive(ctx, o, mixOf(o), connect, nil)
}

// runHTTP starts a server of kind (in this process, or pinned in its own
// with a split plan) and runs the agents against it over Streamable HTTP.
func runHTTP(ctx context.Context, o Options, kind string, cpus cpuPlan) (rep *Report, err error) {
	spec := ServeSpec{Kind: kind, Agents: o.Agents, Postgres: o.Postgres, Replicas: o.Replicas, Dashboard: o.Dashboard > 0, Dir: o.Dir,
		CPU: cpus.server, Replay: o.replay}
	var eps endpoints
	meter := &cpuMeter{}
	if cpus.server >= 0 {
		ch, err := startChild(ctx, o.Binary, spec)
		if err != nil {
			return nil, err
		}
		defer ch.stop()
		eps, meter.serverPID = ch.endpoints, ch.pid()
	} else {
		srv, err := startServer(ctx, spec)
		if err != nil {
			return nil, err
		}
		defer srv.close()
		eps = srv.endpoints
	}
	if o.Dashboard > 0 {
		path := o.DashboardPath
		if path == "" {
			path = "/"
		}
		stop, err := openPages(ctx, eps.Base[0], path, o.Dashboard)
		if err != nil {
			return nil, err
		}
		defer func() {
			if rep != nil {
				rep.Dashboard = stop()
			}
		}()
	}
	var transports []*http.Transport
	defer func() {
		for _, t := range transports {
			t.CloseIdleConnections()
		}
	}()
	connect := func(ctx context.Context, i int, agent string) (*mcp.ClientSession, error) {
		// Each agent keeps its own connections, as a real agent (a process
		// of its own) does: a shared pool's two idle connections per host
		// would make most calls dial anew.
		t := http.DefaultTransport.(*http.Transport).Clone()
		transports = append(transports, t)
		hc := &http.Client{Transport: headerTransport{agent: agent, next: t}}
		return client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: eps.MCP[i%len(eps.MCP)], HTTPClient: hc}, nil)
	}
	mix := mixOf(o)
	if kind == KindNoop {
		mix = mixNoop
	}
	rep, err = drive(ctx, o, mix, connect, meter)
	if rep != nil {
		rep.Replicas = len(eps.MCP)
		if rep.CPU != nil && rep.CPU.Split {
			rep.CPU.ServerCPU, rep.CPU.ClientCPU = cpus.server, cpus.client
		}
	}
	return rep, err
}

type headerTransport struct {
	agent string
	next  http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(agentHeader, h.agent)
	return h.next.RoundTrip(r)
}

func client() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "baton-bench", Version: "1"}, nil)
}

// seed creates the project, ready work for every agent and a corpus of
// learnings to search.
func seed(ctx context.Context, s baton.Store, agents int) error {
	return s.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: Project, Prefix: "B"}); err != nil {
			return err
		}
		words := []string{"sqlite", "retry", "migration", "cache", "lease", "timeout", "schema", "router", "fixture", "token"}
		for i := range agents * itemsPerAgent {
			it := &baton.Item{Project: Project, Title: fmt.Sprintf("work item %d", i), Status: baton.StatusTodo,
				Priority: baton.Priority(i % 5), CreatedBy: "bench"}
			if err := tx.CreateItem(ctx, it); err != nil {
				return err
			}
			if i < 200 {
				l := &baton.Learning{ItemID: it.ID, Pattern: fmt.Sprintf("%s handling needs care: %s and %s interact in item %d of the benchmark corpus",
					words[i%10], words[(i+3)%10], words[(i+7)%10], i), QualityScore: 50, CreatedBy: "bench"}
				if err := tx.AddLearning(ctx, l); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Report is what a run measured.
type Report struct {
	Agents   int
	Replicas int // HTTP servers the agents were dealt out to
	Elapsed  time.Duration
	Calls    int
	Errors   int
	Writes   int // calls of tools that write (not annotated read-only)
	Tools    map[string]*Stats
	// All are the latencies of every call, whatever the tool.
	All *Stats
	// Rate is what a paced run offered and achieved (nil when closed-loop).
	Rate *RateStats
	// CPU is the CPU time the run spent (nil where it cannot be read).
	CPU *CPU
	// Floors are the floors measured after the run (nil without).
	Floors *Floors
	// Dashboard is what the open dashboard pages did (nil without).
	Dashboard *DashboardStats

	// results are the last successful result of each tool, what the
	// replay floor answers with.
	results map[string]*mcp.CallToolResult
}

// CPU is the CPU time spent over a run's measured window.
type CPU struct {
	// Split: the server ran in a process of its own on ServerCPU and the
	// clients in this one on ClientCPU. Otherwise Client is the whole
	// process's time, server and clients together, and Server is zero.
	Split                bool
	ServerCPU, ClientCPU int
	Server, Client       time.Duration
	Calls                int // calls in the window
}

// PerCall divides d by the calls.
func (c *CPU) PerCall(d time.Duration) time.Duration {
	if c.Calls == 0 {
		return 0
	}
	return d / time.Duration(c.Calls)
}

// Stats are one tool's latencies.
type Stats struct {
	Calls, Errors int
	latencies     []time.Duration
	FirstError    string
}

// Percentile returns the p-th percentile latency (0 < p <= 100).
func (s *Stats) Percentile(p float64) time.Duration {
	if len(s.latencies) == 0 {
		return 0
	}
	i := int(float64(len(s.latencies))*p/100+0.5) - 1
	return s.latencies[min(max(i, 0), len(s.latencies)-1)]
}

// Throughput is calls per second.
func (r *Report) Throughput() float64 { return rate(r.Calls, r.Elapsed) }

// WriteThroughput is calls of writing tools per second.
func (r *Report) WriteThroughput() float64 { return rate(r.Writes, r.Elapsed) }

// Print writes the report: the headline, the latency table, then CPU,
// pacing, floors and dashboard, a line each.
func (r *Report) Print(w io.Writer) {
	servers := ""
	if r.Replicas > 1 {
		servers = fmt.Sprintf(" on %d servers", r.Replicas)
	}
	fmt.Fprintf(w, "%d agents%s, %d calls in %s: %.0f calls/s (%.0f writes/s), %d errors\n", r.Agents, servers, r.Calls,
		r.Elapsed.Round(time.Millisecond), r.Throughput(), r.WriteThroughput(), r.Errors)
	if p := r.Rate; p != nil {
		fmt.Fprintf(w, "paced: %.0f calls/s offered, %.0f achieved; %d of %d late to start by >1ms, %d not started by the end; latency counts from each call's intended start\n",
			p.Offered, p.Achieved(), p.Late, p.Issued, p.Unsent)
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TOOL\tCALLS\tERRORS\tP50\tP90\tP99\tMAX\t")
	names := make([]string, 0, len(r.Tools))
	for n := range r.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	row := func(n string, s *Stats) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", n, s.Calls, s.Errors, ms(s.Percentile(50)), ms(s.Percentile(90)),
			ms(s.Percentile(99)), ms(s.Percentile(100)))
	}
	for _, n := range names {
		row(n, r.Tools[n])
	}
	if r.All != nil && len(names) > 1 {
		row("(all)", r.All)
	}
	tw.Flush()
	for _, n := range names {
		if e := r.Tools[n].FirstError; e != "" {
			fmt.Fprintf(w, "first error of %s: %s\n", n, e)
		}
	}
	if c := r.CPU; c != nil {
		fmt.Fprintf(w, "cpu per call: %s\n", c.describe())
	}
	if f := r.Floors; f != nil {
		for _, cf := range []struct {
			name, what string
			f          *NoOpFloor
		}{{"no-op", "go-sdk no-op", f.NoOp}, {"replay", "go-sdk answering baton's results", f.Replay}} {
			n := cf.f
			if n == nil {
				continue
			}
			fmt.Fprintf(w, "floor, %s: %.0f calls/s (%d sessions, %s, %d errors); baton's calls/s %.1f%% of it", cf.what, n.Throughput(), n.Sessions,
				n.Elapsed.Round(time.Millisecond), n.Errors, 100*ratio(r.Throughput(), n.Throughput()))
			if n.CPU != nil {
				fmt.Fprintf(w, "; cpu per call %s", n.CPU.describe())
			}
			fmt.Fprintln(w)
			if n.FirstError != "" {
				fmt.Fprintf(w, "first error of the %s floor: %s\n", cf.name, n.FirstError)
			}
		}
		for _, wf := range []struct {
			name string
			f    *WriteFloor
		}{{"SQLite", f.SQLite}, {"PostgreSQL", f.Postgres}} {
			if s := wf.f; s != nil {
				fmt.Fprintf(w, "floor, %s write: %.0f tx/s (%d goroutines, one writer at a time, %s, %d errors); baton's writes/s %.1f%% of it\n", wf.name,
					s.Throughput(), s.Goroutines, s.Elapsed.Round(time.Millisecond), s.Errors, 100*ratio(r.WriteThroughput(), s.Throughput()))
				if s.FirstError != "" {
					fmt.Fprintf(w, "first error of the %s floor: %s\n", wf.name, s.FirstError)
				}
			}
		}
	}
	if d := r.Dashboard; d != nil {
		fmt.Fprintf(w, "dashboard: %d pages on %s heard %d changes and refreshed %d times (%.1f/s each), p50 %s p99 %s, %d errors\n",
			d.Pages, d.Path, d.Changes, d.Refreshes, float64(d.Refreshes)/float64(max(d.Pages, 1))/r.Elapsed.Seconds(),
			ms(d.Percentile(50)), ms(d.Percentile(99)), d.Errors)
		if d.FirstErr != "" {
			fmt.Fprintf(w, "first dashboard error: %s\n", d.FirstErr)
		}
	}
}

// describe says what c spent per call, in a few words.
func (c *CPU) describe() string {
	if c.Split {
		return fmt.Sprintf("server %s (cpu %d), clients %s (cpu %d)", us(c.PerCall(c.Server)), c.ServerCPU, us(c.PerCall(c.Client)), c.ClientCPU)
	}
	return fmt.Sprintf("%s (server and clients in one process)", us(c.PerCall(c.Client)))
}

// ratio is a/b, or 0 when b is.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

func us(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d.Nanoseconds())/1000) }

// cpuMeter reads the CPU time of a run's measured window: this process's,
// and the server process's when it has one of its own.
type cpuMeter struct {
	serverPID      int
	server, client time.Duration
	ok             bool
	err            error
}

func (m *cpuMeter) begin() {
	m.client, m.ok = selfCPU()
	if m.serverPID > 0 {
		m.server, m.err = processCPU(m.serverPID)
	}
}

// end returns the window's CPU, or nil when it could not be read.
func (m *cpuMeter) end(calls int) *CPU {
	c, ok := selfCPU()
	if !ok || !m.ok || m.err != nil {
		return nil
	}
	cpu := &CPU{Client: c - m.client, Calls: calls}
	if m.serverPID > 0 {
		s, err := processCPU(m.serverPID)
		if err != nil {
			return nil
		}
		cpu.Split, cpu.Server = true, s-m.server
	}
	return cpu
}

// mix is the calls the agents make.
type mix int

const (
	mixWork mix = iota // claim, read, record, talk, search, hand on
	mixRead            // read-only tools
	mixNoop            // the no-op floor's one tool
)

// tools are the tools a mix's agents call (set_status, as each reports
// in, included): what the replay floor's server must know.
func (m mix) tools() []string {
	switch m {
	case mixRead:
		return []string{"set_status", "get_issue", "get_issue_status", "task_list", "search_learnings", "list_threads", "list_agents"}
	case mixNoop:
		return []string{noopTool}
	}
	return []string{"set_status", "claim_next", "get_issue", "add_finding", "send_message", "read_messages", "search_learnings", "update_issue_status"}
}

// steps is how many steps make one turn of the mix (see agent.step).
func (m mix) steps() int {
	switch m {
	case mixRead:
		return readSteps
	case mixNoop:
		return 1
	}
	return workSteps
}

func mixOf(o Options) mix {
	if o.ReadOnly {
		return mixRead
	}
	return mixWork
}

// drive runs the agents until the time or the call budget is spent,
// closed-loop or paced (o.Rate). meter, when set, reads the CPU time of
// the measured window.
func drive(ctx context.Context, o Options, mx mix, connect func(context.Context, int, string) (*mcp.ClientSession, error), meter *cpuMeter) (*Report, error) {
	var budget chan struct{}
	if o.Calls > 0 {
		budget = make(chan struct{}, o.Calls)
		for range o.Calls {
			budget <- struct{}{}
		}
	}
	var mu sync.Mutex
	rep := &Report{Agents: o.Agents, Tools: map[string]*Stats{}, All: &Stats{}, results: map[string]*mcp.CallToolResult{}}
	record := func(tool string, d time.Duration, err string, res *mcp.CallToolResult) {
		mu.Lock()
		defer mu.Unlock()
		if res != nil {
			rep.results[tool] = res
		}
		s := rep.Tools[tool]
		if s == nil {
			s = &Stats{}
			rep.Tools[tool] = s
		}
		s.Calls++
		rep.Calls++
		s.latencies = append(s.latencies, d)
		rep.All.Calls++
		rep.All.latencies = append(rep.All.latencies, d)
		if err != "" {
			s.Errors++
			rep.Errors++
			rep.All.Errors++
			if s.FirstError == "" {
				s.FirstError = err
			}
		}
	}
	sessions := make([]*mcp.ClientSession, o.Agents)
	for i := range sessions {
		cs, err := connect(ctx, i, agentName(i))
		if err != nil {
			return nil, fmt.Errorf("connecting agent %d: %w", i, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	agents := make([]*agent, len(sessions))
	for i, cs := range sessions {
		agents[i] = &agent{cs: cs, name: agentName(i), peer: agentName((i + 1) % o.Agents), record: record,
			mix: mx, items: o.Agents * itemsPerAgent}
	}
	if mx != mixNoop {
		// Every agent reports in before the mix starts, so each is known
		// to the others (messages to unknown agents are refused).
		var ready sync.WaitGroup
		for _, a := range agents {
			ready.Add(1)
			go func() { defer ready.Done(); a.call(ctx, "set_status", map[string]any{"status": "working"}) }()
		}
		ready.Wait()
		// Agent i begins its turn of the mix at step i (modulo the turn),
		// its earlier steps made now, as set-up, and not counted. Agents
		// that all began at the first step would keep calling the same
		// tool at the same moment: in a paced run each calls once every
		// agents/rate seconds, so each step of the mix, the heaviest
		// included, came as a burst of one call per agent. Real agents are
		// not in step with each other.
		for i, a := range agents {
			a.first = i % mx.steps()
			ready.Add(1)
			go func() {
				defer ready.Done()
				record := a.record
				a.record = func(string, time.Duration, string, *mcp.CallToolResult) {}
				for n := range a.first {
					a.step(ctx, n)
				}
				a.record = record
			}()
		}
		ready.Wait()
	}
	if meter != nil {
		meter.begin()
	}
	// The run's time counts from here: connecting and reporting in are
	// set-up, not load.
	start := time.Now()
	callsBefore := rep.Calls
	var deadline time.Time
	if o.Duration > 0 {
		deadline = start.Add(o.Duration)
	}
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if o.Rate > 0 {
				a.paced(ctx, i, len(agents), o.Rate, start, deadline)
				return
			}
			for n := a.first; ; n++ {
				if !deadline.IsZero() && time.Now().After(deadline) || ctx.Err() != nil {
					return
				}
				if budget != nil {
					select {
					case <-budget:
					default:
						return
					}
				}
				a.step(ctx, n)
			}
		}()
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	if meter != nil {
		rep.CPU = meter.end(rep.Calls - callsBefore)
	}
	if o.Rate > 0 {
		rep.Rate = &RateStats{Offered: o.Rate, Elapsed: rep.Elapsed}
		for _, a := range agents {
			rep.Rate.Issued += a.issued
			rep.Rate.Late += a.late
			rep.Rate.Unsent += a.unsent
		}
	}
	for _, s := range rep.Tools {
		slices.Sort(s.latencies)
	}
	slices.Sort(rep.All.latencies)
	// A run stopped early (ctx) still reports what it measured.
	return rep, nil
}

// agent is one simulated agent working through the mix.
type agent struct {
	cs         *mcp.ClientSession
	name, peer string
	item       string
	// record counts a call: its tool, latency, error ("" for none) and,
	// for the replay floor, its result (nil: not one to replay).
	record func(string, time.Duration, string, *mcp.CallToolResult)
	mix    mix
	items  int // seeded items, B-1 to B-items
	first  int // the step of the mix its run begins at

	// due, in a paced run, is when the next call should have started; its
	// latency counts from then.
	due                  time.Time
	issued, late, unsent int
}

// The steps of one turn of each mix.
const (
	workSteps = 7
	readSteps = 6
)

// itemsPerAgent is how many work items seed makes per agent.
const itemsPerAgent = 50

func (a *agent) call(ctx context.Context, name string, args map[string]any) map[string]any {
	start := time.Now()
	from := start
	if !a.due.IsZero() {
		from, a.due = a.due, time.Time{}
		a.issued++
		if start.Sub(from) > lateAfter {
			a.late++
		}
	}
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	d := time.Since(from)
	switch {
	case err != nil:
		a.record(name, d, err.Error(), nil)
		return nil
	case res.IsError:
		b, _ := json.Marshal(res.StructuredContent)
		a.record(name, d, string(b), nil)
		return nil
	}
	m, _ := res.StructuredContent.(map[string]any)
	// A claim that found no work is not replayed: agents given it would
	// skip the steps about their work item, and the mix would change.
	if name == "claim_next" && m["claimed"] != true {
		res = nil
	}
	a.record(name, d, "", res)
	return m
}

// step is one step of the mix; it reports whether it made a call (a step
// about the agent's work item makes none while the agent holds none).
func (a *agent) step(ctx context.Context, n int) bool {
	switch a.mix {
	case mixRead:
		a.read(ctx, n)
		return true
	case mixNoop:
		a.call(ctx, noopTool, map[string]any{})
		return true
	}
	switch n % workSteps {
	case 0:
		out := a.call(ctx, "claim_next", map[string]any{"project": Project})
		a.item = ""
		if out != nil && out["claimed"] == true {
			a.item, _ = out["item_id"].(string)
		}
	case 1:
		if a.item == "" {
			return false
		}
		a.call(ctx, "get_issue", map[string]any{"issue_id": a.item})
	case 2:
		if a.item == "" {
			return false
		}
		a.call(ctx, "add_finding", map[string]any{"issue_id": a.item, "category": "code_pattern", "summary": "benchmark finding"})
	case 3:
		a.call(ctx, "send_message", map[string]any{"to": a.peer, "body": "status update from " + a.name, "threadId": "bench"})
	case 4:
		a.call(ctx, "read_messages", map[string]any{"agentId": a.name, "limit": 10})
	case 5:
		a.call(ctx, "search_learnings", map[string]any{"query": []string{"retry", "migration", "lease", "cache"}[n%4], "limit": 10})
	case 6:
		if a.item == "" {
			return false
		}
		a.call(ctx, "update_issue_status", map[string]any{"issue_id": a.item, "status": "review", "reason": "done in the benchmark"})
	}
	return true
}

// read is one call of the read-only mix.
func (a *agent) read(ctx context.Context, n int) {
	id := fmt.Sprintf("B-%d", 1+(n*7919+len(a.name)*31)%a.items)
	switch n % readSteps {
	case 0:
		a.call(ctx, "get_issue", map[string]any{"issue_id": id})
	case 1:
		a.call(ctx, "get_issue_status", map[string]any{"issue_id": id})
	case 2:
		a.call(ctx, "task_list", map[string]any{"project": Project, "limit": 10})
	case 3:
		a.call(ctx, "search_learnings", map[string]any{"query": []string{"retry", "migration", "lease", "cache"}[n%4], "limit": 10})
	case 4:
		a.call(ctx, "list_threads", map[string]any{})
	case 5:
		a.call(ctx, "list_agents", map[string]any{})
	}
}
