package bench_test

import (
	"bytes"
	"context"
	"database/sql"
	_ "github.com/jackc/pgx/v5/stdlib"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton/bench"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tools"
)

// asBaton, set in the environment, makes this test binary run as the
// baton command: the harness re-executes its binary (--split's server
// process, --cold-start's servers), and under `go test` that binary is
// this one.
const asBaton = "BATON_BENCH_TEST_AS_BATON"

func TestMain(m *testing.M) {
	if os.Getenv(asBaton) == "1" {
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
		os.Exit(app.Run(context.Background(), os.Args[1:]))
	}
	os.Exit(m.Run())
}

// thisBinary is the test binary, to be re-executed as baton.
func thisBinary(t *testing.T) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asBaton, "1")
	return bin
}

// runFor is how long the tests' timed runs last. A closed loop keeps
// every core busy for as long as it runs, so it is short: long enough for
// every agent's first calls on a loaded machine, under -race too.
const runFor = 300 * time.Millisecond

// TestSmoke runs the harness briefly over HTTP and checks that it
// reports, without errors. It asserts no timing: how many calls fit in the
// run depends on the machine.
func TestSmoke(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 4, Duration: runFor, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Calls == 0 || rep.Errors != 0 || rep.Tools["claim_next"] == nil {
		t.Fatalf("report:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "calls/s") || !strings.Contains(out.String(), "P99") {
		t.Fatalf("report lacks throughput or percentiles:\n%s", out.String())
	}
}

// TestMix: with a call budget (not a time) every tool of the mix is called,
// however slow the machine.
func TestMix(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 1, Calls: 14, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Errors != 0 {
		t.Fatalf("report:\n%s", out.String())
	}
	for _, tool := range []string{"claim_next", "get_issue", "add_finding", "send_message", "read_messages", "search_learnings", "update_issue_status"} {
		if rep.Tools[tool] == nil || rep.Tools[tool].Calls == 0 || !strings.Contains(out.String(), tool) {
			t.Errorf("%s missing from the report:\n%s", tool, out.String())
		}
	}
}

// TestAgentsBeginAtDifferentSteps: agent i's run begins at step i of the
// mix, so in a paced run where each of seven agents makes one call, no two
// call the same tool; and the steps made beforehand, as set-up (agent 1's
// claim before its get_issue), are not counted.
func TestAgentsBeginAtDifferentSteps(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 7, Calls: 7, Rate: 14, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	// A call still due at the end of the run (a slow machine) goes unsent.
	if rep.Errors != 0 || rep.Rate == nil || rep.Rate.Issued+rep.Rate.Unsent != 7 || rep.Rate.Issued < 6 {
		t.Fatalf("report:\n%s", out.String())
	}
	called := 0
	for _, tool := range []string{"claim_next", "get_issue", "add_finding", "send_message", "read_messages", "search_learnings", "update_issue_status"} {
		if s := rep.Tools[tool]; s != nil {
			called += s.Calls
			if s.Calls != 1 {
				t.Errorf("%s: %d calls, want one agent's first:\n%s", tool, s.Calls, out.String())
			}
		}
	}
	if called != rep.Rate.Issued {
		t.Errorf("%d calls of the mix, %d issued:\n%s", called, rep.Rate.Issued, out.String())
	}
}

// TestCallBudget: with --calls the run stops by itself after that many.
func TestCallBudget(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 3, Calls: 30, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// set_status opens each agent's work; the mix itself stops at 30 steps,
	// some of which are skipped when an agent holds no item.
	if rep.Calls > 30+3 || rep.Errors != 0 {
		t.Fatalf("%d calls, %d errors", rep.Calls, rep.Errors)
	}
}

// TestReadOnlyMix: the read-only mix calls each of its tools and nothing
// that writes (set_status, which opens each agent's work, aside).
func TestReadOnlyMix(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 2, Calls: 24, ReadOnly: true, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Errors != 0 {
		t.Fatalf("report:\n%s", out.String())
	}
	reads := []string{"get_issue", "get_issue_status", "task_list", "search_learnings", "list_threads", "list_agents"}
	for _, tool := range reads {
		if rep.Tools[tool] == nil || rep.Tools[tool].Calls == 0 {
			t.Errorf("%s missing from the report:\n%s", tool, out.String())
		}
	}
	for tool := range rep.Tools {
		if tool != "set_status" && !slices.Contains(reads, tool) {
			t.Errorf("the read-only mix called %s", tool)
		}
	}
}

// TestFloors: a run with floors measures the floors with the run's
// agents and duration, without errors, and prints baton's figures as
// fractions of them; the replay floor answers the same mix, read-only
// too, with the results baton gave.
func TestFloors(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		rep, err := bench.Run(context.Background(), bench.Options{Agents: 3, Duration: runFor, Floors: true, ReadOnly: readOnly})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rep.Print(&out)
		f := rep.Floors
		if rep.Errors != 0 || rep.Writes == 0 || rep.Writes >= rep.Calls || f == nil || f.NoOp == nil || f.Replay == nil || f.SQLite == nil {
			t.Fatalf("report (read-only %v):\n%s", readOnly, out.String())
		}
		for name, n := range map[string]*bench.NoOpFloor{"no-op": f.NoOp, "replay": f.Replay} {
			if n.Calls == 0 || n.Errors != 0 || n.Sessions != 3 || n.Throughput() <= 0 {
				t.Errorf("%s floor (read-only %v) %+v:\n%s", name, readOnly, n, out.String())
			}
		}
		if f.SQLite.Tx == 0 || f.SQLite.Errors != 0 || f.SQLite.Goroutines != 3 || f.SQLite.Throughput() <= 0 {
			t.Errorf("SQLite floor %+v:\n%s", f.SQLite, out.String())
		}
		// The floors run for the run's duration (the loops stop at it).
		for _, d := range []time.Duration{f.NoOp.Elapsed, f.Replay.Elapsed, f.SQLite.Elapsed} {
			if d < runFor {
				t.Errorf("a floor ran %s, shorter than the run's %s", d, runFor)
			}
		}
		for _, want := range []string{"floor, go-sdk no-op", "floor, go-sdk answering baton's results", "floor, SQLite write", "baton's writes/s", "% of it", "cpu per call"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("report lacks %q:\n%s", want, out.String())
			}
		}
	}
}

