package dispatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/orchestrator"
)

// message is what an error says, without a structured error's code.
func message(err error) string {
	var e *baton.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// snapshot is what of an item changes when an agent does its work: a run
// that exits 0 without changing any of it produced nothing (Symphony
// retries a run "without producing work" like a failed one).
type snapshot struct {
	Status   baton.Status
	Labels   string
	Findings int    // phase claims and verdicts (complete_phase, approve_phase, reject_phase)
	PR       string // the latest PR's id and status
}

func snap(ctx context.Context, tx baton.Tx, itemID, holder string) (snapshot, error) {
	it, err := tx.Item(ctx, itemID)
	if err != nil {
		return snapshot{}, err
	}
	fs, err := tx.Findings(ctx, itemID, 0)
	if err != nil {
		return snapshot{}, err
	}
	labels := slices.Clone(it.Labels)
	slices.Sort(labels)
	s := snapshot{Status: it.Status, Labels: strings.Join(labels, ",")}
	for _, f := range fs {
		// Only the findings that hand work in count: an agent that adds
		// notes and exits has not finished.
		if f.Category == baton.CategoryPhaseCompletion || f.Category == baton.CategoryPhaseVerdict {
			s.Findings++
		}
	}
	pr, err := latestPR(ctx, tx, itemID)
	if err != nil {
		return snapshot{}, err
	}
	if pr != nil {
		s.PR = pr.ID + ":" + string(pr.Status)
	}
	return s, nil
}

// outcome decides how a run ended: the dispatcher's own stop first, then
// the process's exit code, then the stream's result line, then whether the
// item changed at all.
func (a *agent) outcome(ctx context.Context, tx baton.Tx, stopped stopKind, stopWhy string, startErr error, code *int) (status, why string, err error) {
	res := a.parser.Run()
	switch {
	case stopped == stopTimeout:
		return baton.RunTimedOut, stopWhy, nil
	case stopped != stopNone:
		return baton.RunCancelled, stopWhy, nil
	case startErr != nil:
		return baton.RunFailed, message(startErr), nil
	case code == nil:
		return baton.RunFailed, "the agent did not start", nil
	case *code != 0:
		why := fmt.Sprintf("the agent exited with status %d", *code)
		if l := a.stderr.LastLine(); l != "" {
			why += ": " + l
		}
		return baton.RunFailed, why, nil
	case a.parser.SawResult && res.Status != baton.RunSucceeded:
		return baton.RunFailed, res.Error, nil
	}
	now, err := snap(ctx, tx, a.item.ID, a.start.Agent)
	if err != nil {
		return "", "", err
	}
	if now == a.state {
		return baton.RunFailed, fmt.Sprintf("the agent exited without finishing its work: %s is still %s with nothing recorded", a.item.ID, now.Status), nil
	}
	return baton.RunSucceeded, "", nil
}

// finish records the run's end in one transaction: its outcome, its
// remaining events and output, the claim given back, and the retry, or
// the block and message to the human once retries are used up.
func (a *agent) finish(ctx context.Context, startErr error, code *int) *Finished {
	a.mu.Lock()
	evs := a.pending
	a.pending = nil
	stopped, stopWhy := a.stopped, a.why
	a.mu.Unlock()
	now := a.d.now()
	res := a.parser.Run()
	f := &Finished{RunID: a.run.ID, Item: a.item.ID, Project: a.item.Project, Profile: a.profile.Name, Agent: a.start.Agent,
		Attempt: a.start.Attempt, ExitCode: code, Worktree: a.run.Worktree}
	err := a.d.Store.Update(ctx, func(tx baton.Tx) error {
		status, why, err := a.outcome(ctx, tx, stopped, stopWhy, startErr, code)
		if err != nil {
			return err
		}
		if len(evs) > 0 {
			if err := tx.AppendRunEvents(ctx, a.run.ID, evs); err != nil {
				return err
			}
		}
		r := *a.run
		r.Status, r.Error, r.ExitCode, r.EndedAt = status, clip(why, 4000), code, now
		r.CostUSD, r.NumTurns, r.Model = res.CostUSD, res.NumTurns, res.Model
		r.DurationMS = now.Sub(a.run.StartedAt).Milliseconds()
		if err := tx.FinishRun(ctx, &r); err != nil {
			return err
		}
		out, outDropped := a.stdout.String()
		errOut, errDropped := a.stderr.String()
		if err := tx.SetRunOutput(ctx, a.run.ID, baton.RunOutput{Stdout: out, Stderr: errOut,
			StdoutDropped: outDropped, StderrDropped: errDropped}); err != nil {
			return err
		}
		f.Status, f.Error, f.DurationMS, f.CostUSD = status, r.Error, r.DurationMS, r.CostUSD
		f.RetryAt, f.Blocked, f.MessageID = "", false, ""
		return a.d.settle(ctx, tx, f, stopped == stopShutdown, now)
	})
	if err != nil {
		a.d.log().Error("recording the end of a run", "run", a.run.ID, "issue", a.item.ID, "err", err)
		f.Warnings = append(f.Warnings, "recording the run's end failed: "+message(err))
		if f.Status == "" {
			f.Status = baton.RunFailed
		}
	}
	if a.d.Bus != nil {
		a.d.Bus.Publish(a.item.Project)
	}
	a.d.log().Info("agent ended", "run", f.RunID, "issue", f.Item, "status", f.Status, "error", f.Error,
		"retry_at", f.RetryAt, "blocked", f.Blocked)
	return f
}

// settle is what follows a run's end, whoever ends it: its claim goes
// back; success forgets the item's failures; a shutdown counts nothing;
// any other end is a failed attempt, retried after a backoff, and after
// max_retries retries the item is blocked and the human told.
func (d *Dispatcher) settle(ctx context.Context, tx baton.Tx, f *Finished, shutdown bool, now time.Time) error {
	keep := false
	if f.Status == baton.RunSucceeded {
		// A phase claim the tick has not processed yet keeps the item
		// claimed until the tick takes it on (and ends the claim), so no
		// dispatcher starts another agent on finished work meanwhile.
		var err error
		if keep, err = awaitsTick(ctx, tx, f.Item); err != nil {
			return err
		}
	}
	if !keep {
		if err := tx.ReleaseClaim(ctx, f.Item, f.Agent, now); err != nil {
			switch baton.ErrorCode(err) {
			case baton.ErrNotFound, baton.ErrClaimed:
				// Given back already, or someone else's now.
			default:
				return err
			}
		}
	}
	switch {
	case f.Status == baton.RunSucceeded:
		if err := tx.ClearDispatchRetry(ctx, f.Item); err != nil {
			return err
		}
	case shutdown:
	default:
		if err := d.failed(ctx, tx, f, now); err != nil {
			return err
		}
	}
	data := map[string]any{"run_id": f.RunID, "status": f.Status, "error": f.Error, "exit_code": f.ExitCode,
		"duration_ms": f.DurationMS, "cost_usd": f.CostUSD, "retry_at": f.RetryAt, "blocked": f.Blocked}
	return d.record(ctx, tx, "dispatch_finish", "run.finished", f.Project, f.Item,
		map[string]any{"run_id": f.RunID, "issue": f.Item, "agent": f.Agent}, data, now)
}

// awaitsTick reports whether the item's latest phase claim waits for the
// orchestrator's tick.
func awaitsTick(ctx context.Context, tx baton.Tx, itemID string) (bool, error) {
	it, err := tx.Item(ctx, itemID)
	if err != nil {
		return false, err
	}
	st, err := orchestrator.LatestClaim(ctx, tx, itemID, it.Phase())
	if err != nil {
		return false, err
	}
	return st != nil && st.Mark == nil && st.Superseded == "", nil
}

// failed counts a failed attempt: the next waits backoff × 2^(n−1); after
// max_retries retries the item is blocked with a message to the human.
func (d *Dispatcher) failed(ctx context.Context, tx baton.Tx, f *Finished, now time.Time) error {
	it, err := tx.Item(ctx, f.Item)
	if err != nil {
		return err
	}
	if it.Status.Terminal() || it.Status == baton.StatusBlocked {
		// Finished or blocked meanwhile: nothing to retry.
		return tx.ClearDispatchRetry(ctx, f.Item)
	}
	if f.Attempt <= d.Config.Retries() {
		next := now.Add(d.Config.BackoffAfter(f.Attempt))
		f.RetryAt = next.Format(time.RFC3339)
		return tx.SetDispatchRetry(ctx, &baton.DispatchRetry{ItemID: f.Item, Attempts: f.Attempt, NextAt: next,
			LastError: clip(f.Error, 1000), UpdatedAt: now})
	}
	it.Status = baton.StatusBlocked
	it.BlockedReason = clip(fmt.Sprintf("dispatch: %d runs failed; the last (%s): %s", f.Attempt, f.RunID, f.Error), 1000)
	it.UpdatedBy, it.UpdatedAt = Agent, now
	if err := tx.UpdateItem(ctx, it); err != nil {
		return err
	}
	msg := &baton.Message{Project: it.Project, AgentID: Agent, Recipient: baton.User, Role: baton.RoleAgent,
		Body: clip(fmt.Sprintf("%s (%s) needs you: %d %s runs failed in a row, so it is blocked. The last, %s, ended %s: %s. "+
			"Its output: baton runs show %s. Unblock it for more attempts, change the issue, or cancel it.",
			it.ID, it.Title, f.Attempt, f.Profile, f.RunID, f.Status, f.Error, f.RunID), 8000),
		ThreadID: "dispatch-" + it.ID, EventType: "blocker", CreatedAt: now}
	if err := tx.SendMessage(ctx, msg); err != nil {
		return err
	}
	f.Blocked, f.MessageID = true, msg.ID
	return tx.ClearDispatchRetry(ctx, f.Item)
}

// record appends an action and an event for the dispatcher's own change,
// in its transaction, as every tool call's pipeline does.
func (d *Dispatcher) record(ctx context.Context, tx baton.Tx, tool, event, project, subject string, in, out any, at time.Time) error {
	inDigest, err := audit.Digest(in)
	if err != nil {
		return err
	}
	outDigest, err := audit.Digest(out)
	if err != nil {
		return err
	}
	if err := tx.AppendAction(ctx, &baton.Action{Agent: Agent, Source: Source, Tool: tool, Subject: subject,
		InputDigest: inDigest, ResultDigest: outDigest, At: at}); err != nil {
		return err
	}
	data, err := jsonMarshal(out)
	if err != nil {
		return err
	}
	return tx.AppendEvent(ctx, &baton.Event{Project: project, Type: event, Subject: subject, Agent: Agent, Data: data, At: at})
}

// reconcile ends the project's running runs whose dispatcher is gone: on
// this host, any run not this dispatcher's (one dispatcher per project per
// host holds the lock, so its owner died), with its process group killed
// if it still runs; on another host, a run whose lease has lapsed.
func (d *Dispatcher) reconcile(ctx context.Context, p *baton.Project) ([]*Finished, error) {
	var rs []*baton.Run
	if err := d.Store.View(ctx, func(tx baton.Tx) error {
		var err error
		rs, err = tx.ListRuns(ctx, baton.RunFilter{Project: p.Slug, Status: baton.RunRunning, Limit: 500})
		return err
	}); err != nil {
		return nil, err
	}
	var out []*Finished
	for _, r := range rs {
		if r.Dispatcher == "" || r.Dispatcher == d.id {
			continue // an ingested run, or one of ours
		}
		now := d.now()
		f := &Finished{RunID: r.ID, Item: r.ItemID, Project: p.Slug, Profile: r.Profile, Agent: r.Agent, Attempt: r.Attempt,
			Status: baton.RunFailed, Worktree: r.Worktree}
		err := d.Store.Update(ctx, func(tx baton.Tx) error {
			if r.Host == d.Host {
				f.Error = fmt.Sprintf("its dispatcher (%s) stopped while it ran", r.Dispatcher)
			} else {
				cl, err := tx.ClaimOf(ctx, r.ItemID)
				if err != nil {
					return err
				}
				if (cl != nil && cl.Holder == r.Agent && cl.Active(now)) || now.Sub(r.StartedAt) < d.Config.Lease.Duration {
					return errSkip // alive, or too young to judge
				}
				f.Error = fmt.Sprintf("its dispatcher on %s stopped renewing its lease", r.Host)
			}
			done := *r
			done.Status, done.Error, done.EndedAt = f.Status, f.Error, now
			done.DurationMS = now.Sub(r.StartedAt).Milliseconds()
			if err := tx.FinishRun(ctx, &done); err != nil {
				return err
			}
			f.DurationMS = done.DurationMS
			return d.settle(ctx, tx, f, false, now)
		})
		switch {
		case errors.Is(err, errSkip):
			continue
		case baton.ErrorCode(err) == baton.ErrConflict:
			continue // its dispatcher ended it a moment ago
		case err != nil:
			return out, err
		}
		if r.Host == d.Host && r.PID > 0 {
			killOrphan(r.PID, r.ID)
		}
		d.log().Warn("ended the run of a stopped dispatcher", "run", r.ID, "issue", r.ItemID, "dispatcher", r.Dispatcher)
		out = append(out, f)
	}
	return out, nil
}

var errSkip = errors.New("skip")

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
