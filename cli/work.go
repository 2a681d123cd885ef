package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/memory"
	"github.com/baton-dev/baton/runs"
	"github.com/spf13/cobra"
)

// runsCmd is `baton runs ingest`: where the runs that get_issue_status and
// query_run_events report come from.
func (a *App) runsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "runs", Short: "Agent runs: list them, show one, record one from a stream", Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	var issue string
	ingest := &cobra.Command{
		Use:   "ingest --issue ID < stream.jsonl",
		Short: "Record a run from an agent's stream-json output on stdin",
		Long: "ingest reads an agent's stream-json output (claude -p --output-format stream-json --verbose) from stdin\n" +
			"and records the run (status, error, cost, duration) and its events on the issue. The run's agent is --agent.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if issue == "" {
				return usageError("--issue is required")
			}
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			now := time.Now().UTC()
			if a.Clock != nil {
				now = a.Clock().UTC()
			}
			p, err := runs.Parse(a.Stdin, now)
			if err != nil {
				return a.fail(err)
			}
			p.Run.ItemID, p.Run.Agent, p.Run.EndedAt = issue, a.principal(baton.SourceCLI, "user").Agent, now
			err = s.Update(ctx, func(tx baton.Tx) error {
				if err := tx.CreateRun(ctx, &p.Run, p.Events); err != nil {
					return err
				}
				return record(ctx, tx, "runs_ingest", "run.ingested", p.Run.Agent, "", issue,
					map[string]any{"issue": issue, "events": len(p.Events)}, p.Run, now)
			})
			if err != nil {
				return a.fail(err)
			}
			r := p.Run
			if wantJSON(c) {
				return a.printJSON(map[string]any{"run": map[string]any{"id": r.ID, "issue": issue, "agent": r.Agent, "status": r.Status,
					"error": r.Error, "events": r.EventCount, "cost_usd": r.CostUSD, "duration_ms": r.DurationMS}, "skipped_lines": p.Skipped})
			}
			fmt.Fprintf(a.Stdout, "recorded run %s on %s: %s, %d events, $%.4f, %s\n", cleanLine(r.ID), cleanLine(issue),
				cleanLine(r.Status), r.EventCount, r.CostUSD, time.Duration(r.DurationMS)*time.Millisecond)
			if r.Error != "" {
				fmt.Fprintf(a.Stdout, "error: %s\n", cleanLine(r.Error)) // from the agent's own stream
			}
			if p.Skipped > 0 {
				fmt.Fprintf(a.Stderr, "baton: skipped %d lines that were not JSON objects\n", p.Skipped)
			}
			return nil
		},
	}
	ingest.Flags().StringVar(&issue, "issue", "", "the issue the run worked on (required)")
	a.jsonFlag(ingest, `{"run": {"id", "issue", "agent", "status", "error", "events", "cost_usd", "duration_ms"}, "skipped_lines": N}.`)
	cmd.AddCommand(ingest, a.runsListCmd(), a.runsShowCmd())
	return cmd
}

// record is what a tool call's pipeline does after a change, for the CLI's
// own changes: an action in the audit log and an event for subscribers,
// in the same transaction.
// The event joins project's stream, or the subject's project when "".
func record(ctx context.Context, tx baton.Tx, tool, event, agent, project, subject string, in, out any, at time.Time) error {
	if project == "" && subject != "" {
		if it, err := tx.Item(ctx, subject); err == nil {
			project = it.Project
		}
	}
	return audit.Record(ctx, tx, audit.Change{Agent: agent, Source: string(baton.SourceCLI), Tool: tool, Subject: subject,
		In: in, Out: out, At: at, Event: event, Project: project})
}

