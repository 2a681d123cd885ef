// Package bench is baton's load harness: N simulated agents, each with its
// own MCP session over Streamable HTTP (or its own `baton mcp` process over
// stdio), run a realistic mix of calls against a fresh database on
// loopback, for a fixed time or number of calls, and stop by themselves.
package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
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
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
	"github.com/baton-dev/baton/web"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a run.
type Options struct {
	Agents   int           // simulated agents (default 64)
	Duration time.Duration // how long to run (default 10 s) ...
	Calls    int           // ... or stop after this many calls in all
	Stdio    bool          // one `baton mcp` process per agent instead of HTTP sessions
	Binary   string        // the baton binary for stdio mode (default: this executable)
	Dir      string        // where the database goes (default: a temporary directory)
	// Postgres, a postgres:// URL, runs on a fresh schema of that database
	// (dropped afterwards) instead of a SQLite file.
	Postgres string
	// ReadOnly runs a mix of read-only tools only (get_issue,
	// get_issue_status, task_list, search_learnings, list_threads,
	// list_agents), the reads that need no writer.
	ReadOnly bool
	// Dashboard keeps this many dashboard pages open at DashboardPath
	// (default "/") during the run, refreshing live as a browser does
	// (dashboard.go); HTTP mode only.
	Dashboard     int
	DashboardPath string
}

// Project is the project every run works in.
const Project = "bench"

// agentHeader names the simulated agent of an HTTP request. Only the
// harness's own in-process server reads it; `baton serve` never does.
const agentHeader = "X-Baton-Bench-Agent"

