package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/dispatch"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/postgres"
	"github.com/spf13/cobra"
)

// dispatchCmd is `baton dispatch`: agents started on ready work.
func (a *App) dispatchCmd() *cobra.Command {
	var once, dry bool
	cmd := &cobra.Command{
		Use:   "dispatch [--once] [--dry-run]",
		Short: "Start an agent per ready item, each in its worktree and bound to its issue; retry and recover",
		Long: "dispatch takes ready work as claim_next does, phase and profile aware: PRs and phase claims awaiting a verdict\n" +
			"go to the judge profile, phase:research and phase:architecture items to the profile their contract names\n" +
			"(researcher), phase:grooming to planner, ready items to worker; up to max_agents per project (and a profile's\n" +
			"own max_agents). For each it claims the item, makes or reuses its worktree, writes the prompt, the tool-scope\n" +
			"file and an MCP configuration that starts `baton mcp` bound to the item, and runs the profile's command from\n" +
			"[dispatch] in baton.toml (docs/dispatch.md) in the worktree, with BATON_ISSUE, BATON_PROFILE and\n" +
			"BATON_MCP_CONFIG set. It renews the claim while the agent runs, records the run (its stream-json events,\n" +
			"cost, duration, output tail: baton runs), stops an agent at its timeout or when its lease is lost, retries a\n" +
			"failed item with backoff, and after max_retries blocks it and messages you.\n\n" +
			"Without --once it runs until SIGINT or SIGTERM, which stop the agents (SIGTERM, then SIGKILL after the grace\n" +
			"period) and give their claims back. One dispatcher per project per host; on PostgreSQL, dispatchers on\n" +
			"several hosts share the work. baton serve --dispatch runs one inside the server.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			d, release, err := a.dispatcher(ctx, !dry)
			if err != nil {
				return a.fail(err)
			}
			defer release()
			switch {
			case dry:
				r, err := d.Tick(ctx, true)
				if err != nil {
					return a.fail(err)
				}
				if wantJSON(c) {
					return a.printJSON(r)
				}
				a.printDispatch(r, nil, true)
				return nil
			case once:
				r, fin, err := d.Once(ctx)
				if fin == nil {
					fin = []*dispatch.Finished{}
				}
				if r != nil {
					if wantJSON(c) {
						if err := a.printJSON(map[string]any{"tick": r, "finished": fin}); err != nil {
							return err
						}
					} else {
						a.printDispatch(r, fin, false)
					}
				}
				if err != nil {
					return a.fail(err)
				}
				return nil
			}
			fmt.Fprintf(a.Stderr, "baton: dispatching (%s); SIGINT or SIGTERM stops the agents and exits\n", d.ID())
			return d.Run(ctx)
		},
	}
	cmd.Flags().BoolVar(&once, "once", false, "start agents for what is ready now, wait for them, process their results, exit")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print what would start now; claim nothing, run nothing")
	cmd.Flags().StringVar(&a.pluginConfig, "config", "", "the file whose [dispatch] table configures the agents (env BATON_CONFIG; default ./baton.toml)")
	a.jsonFlag(cmd, `--dry-run: {"started": [{"project", "issue", "title", "profile", "kind", "phase", "attempt", "agent", "command"}],
"skipped": [{"project", "issue", "profile", "reason"}], "reconciled", "running", "errors"}; --once: {"tick": that,
"finished": [{"run_id", "issue", "project", "profile", "agent", "attempt", "status", "error", "exit_code", "duration_ms",
"cost_usd", "worktree", "retry_at", "blocked", "message_id"}]}.`)
	return cmd
}

// dispatcher wires a dispatcher to this command's database, config and
// tools. locked takes the per-host lock of every project it serves (a dry
// run needs none); release gives them back.
func (a *App) dispatcher(ctx context.Context, locked bool) (*dispatch.Dispatcher, func(), error) {
	path, named := a.embeddingConfig() // --config, BATON_CONFIG, ./baton.toml
	cfg, err := dispatch.Load(path, named)
	if err != nil {
		return nil, nil, err
	}
	if len(cfg.Profiles) == 0 {
		return nil, nil, baton.Errorf(baton.ErrConfigInvalid, "%s has no [dispatch.profiles.*] table: there is no agent to start", path).
			WithDetails("file", path, "field", "dispatch.profiles").
			WithHint("add one per profile to dispatch, e.g. [dispatch.profiles.worker] with command = [\"claude\", \"-p\", \"{prompt}\", \"--mcp-config\", \"{mcp_config}\"] (docs/dispatch.md)")
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return nil, nil, err
	}
	return a.newDispatcher(ctx, s, cfg, locked)
}