// TestRate: a paced run makes exactly the calls offered (each either
// started or counted as not started by the end), no sooner than they are
// due, and reports latency and pacing.
func TestRate(t *testing.T) {
	const agents, rate, d = 4, 200, time.Second
	rep, err := bench.Run(context.Background(), bench.Options{Agents: agents, Duration: d, Rate: rate})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	p := rep.Rate
	if rep.Errors != 0 || p == nil {
		t.Fatalf("report:\n%s", out.String())
	}
	// 200 calls/s over 4 agents: one every 20 ms each, staggered by 5 ms,
	// so 50 due times each in the second.
	if p.Issued+p.Unsent != rate || p.Offered != rate || p.Issued == 0 {
		t.Errorf("issued %d + unsent %d, want %d offered:\n%s", p.Issued, p.Unsent, rate, out.String())
	}
	// The last call is due 995 ms in: a run that ends sooner did not wait
	// for the due times.
	if rep.Elapsed < 990*time.Millisecond {
		t.Errorf("a paced run of 1s ended after %s", rep.Elapsed)
	}
	// set_status, which opens each agent's work, is not paced.
	if rep.All.Calls != p.Issued+agents || rep.All.Percentile(50) <= 0 || rep.All.Percentile(100) < rep.All.Percentile(50) {
		t.Errorf("latencies of %d calls, p50 %s:\n%s", rep.All.Calls, rep.All.Percentile(50), out.String())
	}
	if !strings.Contains(out.String(), "200 calls/s offered") || !strings.Contains(out.String(), "late to start") {
		t.Errorf("report lacks the pacing:\n%s", out.String())
	}
}

// TestRateWithCalls: --calls with --rate means a run of calls/rate
// seconds.
func TestRateWithCalls(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 2, Calls: 20, Rate: 40})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.Rate == nil || rep.Rate.Issued+rep.Rate.Unsent != 20 {
		t.Fatalf("%+v", rep.Rate)
	}
}