// memoryCmd is `baton memory show`: an agent's memory as it goes into its
// prompt.
func (a *App) memoryCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "memory", Short: "Read agents' memory", Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	var profile string
	show := &cobra.Command{
		Use:   "show --profile P [--project S]",
		Short: "Print a profile's memory (global, then the project's) for prompt injection",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if profile == "" {
				return usageError("--profile is required")
			}
			s, err := a.openStore(c.Context())
			if err != nil {
				return a.fail(err)
			}
			dataDir := a.dataDir(c.Context(), s)
			project := a.project
			if project == "" {
				// With one project it is the default here too; with
				// several, no --project means global memory only.
				if only, err := a.projectOf(c.Context(), s); err == nil {
					project = only
				}
			}
			out, err := memory.Show(dataDir, project, profile)
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"profile": profile, "project": project, "memory": out})
			}
			fmt.Fprint(a.Stdout, out)
			return nil
		},
	}
	show.Flags().StringVar(&profile, "profile", "", "agent profile, e.g. worker (required)")
	a.jsonFlag(show, `{"profile", "project" (--project, else the only project; "" for global memory only), "memory": the text as printed without --json}.`)
	cmd.AddCommand(show)
	return cmd
}

// projectOf is the project a command means: --project (which must exist),
// else the only project there is.
func (a *App) projectOf(ctx context.Context, s baton.Store) (string, error) {
	slug := a.project
	err := s.View(ctx, func(tx baton.Tx) error {
		if slug != "" {
			_, err := tx.Project(ctx, slug)
			return err
		}
		ps, err := tx.Projects(ctx)
		if err != nil {
			return err
		}
		if len(ps) != 1 {
			return baton.Errorf(baton.ErrInvalidInput, "there are %d projects: say which with --project", len(ps)).
				WithDetails("field", "project", "constraint", "required")
		}
		slug = ps[0].Slug
		return nil
	})
	return slug, err
}

// readyItem is one item of `baton ready --json`.
type readyItem struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Kind      string   `json:"kind"`
	Priority  int      `json:"priority"`
	Assignee  string   `json:"assignee"`
	Labels    []string `json:"labels"`
	CreatedAt string   `json:"created_at"`
}

// readyCmd is `baton ready`: the queue agents claim from.
func (a *App) readyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ready",
		Short: "Print the ready queue (todo, unblocked, unclaimed) as a table",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			project, err := a.projectOf(ctx, s)
			if err != nil {
				return a.fail(err)
			}
			var queue []baton.Readiness
			p := a.startProgress("reading the queue of " + project)
			err = s.View(ctx, func(tx baton.Tx) (err error) {
				queue, err = tx.Queue(ctx, project)
				return err
			})
			p.finish()
			if err != nil {
				return a.fail(err)
			}
			items := []readyItem{}
			for _, r := range queue {
				if !r.Ready() {
					continue
				}
				it := r.Item
				items = append(items, readyItem{ID: it.ID, Title: it.Title, Kind: string(it.Kind), Priority: int(it.Priority),
					Assignee: it.Assignee, Labels: nonNil(it.Labels), CreatedAt: baton.Timestamp(it.CreatedAt)})
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"project": project, "items": items, "count": len(items)})
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tPRIORITY\tKIND\tTITLE\tASSIGNEE\tLABELS")
			for _, it := range items {
				// Titles, ids, assignees and labels are agent text.
				fmt.Fprintf(tw, "%s\tP%d\t%s\t%s\t%s\t%s\n", cleanLine(it.ID), it.Priority, cleanLine(it.Kind), cleanLine(it.Title),
					cleanLine(it.Assignee), cleanLine(strings.Join(it.Labels, ",")))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "%d ready in %s\n", len(items), cleanLine(project))
			return nil
		},
	}
	a.jsonFlag(cmd, `{"project", "items": [{"id", "title", "kind", "priority" (0 critical .. 4 backlog), "assignee", "labels",
"created_at"}], "count": N}: the ready items in claim order (priority, then age).`)
	return cmd
}

