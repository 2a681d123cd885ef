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
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// DefaultAddr is where `baton serve` listens unless --addr says otherwise.
const DefaultAddr = "127.0.0.1:7420"

func (a *App) initCmd() *cobra.Command {
	var slug, prefix, name string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the database (.baton/baton.db) and a project",
		Long: "init creates the database file (default .baton/baton.db under the working directory) and a project.\n" +
			"Without --project the project is named after the working directory. Running it again adds\n" +
			"another project, or confirms an existing one.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if slug == "" {
				slug = a.project
			}
			p := defaultProject(slug, prefix)
			p.Name = name
			s, err := a.openStore(ctx)
			if err != nil {
				return &ExitError{Code: ExitTool, Err: err}
			}
			var existing *baton.Project
			err = s.Update(ctx, func(tx baton.Tx) error {
				if got, err := tx.Project(ctx, p.Slug); err == nil {
					existing = got
					return nil
				}
				return tx.CreateProject(ctx, p)
			})
			if err != nil {
				return a.fail(err)
			}
			path := s.Info(ctx).Path
			if existing != nil {
				fmt.Fprintf(a.Stdout, "%s already holds project %s (prefix %s)\n", path, existing.Slug, existing.Prefix)
				return nil
			}
			fmt.Fprintf(a.Stdout, "initialised %s with project %s (prefix %s): task ids look like %s-1\n", path, p.Slug, p.Prefix, p.Prefix)
			return nil
		},
	}
	cmd.Flags().StringVar(&slug, "project", "", "project slug (default: the working directory's name)")
	cmd.Flags().StringVar(&prefix, "prefix", "", "identifier prefix of the project's items, e.g. SYM (default: from the slug)")
	cmd.Flags().StringVar(&name, "name", "", "display name of the project")
	return cmd
}

// defaultProject fills in what init and a first start leave out: the slug
// from the working directory, the prefix from the slug.
// The working directory becomes the project's root, where move_issue finds
// docs/tickets/.
func defaultProject(slug, prefix string) *baton.Project {
	wd, _ := os.Getwd()
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
		created = defaultProject(a.project, "")
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
	msg := e.Code + ": " + e.Message
	if e.Hint != "" {
		msg += "\nhint: " + e.Hint
	}
	return &ExitError{Code: code, Err: errors.New(msg)}
}

var nonSlug = regexp.MustCompile(`[^a-z0-9_-]+`)

func slugify(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-_")
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
func (a *App) serving(ctx context.Context, toolsets []string, readOnly bool) (*mcpserver.Factory, error) {
	if err := a.usePlugins(ctx); err != nil { // plugin tools join a.Registry (cli/plugins.go)
		return nil, err
	}
	reg, err := selectTools(a.Registry, toolsets, readOnly)
	if err != nil {
		return nil, a.fail(err)
	}
	env, err := a.toolEnv(ctx, reg, serverMode(readOnly))
	if err != nil {
		return nil, &ExitError{Code: ExitTool, Err: err}
	}
	if err := a.ensureProject(ctx, env.Store); err != nil {
		return nil, a.fail(err)
	}
	if ps, ok := env.Store.(*postgres.Store); ok {
		// Other replicas' changes wake this one's subscribers too.
		env.BusHearsAll = true
		go ps.Listen(ctx, env.Bus.Publish, env.Log)
	}
	f := mcpserver.NewFactory(reg, env, a.Version)
	f.Log = env.Log
	go f.Heartbeat(ctx)
	go f.Watch(ctx)
	return f, nil
}

func (a *App) mcpCmd() *cobra.Command {
	var readOnly bool
	var toolsets []string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio (for an agent that starts baton itself)",
		Long: "mcp serves the Model Context Protocol over stdin/stdout. The agent identity comes from --agent\n" +
			"(or BATON_AGENT), the default project from --project; tool arguments never change who you are.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if a.scopeFile != "" {
				// A scope file that cannot be read is a mistake to report
				// now, not on the agent's first call.
				if _, err := tool.ReadScopeFile(a.scopeFile); err != nil {
					return a.fail(err)
				}
			}
			f, err := a.serving(c.Context(), toolsets, readOnly)
			if err != nil {
				return err
			}
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
	cmd.Flags().StringVar(&a.issueID, "issue-id", "", "bind the session to this issue: issue tools default to it")
	cmd.Flags().StringVar(&a.agentType, "agent-type", "", "the agent's profile (worker, researcher, judge, scanner, architect, planner, intake)")
	cmd.Flags().StringVar(&a.worktree, "worktree-path", "", "the agent's assigned worktree, checked by verify_workspace")
	cmd.Flags().StringVar(&a.scopeFile, "tool-scope-file", "", "JSON array of tool names: the session's whole tool set (wins over --agent-type)")
	cmd.Flags().BoolVar(&a.scheduler, "scheduler", false, "a scheduler-initiated session: no scheduler-blocked tools, capped creations")
	cmd.Flags().DurationVar(&a.claimTTL, "claim-ttl", baton.DefaultClaimTTL, "lease of a claim unless the call asks for another")
	cmd.Flags().Float64("rate-limit", mcpserver.DefaultRateLimit, rateLimitUsage)
	a.configFlag(cmd)
	return cmd
}