// Run seeds a fresh database, runs the agents and reports.
func Run(ctx context.Context, o Options) (rep *Report, err error) {
	if o.Agents <= 0 {
		o.Agents = 64
	}
	if o.Duration <= 0 && o.Calls <= 0 {
		o.Duration = 10 * time.Second
	}
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
		var b [6]byte
		_, _ = rand.Read(b[:])
		schema := "bench_" + hex.EncodeToString(b[:])
		ps, err := postgres.Open(ctx, o.Postgres, postgres.Options{Schema: schema, MaxConns: 32})
		if err != nil {
			return nil, err
		}
		defer postgres.DropSchema(context.WithoutCancel(ctx), o.Postgres, schema)
		if dbPath, err = postgres.SchemaURL(o.Postgres, schema); err != nil {
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
	defer store.Close()
	if err := seed(ctx, store, o.Agents); err != nil {
		return nil, err
	}
	reg := tools.Registry()
	env := &tool.Env{Store: store, Registry: reg, Bus: events.NewBus(), DataDir: dir,
		Server: tool.ServerInfo{Version: "bench", Mode: "FULL", Started: time.Now()}}

	var connect func(ctx context.Context, agent string) (*mcp.ClientSession, error)
	if o.Stdio {
		bin := o.Binary
		if bin == "" {
			var err error
			if bin, err = os.Executable(); err != nil {
				return nil, err
			}
		}
		store.Close() // the agents' processes own the file now
		connect = func(ctx context.Context, agent string) (*mcp.ClientSession, error) {
			// A benchmark measures the server, not the per-agent rate limit.
			cmd := exec.Command(bin, "--db", dbPath, "mcp", "--preset", "full", "--agent", agent, "--project", Project, "--rate-limit", "0")
			return client().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		}
	} else {
		f := mcpserver.NewFactory(reg, env, "bench")
		opts := mcpserver.HTTPOptions{Principal: func(r *http.Request) baton.Principal {
			return baton.Principal{Agent: r.Header.Get(agentHeader), Project: Project, Source: baton.SourceHTTP, Preset: tool.PresetFull}
		}}
		if o.Dashboard > 0 {
			dash := web.New(web.Options{Registry: reg, Env: env, Project: Project, Insecure: true})
			defer dash.Close()
			opts.Dashboard = dash
		}
		h := f.Handler(opts)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		defer srv.Close()
		base := "http://" + ln.Addr().String()
		url := base + "/mcp"
		if o.Dashboard > 0 {
			path := o.DashboardPath
			if path == "" {
				path = "/"
			}
			stop, err := openPages(ctx, base, path, o.Dashboard)
			if err != nil {
				return nil, err
			}
			defer func() {
				if rep != nil {
					rep.Dashboard = stop()
				}
			}()
		}
		connect = func(ctx context.Context, agent string) (*mcp.ClientSession, error) {
			hc := &http.Client{Transport: headerTransport{agent: agent, next: http.DefaultTransport}}
			return client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		}
	}
	return drive(ctx, o, connect)
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
	Agents  int
	Elapsed time.Duration
	Calls   int
	Errors  int
	Tools   map[string]*Stats
	// Dashboard is what the open dashboard pages did (nil without).
	Dashboard *DashboardStats
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
func (r *Report) Throughput() float64 { return float64(r.Calls) / r.Elapsed.Seconds() }

// Print writes the report as a table.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%d agents, %d calls in %s: %.0f calls/s, %d errors\n", r.Agents, r.Calls, r.Elapsed.Round(time.Millisecond),
		r.Throughput(), r.Errors)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TOOL\tCALLS\tERRORS\tP50\tP90\tP99\tMAX\t")
	names := make([]string, 0, len(r.Tools))
	for n := range r.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := r.Tools[n]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", n, s.Calls, s.Errors, ms(s.Percentile(50)), ms(s.Percentile(90)),
			ms(s.Percentile(99)), ms(s.Percentile(100)))
	}
	tw.Flush()
	for _, n := range names {
		if e := r.Tools[n].FirstError; e != "" {
			fmt.Fprintf(w, "first error of %s: %s\n", n, e)
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

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// drive runs the agents until the time or the call budget is spent.
func drive(ctx context.Context, o Options, connect func(context.Context, string) (*mcp.ClientSession, error)) (*Report, error) {
	var budget chan struct{}
	if o.Calls > 0 {
		budget = make(chan struct{}, o.Calls)
		for range o.Calls {
			budget <- struct{}{}
		}
	}
	var mu sync.Mutex
	rep := &Report{Agents: o.Agents, Tools: map[string]*Stats{}}
	record := func(tool string, d time.Duration, err string) {
		mu.Lock()
		defer mu.Unlock()
		s := rep.Tools[tool]
		if s == nil {
			s = &Stats{}
			rep.Tools[tool] = s
		}
		s.Calls++
		rep.Calls++
		s.latencies = append(s.latencies, d)
		if err != "" {
			s.Errors++
			rep.Errors++
			if s.FirstError == "" {
				s.FirstError = err
			}
		}
	}
	sessions := make([]*mcp.ClientSession, o.Agents)
	for i := range sessions {
		cs, err := connect(ctx, fmt.Sprintf("agent-%02d", i))
		if err != nil {
			return nil, fmt.Errorf("connecting agent %d: %w", i, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	agents := make([]*agent, len(sessions))
	for i, cs := range sessions {
		agents[i] = &agent{cs: cs, name: fmt.Sprintf("agent-%02d", i), peer: fmt.Sprintf("agent-%02d", (i+1)%o.Agents), record: record,
			readOnly: o.ReadOnly, items: o.Agents * itemsPerAgent}
	}
	// Every agent reports in before the mix starts, so each is known to
	// the others (messages to unknown agents are refused).
	var ready sync.WaitGroup
	for _, a := range agents {
		ready.Add(1)
		go func() { defer ready.Done(); a.call(ctx, "set_status", map[string]any{"status": "working"}) }()
	}
	ready.Wait()
	// The run's time counts from here: connecting and reporting in are
	// set-up, not load.
	start := time.Now()
	var deadline time.Time
	if o.Duration > 0 {
		deadline = start.Add(o.Duration)
	}
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
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
	for _, s := range rep.Tools {
		slices.Sort(s.latencies)
	}
	return rep, nil
}

// agent is one simulated agent working through the mix.
type agent struct {
	cs         *mcp.ClientSession
	name, peer string
	item       string
	record     func(string, time.Duration, string)
	readOnly   bool
	items      int // seeded items, B-1 to B-items
}

// itemsPerAgent is how many work items seed makes per agent.
const itemsPerAgent = 50

func (a *agent) call(ctx context.Context, name string, args map[string]any) map[string]any {
	start := time.Now()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	d := time.Since(start)
	switch {
	case err != nil:
		a.record(name, d, err.Error())
		return nil
	case res.IsError:
		b, _ := json.Marshal(res.StructuredContent)
		a.record(name, d, string(b))
		return nil
	}
	a.record(name, d, "")
	m, _ := res.StructuredContent.(map[string]any)
	return m
}

// step is one call of the mix: claim work, read it, record a finding, talk,
// search, hand the work on.
func (a *agent) step(ctx context.Context, n int) {
	if a.readOnly {
		a.read(ctx, n)
		return
	}
	switch n % 7 {
	case 0:
		out := a.call(ctx, "claim_next", map[string]any{"project": Project})
		a.item = ""
		if out != nil && out["claimed"] == true {
			a.item, _ = out["item_id"].(string)
		}
	case 1:
		if a.item != "" {
			a.call(ctx, "get_issue", map[string]any{"issue_id": a.item})
		}
	case 2:
		if a.item != "" {
			a.call(ctx, "add_finding", map[string]any{"issue_id": a.item, "category": "code_pattern", "summary": "benchmark finding"})
		}
	case 3:
		a.call(ctx, "send_message", map[string]any{"to": a.peer, "body": "status update from " + a.name, "threadId": "bench"})
	case 4:
		a.call(ctx, "read_messages", map[string]any{"agentId": a.name, "limit": 10})
	case 5:
		a.call(ctx, "search_learnings", map[string]any{"query": []string{"retry", "migration", "lease", "cache"}[n%4], "limit": 10})
	case 6:
		if a.item != "" {
			a.call(ctx, "update_issue_status", map[string]any{"issue_id": a.item, "status": "review", "reason": "done in the benchmark"})
		}
	}
}

// read is one call of the read-only mix.
func (a *agent) read(ctx context.Context, n int) {
	id := fmt.Sprintf("B-%d", 1+(n*7919+len(a.name)*31)%a.items)
	switch n % 6 {
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
