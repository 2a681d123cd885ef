package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/spf13/cobra"
)

// runView is a run as baton runs list and show print it.
type runView struct {
	ID         string  `json:"id"`
	Issue      string  `json:"issue"`
	Agent      string  `json:"agent"`
	Profile    string  `json:"profile"`
	Attempt    int     `json:"attempt"`
	Status     string  `json:"status"`
	Error      string  `json:"error"`
	Host       string  `json:"host"`
	PID        int     `json:"pid"`
	Worktree   string  `json:"worktree"`
	ExitCode   *int    `json:"exit_code"`
	StartedAt  string  `json:"started_at"`
	EndedAt    string  `json:"ended_at,omitempty"`
	DurationMS int64   `json:"duration_ms"` // so far, for a running run
	CostUSD    float64 `json:"cost_usd"`
	NumTurns   int     `json:"num_turns"`
	Model      string  `json:"model"`
	Events     int     `json:"events"`
}

func viewRun(r *baton.Run, now time.Time) runView {
	v := runView{ID: r.ID, Issue: r.ItemID, Agent: r.Agent, Profile: r.Profile, Attempt: r.Attempt, Status: r.Status, Error: r.Error,
		Host: r.Host, PID: r.PID, Worktree: r.Worktree, ExitCode: r.ExitCode, StartedAt: baton.Timestamp(r.StartedAt),
		DurationMS: r.DurationMS, CostUSD: r.CostUSD, NumTurns: r.NumTurns, Model: r.Model, Events: r.EventCount}
	if !r.EndedAt.IsZero() {
		v.EndedAt = baton.Timestamp(r.EndedAt)
	}
	if r.Status == baton.RunRunning {
		v.DurationMS = now.Sub(r.StartedAt).Milliseconds()
	}
	return v
}

func (a *App) runsListCmd() *cobra.Command {
	var f baton.RunFilter
	cmd := &cobra.Command{
		Use:   "list [--status S] [--issue ID] [--profile P] [--limit N]",
		Short: "List agent runs, newest first: what runs where, for how long, at what cost",
		Long: "list shows runs newest first (--project, --issue, --status running|succeeded|failed|timed_out|cancelled,\n" +
			"--profile; --limit, default 50, at most 500): the issue, profile, attempt, status, the host and process\n" +
			"of a dispatched run, how long it ran (so far, while running) and its cost.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if f.Limit < 0 || f.Limit > 500 {
				return usageError("--limit %d is outside 1..500", f.Limit)
			}
			switch f.Status {
			case "", baton.RunRunning, baton.RunSucceeded, baton.RunFailed, baton.RunTimedOut, baton.RunCancelled:
			default:
				return usageError("--status %q is not one of running, succeeded, failed, timed_out, cancelled", f.Status)
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			f.Project = a.project
			var rs []*baton.Run
			if err := s.View(ctx, func(tx baton.Tx) error {
				var err error
				rs, err = tx.ListRuns(ctx, f)
				return err
			}); err != nil {
				return a.fail(err)
			}
			now := a.agentNow()
			out := make([]runView, len(rs))
			for i, r := range rs {
				out[i] = viewRun(r, now)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"runs": out, "count": len(out)})
			}
			if len(out) == 0 {
				fmt.Fprintln(a.Stdout, "no runs")
				return nil
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tISSUE\tPROFILE\tTRY\tSTATUS\tWHERE\tSTARTED\tDURATION\tCOST")
			for _, v := range out {
				where := "-"
				if v.Host != "" {
					where = fmt.Sprintf("%s pid %d", v.Host, v.PID)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t$%.4f\n", cleanLine(v.ID), cleanLine(v.Issue), cleanLine(dash(v.Profile)),
					v.Attempt, cleanLine(v.Status), cleanLine(where), v.StartedAt,
					(time.Duration(v.DurationMS) * time.Millisecond).Round(time.Second), v.CostUSD)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&f.Status, "status", "", "only runs in this status (running, succeeded, failed, timed_out, cancelled)")
	cmd.Flags().StringVar(&f.ItemID, "issue", "", "only runs of this issue")
	cmd.Flags().StringVar(&f.Profile, "profile", "", "only runs of this profile")
	cmd.Flags().IntVar(&f.Limit, "limit", 50, "at most this many (1..500)")
	a.jsonFlag(cmd, `{"runs": [{"id", "issue", "agent", "profile", "attempt", "status", "error", "host", "pid", "worktree", "exit_code",
"started_at", "ended_at", "duration_ms", "cost_usd", "num_turns", "model", "events"}], "count": N}.`)
	return cmd
}

func (a *App) runsShowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: its outcome and the tail of its agent's stdout and stderr",
		Long: "show prints a run's fields and the output its agent wrote (the tails baton dispatch keeps, capped by\n" +
			"[dispatch] output_limit); query_run_events (baton issues query_run_events) reads its event stream.",
		Args: agentArgs(1, "one run id"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var r *baton.Run
			var out *baton.RunOutput
			if err := s.View(ctx, func(tx baton.Tx) error {
				var err error
				if r, err = tx.Run(ctx, args[0]); err != nil {
					return err
				}
				out, err = tx.RunOutput(ctx, r.ID)
				return err
			}); err != nil {
				return a.fail(err)
			}
			v := viewRun(r, a.agentNow())
			if wantJSON(c) {
				return a.printJSON(map[string]any{"run": v, "output": map[string]any{"stdout": out.Stdout, "stderr": out.Stderr,
					"stdout_dropped": out.StdoutDropped, "stderr_dropped": out.StderrDropped}})
			}
			fmt.Fprintf(a.Stdout, "%s on %s: %s (%s, attempt %d, agent %s)\n", cleanLine(v.ID), cleanLine(v.Issue), cleanLine(v.Status),
				cleanLine(dash(v.Profile)), v.Attempt, cleanLine(v.Agent))
			if v.Error != "" {
				fmt.Fprintf(a.Stdout, "error: %s\n", cleanLine(v.Error))
			}
			fmt.Fprintf(a.Stdout, "started %s, %s, $%.4f, %d turns, %d events", v.StartedAt,
				(time.Duration(v.DurationMS) * time.Millisecond).Round(time.Millisecond), v.CostUSD, v.NumTurns, v.Events)
			if v.ExitCode != nil {
				fmt.Fprintf(a.Stdout, ", exit %d", *v.ExitCode)
			}
			fmt.Fprintln(a.Stdout)
			if v.Host != "" {
				fmt.Fprintf(a.Stdout, "ran on %s (pid %d) in %s\n", cleanLine(v.Host), v.PID, cleanLine(v.Worktree))
			}
			for _, o := range []struct {
				name    string
				text    string
				dropped int64
			}{{"stdout", out.Stdout, out.StdoutDropped}, {"stderr", out.Stderr, out.StderrDropped}} {
				if o.text == "" {
					continue
				}
				fmt.Fprintf(a.Stdout, "--- %s", o.name)
				if o.dropped > 0 {
					fmt.Fprintf(a.Stdout, " (the first %d bytes were dropped)", o.dropped)
				}
				fmt.Fprintln(a.Stdout, " ---")
				fmt.Fprintln(a.Stdout, strings.TrimRight(cleanText(o.text), "\n"))
			}
			return nil
		},
	}
	a.jsonFlag(cmd, `{"run": {as baton runs list}, "output": {"stdout", "stderr", "stdout_dropped", "stderr_dropped"}}.`)
	return cmd
}