func (a *App) serveCmd() *cobra.Command {
	var addr string
	var hosts []string
	var readOnly, insecure bool
	var toolsets []string
	var grace, reapEvery time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP over Streamable HTTP at /mcp",
		Long: "serve listens on --addr (default " + DefaultAddr + ") and serves MCP Streamable HTTP at /mcp.\n" +
			"Requests whose Host or Origin names a host other than localhost, 127.0.0.1, ::1 or an\n" +
			"--allowed-host are refused (DNS rebinding). SIGINT or SIGTERM drain the calls under way,\n" +
			"close the sessions and the database, then exit.\n\n" +
			"Every request to /mcp and /events needs `Authorization: Bearer TOKEN` with a token from\n" +
			"`baton agent create NAME --profile P`; the token decides the agent, profile, project and\n" +
			"scheduler mode. --insecure-local drops the tokens (everyone is --agent), on a loopback --addr only.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if insecure && !isLoopback(addr) {
				return usageError("--insecure-local serves without tokens, so only on a loopback --addr (127.0.0.1, ::1 or localhost), not %s", addr)
			}
			rateLimit, err := rateLimitOf(c)
			if err != nil {
				return err
			}
			f, err := a.serving(ctx, toolsets, readOnly)
			if err != nil {
				return err
			}
			f.RateLimit = rateLimit
			opts := mcpserver.HTTPOptions{AllowedHosts: hosts}
			auth := "bearer tokens required (issue one with `baton agent create NAME --profile P`)"
			if insecure {
				p := a.principal(baton.SourceHTTP, "anonymous")
				opts.Principal = func(*http.Request) baton.Principal { return p }
				auth = "insecure-local: no tokens, every request runs as " + p.Agent
			} else {
				opts.Authenticator = &mcpserver.Authenticator{Store: f.Env.Store, Project: a.project, Clock: a.Clock}
			}
			h := f.Handler(opts)
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return &ExitError{Code: ExitTool, Err: baton.Errorf(baton.ErrInitFailed, "cannot listen on %s: %v", addr, err).
					WithHint("pick a free address with --addr, e.g. --addr 127.0.0.1:7421")}
			}
			srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
			reapCtx, stopReaper := context.WithCancel(ctx)
			defer stopReaper()
			go (&orchestrator.Reaper{Store: f.Env.Store, Every: reapEvery, Clock: a.Clock, Log: f.Env.Log}).Run(reapCtx)
			fmt.Fprintf(a.Stderr, "baton %s serving MCP at http://%s/mcp (database %s)\n", a.Version, ln.Addr(), a.dbName(ctx))
			fmt.Fprintf(a.Stderr, "baton: %s\n", auth)
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				return &ExitError{Code: ExitTool, Err: err}
			case <-ctx.Done():
			}
			return a.shutdown(srv, f, grace, errc)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", DefaultAddr, "address to listen on")
	cmd.Flags().StringSliceVar(&hosts, "allowed-host", nil, "extra host name accepted in Host/Origin headers (repeatable)")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "offer only read-only tools")
	cmd.Flags().StringSliceVar(&toolsets, "toolsets", []string{"all"}, toolsetsUsage)
	cmd.Flags().DurationVar(&grace, "shutdown-grace", 10*time.Second, "how long shutdown waits for calls under way")
	cmd.Flags().DurationVar(&reapEvery, "reap-every", 10*time.Second, "how often lapsed claims return their work to the queue")
	cmd.Flags().BoolVar(&insecure, "insecure-local", false, "serve without tokens, every request as --agent (loopback --addr only)")
	cmd.Flags().Float64("rate-limit", mcpserver.DefaultRateLimit, rateLimitUsage)
	a.configFlag(cmd)
	cmd.Flags().DurationVar(&a.claimTTL, "claim-ttl", baton.DefaultClaimTTL, "lease of a claim unless the call asks for another")
	return cmd
}

// shutdown stops accepting connections, lets the tool calls under way
// finish (each commits or rolls back whole), then ends the sessions and
// their streams. The store is closed by Run after the command returns.
func (a *App) shutdown(srv *http.Server, f *mcpserver.Factory, grace time.Duration, errc chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	fmt.Fprintln(a.Stderr, "baton: shutting down")
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	if err := f.Drain(ctx); err != nil {
		slog.Warn("calls still running at the end of the grace period", "err", err)
	}
	f.CloseSessions()
	if err := <-done; err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return &ExitError{Code: ExitTool, Err: err}
	}
	return nil
}
