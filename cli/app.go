// Package cli is baton's command line: the server commands (init, mcp,
// serve), the tool listing, and one subcommand per tool generated from the
// registry, so the CLI and MCP share every schema, rule and message.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/plugin"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/capabilities"
	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitTool  = 1 // the tool ran and failed
	ExitUsage = 2 // the command line or the arguments were wrong
)

// ExitError carries an exit code out of a command.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

func usageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// App is one invocation of baton.
type App struct {
	Registry *tool.Registry
	Version  string
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	Getenv   func(string) string
	Clock    baton.Clock

	dbPath    string    // --db or BATON_DB; empty means find it (Locate)
	loc       *Location // the database found, once per invocation
	mayCreate bool      // this command may create the database (init, serve)
	preset    string    // --preset of mcp, serve and tools
	agent     string
	project   string
	// Session binding of baton mcp.
	issueID, agentType, worktree string
	scopeFile                    string // --tool-scope-file
	scheduler                    bool   // --scheduler
	claimTTL                     time.Duration
	started                      time.Time
	store                        baton.Store
	bus                          *events.Bus
	pluginConfig                 string      // --config: the plugin file (cli/plugins.go)
	plugins                      *plugin.Set // connected plugins, closed when baton ends
	// background is the work a serving command leaves running beside its
	// sessions (presence heartbeats, the event watch, PostgreSQL's
	// listener, serve's audit checkpointer). It reads the store, so Run
	// ends it, and waits for it, before closing the store: a read that
	// began after the close would open the database again.
	background struct {
		cancels []context.CancelFunc
		wg      sync.WaitGroup
	}
	// schemaFlags adds, to a tool's command, the flags and usage its
	// input schema gives; root runs it only for the command that runs
	// (materialize), since building every tool's schema is most of a CLI
	// command's start.
	schemaFlags map[*cobra.Command]func()
}

// goBackground runs fn until the command ends (Run's stopBackground).
func (a *App) goBackground(ctx context.Context, fn func(context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	a.background.cancels = append(a.background.cancels, cancel)
	a.background.wg.Add(1)
	go func() {
		defer a.background.wg.Done()
		fn(ctx)
	}()
}

// stopBackground ends what goBackground started and waits for it.
func (a *App) stopBackground() {
	for _, cancel := range a.background.cancels {
		cancel()
	}
	a.background.wg.Wait()
}

// Run executes baton with args and returns the process exit code.
func (a *App) Run(ctx context.Context, args []string) int {
	if a.Getenv == nil {
		a.Getenv = os.Getenv
	}
	a.started = time.Now()
	a.bus = events.NewBus()
	if path := a.Getenv("BATON_CPUPROFILE"); path != "" {
		// For performance work: the invocation's CPU profile, for
		// `go tool pprof` (several runs' files can be given at once).
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	root := a.root(args...)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	a.stopBackground()
	if cerr := a.plugins.Close(); cerr != nil {
		fmt.Fprintln(a.Stderr, "baton: closing plugins:", cerr)
	}
	if a.store != nil {
		if cerr := a.store.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil && ee.Err.Error() != "" {
			fmt.Fprintln(a.Stderr, "error:", cleanText(ee.Err.Error()))
		}
		return ee.Code
	}
	fmt.Fprintln(a.Stderr, "error:", cleanText(err.Error()))
	return ExitTool
}

// root builds the command tree for args (nil: the whole tree).
func (a *App) root(args ...string) *cobra.Command {
	root := &cobra.Command{
		Use:   "baton",
		Short: "Coordination server for teams of AI coding agents",
		Long: "baton gives coding agents and the people running them a shared, permissioned place to track work,\n" +
			"claim it, review it, talk and prove afterwards what happened. Agents connect over MCP (baton mcp,\n" +
			"baton serve); people use these commands.",
		Version:       a.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// The default completion command stays listed (`baton completion
		// bash|zsh|fish|powershell`): the README says how to install it.
	}
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError("%v (see %s --help)", err, c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.dbPath, "db", a.env("BATON_DB", ""), "database: a SQLite file, or a postgres:// URL (env BATON_DB; default: the nearest .baton/baton.db\nwalking up from here, as git finds .git; from a git worktree, the main repository's)")
	pf.StringVar(&a.agent, "agent", a.env("BATON_AGENT", ""), "who you act as (env BATON_AGENT; default user for the CLI, anonymous for mcp/serve)")
	pf.StringVar(&a.project, "project", a.env("BATON_PROJECT", ""), "default project slug (env BATON_PROJECT)")
	// Privileged tools come only by grant: the person at the CLI names a
	// profile that has one, as an agent's session does (issue 12).
	pf.StringVar(&a.agentType, "agent-type", "", "act with the tools of `PROFILE`, e.g. one granted a privileged tool by baton profile allow (default: no profile: every tool but the privileged ones)")

	root.AddGroup(commandGroups()...) // groups.go: every command is in the group of what it holds
	root.SetHelpCommandGroupID(groupSetup)
	root.SetCompletionCommandGroupID(groupSetup)
	add := func(cs ...*cobra.Command) {
		for _, c := range cs {
			c.GroupID = commandGroup(c.Name())
			root.AddCommand(c)
		}
	}
	// `baton mcp`, which agents start again and again, gets no other
	// command: building the rest of the tree (every tool's CLI command
	// too, flags from its input schema) would be most of a server's
	// start, and its code would stay resident in every idle server.
	mcp := a.mcpCmd()
	add(mcp)
	if c, _, err := root.Find(args); err != nil || c != mcp {
		add(append([]*cobra.Command{a.initCmd(), a.serveCmd(), a.agentCmd(), a.toolsCmd(), a.profileCmd(), a.projectCmd(),
			a.exportCmd(), a.importCmd(), // cli/export.go
			a.migrateCmd(), a.readyCmd(), a.runsCmd(), a.memoryCmd(), a.inboxCmd(), a.replyCmd(), a.watchCmd(), a.benchCmd(), a.versionCmd(), a.doctorCmd(), a.setupCmd(),
			a.worktreeCmd(), a.prsCmd(), a.prCmd(), a.orchestratorCmd(), a.knowledgeCmd(), a.dispatchCmd(), a.hooksCmd()}, a.backupCmds()...)...)
		a.toolsetCommands(root)
		a.materialize(root, args)
	}
	root.Args = noArgs
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	a.addCompletions(root) // groups.go: names (profiles, projects, ids) for shell completion
	return root
}

// toolsetCommands adds `baton <toolset> <tool>` for every tool, with the
// commands that live beside them.
func (a *App) toolsetCommands(root *cobra.Command) {
	hasCapabilities := false
	for _, c := range mergeCommands(a.toolsetCmds(), a.skillsCmd()) {
		placeToolset(c)
		switch c.Name() {
		case "audit":
			c.AddCommand(a.auditCmds()...)
		case "proposals":
			c.AddCommand(a.proposalCmds()...)
		case "claims":
			c.AddCommand(a.forceReleaseCmd())
		case capabilities.Toolset:
			a.capabilitiesCmd(c) // `baton capabilities` writes and prints the summary
			hasCapabilities = true
		}
		root.AddCommand(c)
	}
	if !hasCapabilities { // a registry without the toolset still has the command
		c := a.capabilitiesCmd(nil)
		placeToolset(c)
		root.AddCommand(c)
	}
}

// noArgs refuses positional arguments, which no baton command takes; an
// unknown subcommand lands here too, and both are usage errors.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError("unknown command %q for %s (see %s --help)", args[0], c.CommandPath(), c.CommandPath())
	}
	return nil
}

