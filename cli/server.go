package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/lazystore"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/web"
	"github.com/spf13/cobra"
)

// presetUsage is the --preset flag's help.
var presetUsage = "the tool preset: " + strings.Join(tool.PresetNames(), ", ") +
	" (default: core for a session naming no profile, the profile's tools with --agent-type)"

// checkPreset refuses an unknown --preset.
func (a *App) checkPreset() error {
	if a.preset != "" && !tool.IsPreset(a.preset) {
		return usageError("unknown preset %q: choose one of %s", a.preset, strings.Join(tool.PresetNames(), ", "))
	}
	return nil
}

// DefaultAddr is where `baton serve` listens unless --addr says otherwise.
const DefaultAddr = "127.0.0.1:7420"

func (a *App) initCmd() *cobra.Command {
	var slug, prefix, name, preset string
	var noInstructions bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the database (.baton/baton.db) and a project, and tell agents the work loop in AGENTS.md",
		Long: "init creates the team's database, .baton/baton.db at the top of the git repository (the main\n" +
			"repository's, from a worktree; the working directory outside git), unless one is found walking\n" +
			"up or --db names one. Without --project the project is named after that directory. Running it\n" +
			"again confirms the project (the only one, or the one --project names); --project NEW adds another.\n\n" +
			"It also writes the agents' instructions: the work loop (ready, claim, work, report, ask) in the\n" +
			"exact tool names of --preset, as a section between " + instructionsBegin + " and " + instructionsEnd + "\n" +
			"in AGENTS.md beside .baton/ (created when missing), and in CLAUDE.md when the project has one.\n" +
			"Running init again rewrites only that section; the rest of each file is kept as it is.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if !tool.IsPreset(preset) {
				return usageError("unknown preset %q: choose one of %s", preset, strings.Join(tool.PresetNames(), ", "))
			}
			if slug == "" {
				slug = a.project
			}
			a.mayCreate = true
			p := defaultProject(a.location().Root, slug, prefix)
			p.Name = name
			// The instruction files are read before the database changes, so
			// one init cannot update fails the command with nothing changed.
			plan := []instructionFile{}
			if !noInstructions {
				var err error
				section := instructionsSection(preset, tool.PresetTools(a.Registry, preset))
				if plan, err = planInstructions(instructionsRoot(a.location()), section); err != nil {
					return a.fail(err)
				}
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return &ExitError{Code: ExitTool, Err: err}
			}
			var existing *baton.Project
			named := slug != ""
			err = s.Update(ctx, func(tx baton.Tx) error {
				if got, err := tx.Project(ctx, p.Slug); err == nil {
					existing = got
					return nil
				}
				if !named {
					// Running init again without --project confirms the
					// team's project rather than adding one named after
					// the directory: adding one takes a name.
					ps, err := tx.Projects(ctx)
					if err != nil {
						return err
					}
					switch len(ps) {
					case 0:
					case 1:
						existing = ps[0]
						return nil
					default:
						slugs := make([]string, len(ps))
						for i, q := range ps {
							slugs[i] = q.Slug
						}
						return baton.Errorf(baton.ErrInvalidInput, "this database holds %d projects: %s", len(ps), strings.Join(slugs, ", ")).
							WithDetails("field", "project", "projects", slugs).
							WithHint("name the project to confirm or add with --project SLUG")
					}
				}
				return tx.CreateProject(ctx, p)
			})
			if err != nil {
				return a.fail(err)
			}
			if err := writeInstructions(plan); err != nil {
				return a.fail(err)
			}
			// The action log's key is made with the database, so its first
			// checkpoint is signed by the key the log keeps for its life.
			key, _, err := a.auditKey(ctx, s)
			if err != nil {
				return a.fail(err)
			}
			path := s.Info(ctx).Path
			if wantJSON(c) { // output.go
				got := p
				if existing != nil {
					got = existing
				}
				return a.printJSON(map[string]any{"database": path, "created": existing == nil,
					"project":      map[string]any{"slug": got.Slug, "prefix": got.Prefix, "name": got.Name},
					"instructions": map[string]any{"preset": preset, "files": plan}, "audit_key": key.VerifierKey})
			}
			if existing != nil {
				fmt.Fprintf(a.Stdout, "%s already holds project %s (prefix %s)\n", path, existing.Slug, existing.Prefix)
			} else {
				fmt.Fprintf(a.Stdout, "initialised %s with project %s (prefix %s): task ids look like %s-1\n", path, p.Slug, p.Prefix, p.Prefix)
				if loc := a.location(); !strings.HasPrefix(loc.Reason, "named by") {
					fmt.Fprintf(a.Stdout, "every baton command under %s (and its git worktrees) uses this database\n", loc.Root)
				}
			}
			for _, f := range plan {
				switch f.Action {
				case "unchanged":
					fmt.Fprintf(a.Stdout, "%s: the agents' work loop (preset %s) is up to date\n", f.Path, preset)
				case "skipped":
					fmt.Fprintf(a.Stdout, "%s: left as it is, since %s\n", f.Path, f.Reason)
				default:
					fmt.Fprintf(a.Stdout, "%s the agents' work loop (preset %s) in %s\n", map[string]string{"created": "wrote", "updated": "updated"}[f.Action], preset, f.Path)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&slug, "project", "", "project slug (default: the working directory's name)")
	cmd.Flags().StringVar(&prefix, "prefix", "", "identifier prefix of the project's items, e.g. SYM (default: from the slug)")
	cmd.Flags().StringVar(&name, "name", "", "display name of the project")
	cmd.Flags().StringVar(&preset, "preset", tool.PresetCore, "the tool preset whose names the agents' instructions use: "+strings.Join(tool.PresetNames(), ", "))
	cmd.Flags().BoolVar(&noInstructions, "no-instructions", false, "write no agent instructions (AGENTS.md, CLAUDE.md)")
	a.jsonFlag(cmd, `{"database", "created": false when the project existed already, "project": {"slug", "prefix", "name"},
"instructions": {"preset", "files": [{"path", "action": created, updated, unchanged or skipped, "reason" (when skipped)}]}}.`)
	return cmd
}