// newDispatcher builds the dispatcher of store s with cfg, for baton
// dispatch and baton serve --dispatch.
func (a *App) newDispatcher(ctx context.Context, s baton.Store, cfg *dispatch.Config, locked bool) (*dispatch.Dispatcher, func(), error) {
	db := a.location().Path
	lockDir := ""
	if postgres.IsURL(db) {
		if cache, err := os.UserCacheDir(); err == nil {
			lockDir = filepath.Join(cache, "baton")
		} else {
			lockDir = filepath.Join(os.TempDir(), fmt.Sprintf("baton-%d", os.Getuid())) // made 0700 by Acquire
		}
	} else {
		if abs, err := filepath.Abs(db); err == nil {
			db = abs
		}
		lockDir = filepath.Dir(db)
	}
	env, err := a.toolEnv(ctx, a.Registry, "FULL")
	if err != nil {
		return nil, nil, err
	}
	logger := slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	d := &dispatch.Dispatcher{Store: s, Config: cfg, DB: db, DataDir: env.DataDir, Clock: a.Clock, Bus: a.bus, Log: logger,
		Repo: a.repoOf,
		Tools: func(ctx context.Context, profile, project string) ([]string, error) {
			sc, err := env.Scope(ctx, baton.Principal{Profile: profile, AgentType: profile, Project: project, Source: baton.SourceStdio})
			if err != nil {
				return nil, err
			}
			return sc.Names(a.Registry), nil
		},
		Phases: &orchestrator.Phases{Store: s, Clock: a.Clock, Bus: a.bus, Log: logger}}
	if a.project != "" {
		d.Projects = []string{a.project}
	}
	if !locked {
		return d, func() {}, nil
	}
	var slugs []string
	if err := s.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.Projects(ctx)
		for _, p := range ps {
			if a.project == "" || p.Slug == a.project {
				slugs = append(slugs, p.Slug)
			}
		}
		return err
	}); err != nil {
		return nil, nil, err
	}
	if len(slugs) == 0 {
		if a.project != "" {
			return nil, nil, baton.Errorf(baton.ErrNotFound, "no project %q", a.project).WithDetails("project", a.project).
				WithHint("baton project list shows the projects")
		}
		return nil, nil, baton.Errorf(baton.ErrNotFound, "the database has no project to dispatch").
			WithHint("create one with baton init --project SLUG, then start the dispatcher")
	}
	var locks []*dispatch.Lock
	release := func() {
		for _, l := range locks {
			l.Release()
		}
	}
	for _, slug := range slugs {
		l, err := dispatch.Acquire(dispatch.LockFile(lockDir, db, slug), slug)
		if err != nil {
			release()
			return nil, nil, err
		}
		locks = append(locks, l)
	}
	// Only the projects locked: one made later could be locked by another
	// dispatcher of this host, and two would end each other's runs.
	d.Projects = slugs
	return d, release, nil
}

// printDispatch shows a tick (and, for --once, the runs that ended).
func (a *App) printDispatch(r *dispatch.TickReport, fin []*dispatch.Finished, dry bool) {
	verb := "started"
	if dry {
		verb = "would start"
	}
	if len(r.Started) == 0 {
		fmt.Fprintf(a.Stdout, "nothing to start: no ready work for a configured profile\n")
	} else {
		fmt.Fprintf(a.Stdout, "%s %d agents:\n", verb, len(r.Started))
		tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "ISSUE\tPROFILE\tKIND\tATTEMPT\tAGENT\tRUN\tCOMMAND")
		for _, s := range r.Started {
			run := s.RunID
			if run == "" {
				run = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", cleanLine(s.Item), s.Profile, s.Kind, s.Attempt, s.Agent, run,
				cleanLine(clipText(strings.Join(s.Command, " "), 80)))
		}
		tw.Flush()
	}
	for _, s := range r.Skipped {
		who := s.Project
		if s.Item != "" {
			who += " " + s.Item
		}
		fmt.Fprintf(a.Stdout, "waiting: %s: %s\n", cleanLine(who), cleanLine(s.Reason))
	}
	for _, f := range r.Reconciled {
		fmt.Fprintf(a.Stdout, "ended %s of %s: %s\n", f.RunID, cleanLine(f.Item), cleanLine(f.Error))
	}
	if len(fin) > 0 {
		tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "RUN\tISSUE\tPROFILE\tSTATUS\tDURATION\tCOST\tNEXT")
		for _, f := range fin {
			next := "-"
			switch {
			case f.Blocked:
				next = "blocked: you have a message"
			case f.RetryAt != "":
				next = "retry at " + f.RetryAt
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t$%.4f\t%s\n", f.RunID, cleanLine(f.Item), f.Profile, f.Status,
				(time.Duration(f.DurationMS) * time.Millisecond).Round(time.Millisecond), f.CostUSD, next)
		}
		tw.Flush()
		for _, f := range fin {
			if f.Error != "" {
				fmt.Fprintf(a.Stdout, "%s: %s\n", f.RunID, cleanLine(clipText(f.Error, 300)))
			}
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(a.Stderr, "baton: %s\n", cleanLine(e))
	}
}

// clipText cuts s to n runes with an ellipsis.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
