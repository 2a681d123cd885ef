package cli

import (
	"fmt"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton/orchestrator"
	"github.com/spf13/cobra"
)

// orchestratorCmd is `baton orchestrator tick`: one tick of the phase
// pipeline by hand, what baton serve does every --tick-every.
func (a *App) orchestratorCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "orchestrator", Short: "Run the orchestrator's phase-pipeline tick by hand (baton serve runs it every 5 s)", Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	var maxRejections int
	var gateTimeout time.Duration
	tick := &cobra.Command{
		Use:   "tick",
		Short: "Process the phase pipeline's unprocessed claims and verdicts once",
		Long: "tick reads the phase_completion claims (complete_phase) and phase_verdict findings (approve_phase,\n" +
			"reject_phase) no tick has processed, oldest first, and for each: drops a claim whose phase the issue\n" +
			"has left; checks a pre-ready claim again against its contract and artifact, then moves the issue to\n" +
			"review for a judge, or back to todo with needs-revision and a comment saying why; opens the PR of a\n" +
			"ready claim from the issue's branch (running the project's gates); applies a judge's approval (next\n" +
			"phase label, status todo, the artifact promoted to promote_to) or rejection (todo, needs-revision);\n" +
			"after --max-rejections rejections of one phase the issue is blocked and you get a message. Every\n" +
			"finding is marked processed once; running tick again does nothing more. baton serve ticks every\n" +
			"--tick-every; replicas on one PostgreSQL database tick each project one at a time.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			p := &orchestrator.Phases{Store: s, Clock: a.Clock, Bus: a.bus, MaxRejections: maxRejections, GateTimeout: gateTimeout,
				Log: slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
			r, tickErr := p.Once(ctx)
			if wantJSON(c) {
				if err := a.printJSON(r); err != nil {
					return err
				}
			} else {
				a.printTick(r)
			}
			if tickErr != nil {
				return a.fail(tickErr)
			}
			if len(r.Errors) > 0 {
				return &ExitError{Code: ExitTool, Err: fmt.Errorf("%d findings could not be processed; they stay pending for the next tick", len(r.Errors))}
			}
			return nil
		},
	}
	tick.Flags().IntVar(&maxRejections, "max-rejections", orchestrator.DefaultMaxRejections, "rejections of one phase after which the issue is blocked for you")
	tick.Flags().DurationVar(&gateTimeout, "gate-timeout", 10*time.Minute, "time limit of each gate command run for a ready claim's PR")
	a.jsonFlag(tick, `{"projects": N projects with unprocessed findings ticked, "skipped": [projects another replica was ticking], "transitions": [{"finding_id", "issue_id",
"project", "phase", "outcome": stale, awaiting_verdict, pr_created, rejected, escalated, advanced or ignored, "reason", "next_phase",
"status", "pr_id", "promoted_to", "rejections", "message_id"}], "waiting": verdicts whose claim is not processed yet,
"errors": ["finding: error", ...]}; exit 1 when a finding could not be processed.`)
	cmd.AddCommand(tick)
	return cmd
}

// printTick shows a tick's report: one line per finding processed.
func (a *App) printTick(r *orchestrator.TickReport) {
	if len(r.Transitions) == 0 {
		fmt.Fprintln(a.Stdout, "nothing to process")
	} else {
		tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "FINDING\tISSUE\tPHASE\tOUTCOME\tSTATUS\tREASON")
		for _, t := range r.Transitions {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cleanLine(t.FindingID), cleanLine(t.IssueID), cleanLine(t.Phase),
				t.Outcome, t.Status, cleanLine(t.Reason))
		}
		tw.Flush()
	}
	if r.Waiting > 0 {
		fmt.Fprintf(a.Stdout, "%d verdicts wait for their claim to be processed first\n", r.Waiting)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(a.Stdout, "%s: another replica is ticking it\n", s)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(a.Stderr, "baton: %s\n", cleanLine(e))
	}
}