// watchCmd is `baton watch`: the project's events, live, in the terminal.
// It reads the database, so it follows every process working on it.
func (a *App) watchCmd() *cobra.Command {
	var from int64
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Print the project's events live (Ctrl-C to stop)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			project, err := a.projectOf(ctx, s)
			if err != nil {
				return a.fail(err)
			}
			if every <= 0 {
				return usageError("--every must be a positive duration, e.g. 250ms, not %s", every)
			}
			asJSON := wantJSON(c)
			after := from
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				var evs []*baton.Event
				if err := s.View(ctx, func(tx baton.Tx) (err error) {
					evs, err = tx.Events(ctx, project, after, 500)
					return err
				}); err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return a.fail(err)
				}
				for _, e := range evs {
					after = e.Seq
					if asJSON {
						if err := a.printJSONLine(watchEventOf(e)); err != nil {
							return err
						}
						continue
					}
					// Subjects and agent names come from agents.
					line := fmt.Sprintf("%d\t%s\t%-22s\t%s\t%s", e.Seq, baton.Timestamp(e.At), cleanLine(e.Type), cleanLine(e.Subject),
						cleanLine(e.Agent))
					if d := watchDetail(e); d != "" {
						line += "\t" + cleanLine(d)
					}
					fmt.Fprintln(a.Stdout, line)
				}
				select {
				case <-ctx.Done():
					return nil
				case <-tick.C:
				}
			}
		},
	}
	cmd.Flags().Int64Var(&from, "from", 0, "print events after this sequence number (0: all kept)")
	cmd.Flags().DurationVar(&every, "every", 250*time.Millisecond, "how often to look for new events")
	a.jsonFlag(cmd, `JSON Lines: one object per event as it happens, {"seq", "at", "project", "type", "subject", "agent",
"data" (the event's JSON, or null)}; resume after a stop with --from LAST_SEQ.`)
	return cmd
}

// watchEvent is one line of `baton watch --json`.
type watchEvent struct {
	Seq     int64           `json:"seq"`
	At      string          `json:"at"`
	Project string          `json:"project"`
	Type    string          `json:"type"`
	Subject string          `json:"subject"`
	Agent   string          `json:"agent"`
	Data    json.RawMessage `json:"data"`
}

func watchEventOf(e *baton.Event) watchEvent {
	data := e.Data
	if len(data) == 0 || !json.Valid(data) {
		data = json.RawMessage("null") // a line must stay one JSON value
	}
	return watchEvent{Seq: e.Seq, At: baton.Timestamp(e.At), Project: e.Project, Type: e.Type, Subject: e.Subject, Agent: e.Agent, Data: data}
}

// watchDetail is what a watch line adds for events whose subject says
// little: a file reservation's globs and modes, or the reservations a
// release or renewal ended.
func watchDetail(e *baton.Event) string {
	if !strings.HasPrefix(e.Type, "reservation.") {
		return ""
	}
	var d struct {
		Granted []struct {
			Pattern   string `json:"path_pattern"`
			Exclusive bool   `json:"exclusive"`
			ExpiresAt string `json:"expires_at"`
		} `json:"granted"`
		IDs            []int64 `json:"file_reservation_ids"`
		Pattern        string  `json:"path_pattern"`
		PreviousHolder string  `json:"previous_holder"`
	}
	if json.Unmarshal(e.Data, &d) != nil {
		return ""
	}
	var parts []string
	for _, g := range d.Granted {
		mode := "shared"
		if g.Exclusive {
			mode = "exclusive"
		}
		parts = append(parts, fmt.Sprintf("%s (%s until %s)", g.Pattern, mode, g.ExpiresAt))
	}
	if d.Pattern != "" {
		parts = append(parts, fmt.Sprintf("%s (held by %s)", d.Pattern, d.PreviousHolder))
	}
	if len(parts) == 0 && len(d.IDs) > 0 {
		ids := make([]string, len(d.IDs))
		for i, id := range d.IDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		parts = append(parts, "reservations "+strings.Join(ids, ", "))
	}
	return strings.Join(parts, "; ")
}