// TestSplit: the server runs in a process of its own pinned to one CPU,
// the agents on another, the floors likewise; each side's CPU time per
// call is reported, and this process gets its CPUs back afterwards.
func TestSplit(t *testing.T) {
	if err := bench.SplitSupported(); err != nil {
		t.Skipf("--split cannot run here: %v", err)
	}
	procs := runtime.GOMAXPROCS(0)
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 2, Duration: runFor, Split: true, Floors: true,
		Binary: thisBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	c := rep.CPU
	if rep.Errors != 0 || rep.Calls == 0 || c == nil || !c.Split || c.ServerCPU == c.ClientCPU || c.Calls == 0 {
		t.Fatalf("report:\n%s", out.String())
	}
	// A run of calls costs the server some CPU; /proc counts in 10 ms
	// ticks, so it shows.
	if c.Server <= 0 || c.Client <= 0 {
		t.Errorf("server %s, clients %s of CPU:\n%s", c.Server, c.Client, out.String())
	}
	for name, n := range map[string]*bench.NoOpFloor{"no-op": rep.Floors.NoOp, "replay": rep.Floors.Replay} {
		if n == nil || n.CPU == nil || !n.CPU.Split || n.Calls == 0 || n.Errors != 0 {
			t.Errorf("%s floor %+v:\n%s", name, n, out.String())
		}
	}
	if !strings.Contains(out.String(), "server ") || !strings.Contains(out.String(), "clients ") {
		t.Errorf("report lacks the split CPU:\n%s", out.String())
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after the run, %d before", got, procs)
	}
}

// TestColdStartPreset: cold start runs the chosen preset's server and
// reports its tools/list.
func TestColdStartPreset(t *testing.T) {
	cs, err := bench.MeasureColdStart(thisBinary(t), 2, "core", "")
	if err != nil {
		t.Fatal(err)
	}
	if cs.Preset != "core" || cs.Runs != 2 || cs.Tools == 0 || cs.ToToolsList < cs.ToInitialize || cs.ToInitialize <= 0 {
		t.Fatalf("%+v", cs)
	}
	full, err := bench.MeasureColdStart(thisBinary(t), 1, "full", "")
	if err != nil {
		t.Fatal(err)
	}
	if full.Tools <= cs.Tools {
		t.Errorf("full preset lists %d tools, core %d", full.Tools, cs.Tools)
	}
}

// TestColdStartFloor: with a floor binary, the minimal go-sdk server of
// testdata/noopmcp, each start of baton's is followed by one of the
// floor's and both are reported, with the idle memory split into private
// and file pages.
func TestColdStartFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the floor server (-short skips it)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the floor server: ", err)
	}
	floor := filepath.Join(t.TempDir(), "noopmcp")
	if out, err := exec.Command(goBin, "build", "-o", floor, "./testdata/noopmcp").CombinedOutput(); err != nil {
		t.Fatalf("building the floor: %v\n%s", err, out)
	}
	cs, err := bench.MeasureColdStart(thisBinary(t), 2, "core", floor)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Floor == nil || cs.Floor.ToToolsList <= 0 || cs.Floor.ToToolsList < cs.Floor.ToInitialize {
		t.Fatalf("floor: %+v", cs.Floor)
	}
	if runtime.GOOS == "linux" {
		for name, s := range map[string]bench.Starts{"baton": cs.Starts, "floor": *cs.Floor} {
			if s.IdleAnonKiB <= 0 || s.IdleFileKiB <= 0 || s.IdlePeakRSSKiB < s.IdleAnonKiB {
				t.Errorf("%s's idle memory: %+v", name, s)
			}
		}
	}
}

// TestReplicas: with PostgreSQL, agents dealt out to several servers on
// one schema all work without errors.
func TestReplicas(t *testing.T) {
	url := os.Getenv("BATON_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("BATON_TEST_POSTGRES_URL is not set")
	}
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 4, Calls: 40, Postgres: url, Replicas: 2})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Errors != 0 || rep.Replicas != 2 || rep.Calls == 0 || !strings.Contains(out.String(), "on 2 servers") {
		t.Fatalf("report:\n%s", out.String())
	}
}

// TestPostgresFloor: a PostgreSQL run's write floor is PostgreSQL's,
// measured on a scratch schema that is dropped afterwards; it has no
// SQLite floor.
func TestPostgresFloor(t *testing.T) {
	url := os.Getenv("BATON_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("BATON_TEST_POSTGRES_URL is not set")
	}
	schemas := func() int {
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'bench_floor_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := schemas()
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 3, Duration: runFor, Postgres: url, Floors: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	f := rep.Floors
	if rep.Errors != 0 || f == nil || f.SQLite != nil || f.Postgres == nil || f.Postgres.Tx == 0 || f.Postgres.Errors != 0 ||
		f.Postgres.Goroutines != 3 || f.Postgres.Elapsed < runFor || !strings.Contains(out.String(), "floor, PostgreSQL write") {
		t.Fatalf("report:\n%s", out.String())
	}
	if after := schemas(); after != before {
		t.Errorf("%d floor schemas before the run, %d after", before, after)
	}
}
