package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/baton-dev/baton/bench"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// benchCmd is `baton bench`: the load harness (package bench).
func (a *App) benchCmd() *cobra.Command {
	var o bench.Options
	var cold int
	var preset, floorBin string
	var serveOnly bool
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load-test a fresh baton on loopback: N agents on the call mix, or --cold-start",
		Long: "bench seeds a fresh database in a temporary directory, starts baton on 127.0.0.1, and runs N agents\n" +
			"(each its own MCP session, or with --stdio its own `baton mcp` process) on a mix of claim_next, get_issue,\n" +
			"add_finding, send_message, read_messages, search_learnings and update_issue_status for --duration or\n" +
			"--calls, then prints throughput and per-tool latency.\n\n" +
			"In the same run it measures the floors under baton with the same agents and duration: no-op calls\n" +
			"through the MCP SDK over loopback HTTP; the same mix against an SDK server that answers each tool at\n" +
			"once with the last result baton gave for it (the SDK's, HTTP's and the agents' own cost for results of\n" +
			"baton's sizes); and small write transactions with the store's driver and settings (on PostgreSQL one\n" +
			"writer at a time, under an advisory lock, as baton's writers are). Baton's\n" +
			"calls/s and writes/s are printed as fractions of them (--floors=false skips them).\n" +
			"--split runs the server in a process of its own pinned to one CPU and the agents on another, and\n" +
			"reports the CPU time each side spends per call (Linux, two CPUs). --rate N offers N calls/s in all,\n" +
			"open-loop, and counts each call's latency from when it was due. --replicas N (with --postgres) runs\n" +
			"N servers on one schema with the agents dealt out to them.\n\n" +
			"--cold-start N times N starts of `baton mcp --preset P` (default core) to its tools/list answer instead.\n" +
			"--dashboard N keeps N dashboard pages open meanwhile, refreshing live as a browser does, to measure\n" +
			"what watching costs the agents.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// The harness's server runs with `baton serve`'s collector
			// settings (in this process, or in the --split server process).
			serverGC(a.Getenv)
			if serveOnly {
				// A --split run's server process: this binary re-executed,
				// its spec in the environment.
				ok, err := bench.ServeFromEnv(c.Context(), a.Stdin, a.Stdout)
				if !ok {
					return usageError("--serve-only is the server process of a --split run: it needs %s", bench.ServeEnv)
				}
				if err != nil {
					return &ExitError{Code: ExitTool, Err: err}
				}
				return nil
			}
			if err := checkBench(c, &o, cold, preset); err != nil {
				return err
			}
			if cold > 0 {
				bin, err := os.Executable()
				if err != nil {
					return err
				}
				cs, err := bench.MeasureColdStart(bin, cold, preset, floorBin)
				if err != nil {
					return &ExitError{Code: ExitTool, Err: err}
				}
				fmt.Fprintf(a.Stdout, "cold start, preset %s (%d tools), over %d runs (median): %s\n", cs.Preset, cs.Tools, cs.Runs, coldStarts(cs.Starts))
				if cs.Floor != nil {
					fmt.Fprintf(a.Stdout, "floor, go-sdk stdio no-op (%s), same runs alternated: %s; baton's tools/list %.1f× the floor's\n",
						floorBin, coldStarts(*cs.Floor), float64(cs.ToToolsList)/float64(max(cs.Floor.ToToolsList, 1)))
				}
				return nil
			}
			rep, err := bench.Run(c.Context(), o)
			if err != nil {
				return &ExitError{Code: ExitTool, Err: err}
			}
			rep.Print(a.Stdout)
			if rep.Errors > 0 {
				return &ExitError{Code: ExitTool, Err: fmt.Errorf("%d calls failed", rep.Errors)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Agents, "agents", 64, "simulated agents")
	f.DurationVar(&o.Duration, "duration", 10*time.Second, "how long to run")
	f.IntVar(&o.Calls, "calls", 0, "stop after this many calls in all instead (with --rate: run calls/rate seconds)")
	f.BoolVar(&o.Stdio, "stdio", false, "one `baton mcp` process per agent on one database file")
	f.IntVar(&cold, "cold-start", 0, "time this many `baton mcp` starts instead")
	f.StringVar(&floorBin, "floor-bin", "", "with --cold-start: also start this minimal stdio server, alternately, as the floor (go build -o noopmcp ./bench/testdata/noopmcp)")
	f.StringVar(&preset, "preset", tool.PresetCore, "the tool preset of the --cold-start server ("+strings.Join(tool.PresetNames(), ", ")+")")
	f.BoolVar(&o.ReadOnly, "read-only", false, "a mix of read-only tools only (reads need no writer)")
	f.StringVar(&o.Postgres, "postgres", "", "run on a fresh schema of this PostgreSQL database (postgres:// URL) instead of SQLite")
	f.IntVar(&o.Replicas, "replicas", 1, "with --postgres: this many baton servers on the one schema, the agents dealt out to them")
	f.IntVar(&o.Dashboard, "dashboard", 0, "keep this many live dashboard pages open during the run")
	f.StringVar(&o.DashboardPath, "dashboard-page", "/", "the dashboard page they show (/, /board, /agents, ...)")
	f.BoolVar(&o.Floors, "floors", true, "also measure the go-sdk no-op, replay and store write floors, same agents and duration (HTTP runs)")
	f.BoolVar(&o.Split, "split", false, "server and agents in separate processes pinned to separate CPUs; report CPU per call (Linux)")
	f.Float64Var(&o.Rate, "rate", 0, "offer this many calls/s in all, open-loop, latency counted from each call's due time (0: closed-loop)")
	f.BoolVar(&serveOnly, "serve-only", false, "serve as the server process of a --split run")
	_ = f.MarkHidden("serve-only")
	return cmd
}

// checkBench refuses flag combinations that cannot run, as usage errors.
func checkBench(c *cobra.Command, o *bench.Options, cold int, preset string) error {
	set := c.Flags().Changed
	switch {
	case cold < 0:
		return usageError("--cold-start must be a number of starts, not %d", cold)
	case !tool.IsPreset(preset):
		return usageError("unknown preset %q: choose one of %s", preset, strings.Join(tool.PresetNames(), ", "))
	case set("floor-bin") && cold == 0:
		return usageError("--floor-bin is the --cold-start floor: give --cold-start N too")
	case set("preset") && cold == 0:
		return usageError("--preset chooses the --cold-start server's tools: give --cold-start N too (the load mix needs the full preset)")
	case o.Agents <= 0:
		return usageError("--agents must be 1 or more, not %d", o.Agents)
	case o.Dashboard < 0 || o.Dashboard > 64:
		return usageError("--dashboard must be 0 to 64 pages, not %d", o.Dashboard)
	case o.Dashboard > 0 && o.Stdio:
		return usageError("--dashboard needs the HTTP server: drop --stdio")
	case o.DashboardPath != "" && !strings.HasPrefix(o.DashboardPath, "/"):
		return usageError("--dashboard-page is a path such as /board, not %q", o.DashboardPath)
	case o.Rate < 0:
		return usageError("--rate is calls per second in all, 0 (closed-loop) or more, not %v", o.Rate)
	case o.Replicas < 1 || o.Replicas > 16:
		return usageError("--replicas must be 1 to 16 servers, not %d", o.Replicas)
	case o.Replicas > 1 && o.Postgres == "":
		return usageError("--replicas share one database: give --postgres URL (SQLite has one writer per file)")
	case o.Replicas > 1 && o.Stdio:
		return usageError("--replicas are HTTP servers: drop --stdio")
	case o.Split && o.Stdio:
		return usageError("--split pins one server process, and --stdio starts one per agent: drop one of them")
	case o.Floors && set("floors") && o.Stdio:
		return usageError("--floors are measured over HTTP: drop --stdio, or give --floors=false")
	}
	if o.Split {
		if err := bench.SplitSupported(); err != nil {
			return usageError("%v", err)
		}
	}
	return nil
}

// coldStarts prints one server's cold-start medians and idle memory.
func coldStarts(s bench.Starts) string {
	return fmt.Sprintf("initialize %s, tools/list %s; idle peak RSS %.1f MiB (private %.1f MiB, file pages %.1f MiB)",
		s.ToInitialize.Round(10*time.Microsecond), s.ToToolsList.Round(10*time.Microsecond),
		float64(s.IdlePeakRSSKiB)/1024, float64(s.IdleAnonKiB)/1024, float64(s.IdleFileKiB)/1024)
}