// defaultProject fills in what init and a first start leave out: the slug
// from the team's root directory (the one holding .baton/), the prefix from
// the slug. That directory becomes the project's root, where move_issue
// finds docs/tickets/.
func defaultProject(root, slug, prefix string) *baton.Project {
	wd := root
	if wd == "" {
		wd, _ = os.Getwd()
	}
	if slug == "" {
		slug = slugify(filepath.Base(wd))
	}
	if prefix == "" {
		prefix = prefixFor(slug)
	}
	return &baton.Project{Slug: slug, Prefix: strings.ToUpper(prefix), Root: wd}
}

// ensureProject gives an empty database its first project, so one command
// (baton serve, baton mcp) is enough to start working.
func (a *App) ensureProject(ctx context.Context, s baton.Store) error {
	var created *baton.Project
	err := s.Update(ctx, func(tx baton.Tx) error {
		ps, err := tx.Projects(ctx)
		if err != nil || len(ps) > 0 {
			return err
		}
		created = defaultProject(a.location().Root, a.project, "")
		return tx.CreateProject(ctx, created)
	})
	if created != nil {
		fmt.Fprintf(a.Stderr, "baton: new database %s: created project %s (prefix %s)\n", a.dbName(ctx), created.Slug, created.Prefix)
	}
	return err
}

// exitCode maps a failure to the exit status: invalid input is a usage
// error, everything else a tool error.
func exitCode(e *baton.Error) int {
	if e.Code == baton.ErrInvalidInput {
		return ExitUsage
	}
	return ExitTool
}

// fail turns an error into its message and exit code.
func (a *App) fail(err error) error {
	e := baton.AsError(err)
	code := exitCode(e)
	// Messages and hints can quote agent text: no control character of it
	// reaches the terminal (sanitize.go).
	msg := e.Code + ": " + cleanLine(e.Message)
	if e.Hint != "" {
		msg += "\nhint: " + cleanLine(e.Hint)
	}
	return &ExitError{Code: code, Err: &failure{msg: msg, err: e}} // --json prints e (output.go)
}

var nonSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_-]+`) })

func slugify(s string) string {
	s = strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(s), "-"), "-_")
	if s == "" {
		return "baton"
	}
	if len(s) > 63 {
		s = s[:63]
	}
	return s
}

func prefixFor(slug string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(slug) {
		if r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
			if b.Len() == 3 {
				break
			}
		}
	}
	if b.Len() == 0 {
		return "BAT"
	}
	return b.String()
}

// serving builds the registry and environment shared by mcp and serve:
// the tools of the enabled toolsets, only the read-only ones with readOnly.
// With background (mcp) a SQLite database opens while the server serves
// (openStoreInBackground).
func (a *App) serving(ctx context.Context, toolsets []string, readOnly, background bool) (*mcpserver.Factory, error) {
	if err := a.checkPreset(); err != nil {
		return nil, err
	}
	if err := a.usePlugins(ctx); err != nil { // plugin tools join a.Registry (cli/plugins.go)
		return nil, err
	}
	reg, err := selectTools(a.Registry, toolsets, readOnly)
	if err != nil {
		return nil, a.fail(err)
	}
	if background {
		if err := a.openStoreInBackground(ctx); err != nil {
			return nil, &ExitError{Code: ExitTool, Err: err}
		}
	}
	env, err := a.toolEnv(ctx, reg, serverMode(readOnly))
	if err != nil {
		return nil, &ExitError{Code: ExitTool, Err: err}
	}
	if _, opening := env.Store.(*lazystore.Store); !opening { // else its opening does it
		if err := a.ensureProject(ctx, env.Store); err != nil {
			return nil, a.fail(err)
		}
	}
	if ps, ok := env.Store.(*postgres.Store); ok {
		// Other replicas' changes wake this one's subscribers too.
		env.BusHearsAll = true
		a.goBackground(ctx, func(ctx context.Context) { ps.Listen(ctx, env.Bus.Publish, env.Log) })
	}
	f := mcpserver.NewFactory(reg, env, a.Version)
	f.Log = env.Log
	a.goBackground(ctx, f.Heartbeat)
	a.goBackground(ctx, f.Watch)
	return f, nil
}

func (a *App) mcpCmd() *cobra.Command {
	var readOnly bool
	var toolsets []string
	var sym symphonyFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio (for an agent that starts baton itself)",
		Long: "mcp serves the Model Context Protocol over stdin/stdout. The agent identity comes from --agent\n" +
			"(or BATON_AGENT), the default project from --project; tool arguments never change who you are.\n" +
			"Symphony's launch line works as it is: --issue-id, --db, --project-id, --project-slug, --worktree-path,\n" +
			"--agent-type, --tool-scope-file and --symphony-dir (memory then lives under DIR/data/memory/).",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if a.scopeFile != "" {
				// A scope file that cannot be read is a mistake to report
				// now, not on the agent's first call.
				if _, err := tool.ReadScopeFile(a.scopeFile); err != nil {
					return a.fail(err)
				}
			}
			if err := sym.beforeStore(a); err != nil {
				return err
			}
			// The session is served while the database opens.
			f, err := a.serving(c.Context(), toolsets, readOnly, true)
			if err != nil {
				return err
			}
			if err := sym.resolveProject(c.Context(), a, f.Env.Store); err != nil {
				return err
			}
			f.Env.DataDir = sym.dataDir(f.Env.DataDir)
			if f.RateLimit, err = rateLimitOf(c); err != nil {
				return err
			}
			err = f.ServeIO(c.Context(), a.principal(baton.SourceStdio, "anonymous"), a.Stdin, a.Stdout)
			if err != nil && !errors.Is(err, context.Canceled) {
				return &ExitError{Code: ExitTool, Err: err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "offer only read-only tools")
	cmd.Flags().StringSliceVar(&toolsets, "toolsets", []string{"all"}, toolsetsUsage)
	// A dispatched agent's environment names its issue, profile and
	// worktree (baton dispatch), so any agent CLI that starts `baton mcp`
	// from it gets a session bound to them without being told the flags.
	cmd.Flags().StringVar(&a.issueID, "issue-id", a.env("BATON_ISSUE", ""), "bind the session to this issue: issue tools default to it (env BATON_ISSUE)")
	cmd.Flags().StringVar(&a.agentType, "agent-type", a.env("BATON_PROFILE", ""), "the agent's profile (worker, researcher, judge, scanner, architect, planner, intake; env BATON_PROFILE)")
	cmd.Flags().StringVar(&a.worktree, "worktree-path", a.env("BATON_WORKTREE", ""), "the agent's assigned worktree, checked by verify_workspace (env BATON_WORKTREE)")
	cmd.Flags().StringVar(&a.scopeFile, "tool-scope-file", "", "JSON array of tool names: the session's whole tool set (wins over --agent-type)")
	cmd.Flags().StringVar(&a.preset, "preset", "", presetUsage)
	cmd.Flags().BoolVar(&a.scheduler, "scheduler", false, "a scheduler-initiated session: no scheduler-blocked tools, capped creations")
	cmd.Flags().DurationVar(&a.claimTTL, "claim-ttl", baton.DefaultClaimTTL, "lease of a claim unless the call asks for another")
	cmd.Flags().Float64("rate-limit", mcpserver.DefaultRateLimit, rateLimitUsage)
	sym.register(cmd)
	a.configFlag(cmd)
	return cmd
}

func (a *App) serveCmd() *cobra.Command {
	var addr string
	var hosts []string
	var readOnly, insecure, dashboard, dispatching bool
	var toolsets []string
	var grace, reapEvery, tickEvery, sessionIdle time.Duration
	var timeouts mcpserver.Timeouts
	var maxSessions, maxStreams int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP over Streamable HTTP at /mcp and the dashboard at /",
		Long: "serve listens on --addr (default " + DefaultAddr + ") and serves MCP Streamable HTTP at /mcp.\n" +
			"Requests whose Host or Origin names a host other than localhost, 127.0.0.1, ::1 or an\n" +
			"--allowed-host are refused (DNS rebinding). SIGINT or SIGTERM drain the calls under way,\n" +
			"close the sessions and the database, then exit.\n\n" +
			"Every request to /mcp, /sse and /events needs `Authorization: Bearer TOKEN` with a token from\n" +
			"`baton agent create NAME --profile P`; the token decides the agent, profile, project and\n" +
			"scheduler mode. --insecure-local drops the tokens (everyone is --agent), on a loopback --addr only.\n\n" +
			"Clients of protocol 2026-07-28 (sessionless) use /mcp too; HTTP+SSE clients of 2024-11-05 use /sse.\n" +
			"Slow clients are cut by --header-timeout, --body-timeout, --write-timeout (per write: streams and\n" +
			"long polls last as long as the client reads) and --idle-timeout. One token (or, without tokens, one\n" +
			"agent) holds at most --max-sessions-per-token sessions and --max-streams-per-token event streams;\n" +
			"past that it gets 429 with Retry-After. Sessions idle for --session-idle-timeout end.\n\n" +
			"The operator's dashboard is at / (--dashboard=false turns it off). serve prints a one-time login URL,\n" +
			"and a new one after each use and every hour; with --insecure-local the dashboard needs no login.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			a.mayCreate = true // a server may start the team's database (at the git top level)
			serverGC(a.Getenv)
			if insecure && !isLoopback(addr) {
				return usageError("--insecure-local serves without tokens, so only on a loopback --addr (127.0.0.1, ::1 or localhost), not %s", addr)
			}
			if err := checkServeLimits(timeouts, sessionIdle, maxSessions, maxStreams); err != nil {
				return err
			}
			rateLimit, err := rateLimitOf(c)
			if err != nil {
				return err
			}
			f, err := a.serving(ctx, toolsets, readOnly, false)
			if err != nil {
				return err
			}
			f.RateLimit = rateLimit
			opts := mcpserver.HTTPOptions{AllowedHosts: hosts, Timeouts: timeouts, SessionTimeout: sessionIdle,
				MaxSessions: noCap(maxSessions), MaxStreams: noCap(maxStreams)}
			auth := "bearer tokens required (issue one with `baton agent create NAME --profile P`)"
			if insecure {
				p := a.principal(baton.SourceHTTP, "anonymous")
				opts.Principal = func(*http.Request) baton.Principal { return p }
				auth = "insecure-local: no tokens, every request runs as " + p.Agent
			} else {
				opts.Authenticator = &mcpserver.Authenticator{Store: f.Env.Store, Project: a.project, Clock: a.Clock}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return &ExitError{Code: ExitTool, Err: baton.Errorf(baton.ErrInitFailed, "cannot listen on %s: %v", addr, err).
					WithHint("pick a free address with --addr, e.g. --addr 127.0.0.1:7421")}
			}
			base := "http://" + browserAddr(ln.Addr())
			closeDash := func() {}
			if dashboard {
				dash := web.New(web.Options{Registry: f.Registry, Env: f.Env, Project: a.project, Insecure: insecure, Log: f.Env.Log,
					OnLoginURL: func(path string) {
						fmt.Fprintf(a.Stderr, "baton: dashboard login (one use, valid 1h): %s%s\n", base, path)
					}})
				closeDash = dash.Close
				opts.Dashboard = dash
				if insecure {
					fmt.Fprintf(a.Stderr, "baton: dashboard at %s/ (no login: --insecure-local)\n", base)
				}
			}
			h := f.Handler(opts)
			srv := mcpserver.NewHTTPServer(h, timeouts)
			reapCtx, stopReaper := context.WithCancel(ctx)
			defer stopReaper()
			go (&orchestrator.Reaper{Store: f.Env.Store, Every: reapEvery, Clock: a.Clock, Log: f.Env.Log}).Run(reapCtx)
			if tickEvery > 0 { // the phase pipeline's tick (orchestrator.Phases)
				go (&orchestrator.Phases{Store: f.Env.Store, Every: tickEvery, Clock: a.Clock, Log: f.Env.Log, Bus: f.Env.Bus}).Run(reapCtx)
			}
			// The action log's checkpoints: signed every [audit]
			// checkpoint_every and after checkpoint_records new records, and
			// given to the witness. The key is made here on a log without one.
			auditCfg, err := a.auditConfig()
			if err != nil {
				return a.fail(err)
			}
			// A replica without the log's key still serves: signing is
			// left to those that have it (every replica needs the same
			// key file to sign), and the operator is told.
			if key, err := audit.OpenKey(ctx, f.Env.Store, a.auditKeyPath(ctx, f.Env.Store, auditCfg), true, a.now()); err != nil {
				e := baton.AsError(err)
				fmt.Fprintf(a.Stderr, "baton: not signing audit checkpoints: %s (%s)\n", e.Error(), e.Hint)
			} else {
				cps := a.checkpointer(f.Env.Store, key, auditCfg)
				cps.Log = f.Env.Log
				a.goBackground(reapCtx, cps.Run)
			}
			dispatched := make(chan struct{})
			if dispatching {
				// baton dispatch inside the server: its agents stop (and
				// their claims go back) before the store closes.
				d, release, err := a.dispatcher(ctx, true)
				if err != nil {
					return a.fail(err)
				}
				go func() {
					defer close(dispatched)
					defer release()
					_ = d.Run(reapCtx)
				}()
				fmt.Fprintf(a.Stderr, "baton: dispatching agents (%s)\n", d.ID())
			} else {
				close(dispatched)
			}
			fmt.Fprintf(a.Stderr, "baton %s serving MCP at http://%s/mcp (database %s)\n", a.Version, ln.Addr(), a.dbName(ctx))
			fmt.Fprintf(a.Stderr, "baton: %s\n", auth)
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				stopReaper()
				<-dispatched
				return &ExitError{Code: ExitTool, Err: err}
			case <-ctx.Done():
			}
			<-dispatched
			return a.shutdown(srv, f, grace, errc, closeDash)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", DefaultAddr, "address to listen on")
	cmd.Flags().StringSliceVar(&hosts, "allowed-host", nil, "extra host name accepted in Host/Origin headers (repeatable)")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "offer only read-only tools")
	cmd.Flags().StringSliceVar(&toolsets, "toolsets", []string{"all"}, toolsetsUsage)
	cmd.Flags().DurationVar(&grace, "shutdown-grace", 10*time.Second, "how long shutdown waits for calls under way")
	cmd.Flags().DurationVar(&reapEvery, "reap-every", 10*time.Second, "how often lapsed claims return their work to the queue")
	cmd.Flags().DurationVar(&tickEvery, "tick-every", orchestrator.DefaultTickEvery, "how often the orchestrator processes phase claims and verdicts (0: never; see baton orchestrator tick)")
	cmd.Flags().BoolVar(&dispatching, "dispatch", false, "also run baton dispatch: agents started on ready work as [dispatch] of the --config file says")
	cmd.Flags().BoolVar(&dashboard, "dashboard", true, "serve the operator's dashboard at / (log in with the one-time URL serve prints)")
	cmd.Flags().BoolVar(&insecure, "insecure-local", false, "serve without tokens, every request as --agent (loopback --addr only)")
	cmd.Flags().StringVar(&a.preset, "preset", "", "with --insecure-local: "+presetUsage+"; tokens carry their own (baton agent create --preset)")
	cmd.Flags().DurationVar(&timeouts.Header, "header-timeout", mcpserver.DefaultHeaderTimeout, "time a client has to send a request's headers")
	cmd.Flags().DurationVar(&timeouts.Body, "body-timeout", mcpserver.DefaultBodyTimeout, "time a client has to send a request's body after its headers")
	cmd.Flags().DurationVar(&timeouts.Write, "write-timeout", mcpserver.DefaultWriteTimeout, "time each write of a response may take (a stream may last longer)")
	cmd.Flags().DurationVar(&timeouts.Idle, "idle-timeout", mcpserver.DefaultIdleTimeout, "how long a keep-alive connection may wait for its next request")
	cmd.Flags().DurationVar(&sessionIdle, "session-idle-timeout", mcpserver.DefaultSessionTimeout, "end MCP sessions that send no request for this long")
	cmd.Flags().IntVar(&maxSessions, "max-sessions-per-token", mcpserver.DefaultMaxSessions, "MCP sessions one token (or agent) may hold open (0: no cap)")
	cmd.Flags().IntVar(&maxStreams, "max-streams-per-token", mcpserver.DefaultMaxStreams, "event streams one token (or agent) may hold open (0: no cap)")
	cmd.Flags().Float64("rate-limit", mcpserver.DefaultRateLimit, rateLimitUsage)
	a.configFlag(cmd)
	cmd.Flags().DurationVar(&a.claimTTL, "claim-ttl", baton.DefaultClaimTTL, "lease of a claim unless the call asks for another")
	return cmd
}

// browserAddr is addr as a browser should open it: an address that
// listens everywhere is reached through the loopback, which the Host check
// admits.
func browserAddr(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// checkServeLimits refuses timeouts and caps that would make serve useless.
func checkServeLimits(t mcpserver.Timeouts, sessionIdle time.Duration, maxSessions, maxStreams int) error {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--header-timeout", t.Header}, {"--body-timeout", t.Body}, {"--write-timeout", t.Write},
		{"--idle-timeout", t.Idle}, {"--session-idle-timeout", sessionIdle}} {
		if d.v <= 0 {
			return usageError("%s must be a positive duration such as 30s, not %s", d.flag, d.v)
		}
	}
	if maxSessions < 0 || maxStreams < 0 {
		return usageError("--max-sessions-per-token and --max-streams-per-token must be 0 (no cap) or more, not %d and %d", maxSessions, maxStreams)
	}
	return nil
}

// noCap turns a cap flag's 0 (no cap) into HTTPOptions' negative.
func noCap(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// shutdown stops accepting connections, lets the tool calls under way
// finish (each commits or rolls back whole), then ends the sessions and
// their streams. The store is closed by Run after the command returns.
func (a *App) shutdown(srv *http.Server, f *mcpserver.Factory, grace time.Duration, errc chan error, closeDash func()) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	fmt.Fprintln(a.Stderr, "baton: shutting down")
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	if err := f.Drain(ctx); err != nil {
		slog.Warn("calls still running at the end of the grace period", "err", err)
	}
	f.CloseSessions()
	closeDash() // its live streams would hold Shutdown for the whole grace
	if err := <-done; err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return &ExitError{Code: ExitTool, Err: err}
	}
	return nil
}