func (a *App) env(key, def string) string {
	if v := a.Getenv(key); v != "" {
		return v
	}
	return def
}

// openStore opens the database once per invocation.
func (a *App) openStore(ctx context.Context) (baton.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	loc := a.location()
	if postgres.IsURL(loc.Path) {
		s, err := postgres.Open(ctx, loc.Path, postgres.Options{Clock: a.Clock})
		if err != nil {
			return nil, err
		}
		a.store = s
		return s, nil
	}
	if !loc.Exists && !a.mayCreate {
		// Reading never creates: an agent in the wrong directory gets told,
		// instead of silently starting an empty database of its own.
		return nil, loc.missing()
	}
	s, err := openSQLite(ctx, loc.Path, a.Clock)
	if err != nil {
		return nil, err
	}
	a.store = s
	return s, nil
}

func (a *App) toolEnv(ctx context.Context, reg *tool.Registry, mode string) (*tool.Env, error) {
	emb, err := a.configuredEmbedder() // [embedding] of baton.toml (cli/knowledge.go)
	if err != nil {
		return nil, err
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	return &tool.Env{
		Store: s, Clock: a.Clock, Registry: reg, DataDir: a.dataDir(ctx, s),
		Server:   tool.ServerInfo{Version: a.Version, Mode: mode, Started: a.started},
		ClaimTTL: a.claimTTL,
		Embedder: emb,
		Bus:      a.bus,
		Log:      slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}, nil
}

// dirOf is the directory baton keeps its files in: the database's.
func dirOf(dbPath string) string { return filepath.Dir(dbPath) }

// dataDir is where baton keeps files beside the database (agent memory):
// the SQLite file's directory, or, on PostgreSQL, .baton in the working
// directory (a volume every replica shares, see docs/deployment.md).
func (a *App) dataDir(ctx context.Context, s baton.Store) string {
	if info := s.Info(ctx); info.Driver == "sqlite" {
		return dirOf(info.Path)
	}
	if root := a.location().Root; root != "" {
		return filepath.Join(root, ".baton")
	}
	abs, err := filepath.Abs(".baton")
	if err != nil {
		return ".baton"
	}
	return abs
}

// dbName is the database as messages show it: the file, or the URL
// without its password.
func (a *App) dbName(ctx context.Context) string {
	if a.store != nil {
		return a.store.Info(ctx).Path
	}
	return a.location().Path
}

func (a *App) principal(source baton.Source, defaultAgent string) baton.Principal {
	agent := a.agent
	if agent == "" {
		agent = defaultAgent
	}
	scopeFile := a.scopeFile
	if scopeFile != "" {
		// The session reads the file later, maybe from another directory.
		if abs, err := filepath.Abs(scopeFile); err == nil {
			scopeFile = abs
		}
	}
	return baton.Principal{Agent: agent, Project: a.project, Source: source, IssueID: a.issueID,
		AgentType: a.agentType, Profile: a.agentType, WorktreePath: a.worktree, ScopeFile: scopeFile, SchedulerMode: a.scheduler,
		Preset: a.preset}
}
