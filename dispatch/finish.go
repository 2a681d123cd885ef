package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/orchestrator"
)

// finish records the run's end: its outcome, its remaining events and
// output, the claim given back, and the retry, or the block and message to
// the human once retries are used up. The transaction is tried again on a
// transient failure; if it cannot go through, a smaller one still ends the
// run and gives the claim back, so no run stays running for nobody.
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
	// A command that cannot start at all is the configuration's fault:
	// no attempt is counted against the item, the profile is set aside
	// and the human told once.
	var se *startError
	count := stopped != stopShutdown
	broken := errors.As(startErr, &se) && se.misconfigured()
	if broken {
		count = false
	}
	var err error
	for try := 0; try < 3; try++ {
		if try > 0 {
			time.Sleep(time.Duration(try) * 500 * time.Millisecond)
		}
		err = a.d.Store.Update(ctx, func(tx baton.Tx) error {
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
			if broken {
				if err := a.d.setAside(ctx, tx, se, a.run.ID, a.item.Project, now); err != nil {
					return err
				}
			}
			return a.d.settle(ctx, tx, f, count, false, now)
		})
		if err == nil || baton.ErrorCode(err) == baton.ErrConflict || ctx.Err() != nil {
			break
		}
	}
	if broken {
		a.d.mu.Lock()
		a.d.broken[se.profile] = se.Error() + "; " + se.hint()
		if err != nil && a.d.telling[se.profile] == a.run.ID {
			delete(a.d.telling, se.profile) // its message was not sent: the next run's may be
		}
		a.d.mu.Unlock()
	}
	if err != nil {
		a.d.log().Error("recording the end of a run", "run", a.run.ID, "issue", a.item.ID, "err", err)
		f.Warnings = append(f.Warnings, "recording the run's end failed: "+message(err))
		if baton.ErrorCode(err) != baton.ErrConflict {
			a.endBare(ctx, f, now)
		}
	}
	if a.d.Bus != nil {
		a.d.Bus.Publish(a.item.Project)
	}
	a.d.log().Info("agent ended", "run", f.RunID, "issue", f.Item, "status", f.Status, "error", f.Error,
		"retry_at", f.RetryAt, "blocked", f.Blocked)
	return f
}

// endBare ends the run as failed and gives the claim back, with nothing
// else that could stop it from going through.
func (a *agent) endBare(ctx context.Context, f *Finished, now time.Time) {
	f.Status = baton.RunFailed
	if f.Error == "" {
		f.Error = "the dispatcher could not record how the run ended"
	}
	err := a.d.Store.Update(ctx, func(tx baton.Tx) error {
		r := *a.run
		r.Status, r.Error, r.ExitCode, r.EndedAt = f.Status, f.Error, f.ExitCode, now
		r.DurationMS = now.Sub(a.run.StartedAt).Milliseconds()
		if err := tx.FinishRun(ctx, &r); err != nil {
			return err
		}
		if err := tx.ReleaseClaim(ctx, f.Item, f.Agent, now); err != nil && !gone(err) {
			return err
		}
		return nil
	})
	if err != nil {
		a.d.log().Error("ending a run", "run", a.run.ID, "err", err)
	}
}

// gone reports a claim error that means the claim is not the holder's to
// give back: given back already, or someone else's now.
func gone(err error) bool {
	c := baton.ErrorCode(err)
	return c == baton.ErrNotFound || c == baton.ErrClaimed
}

// settle is what follows a run's end, whoever ends it: its claim goes
// back (fenced, when the holder may still be at work: reconcile);
// success forgets the item's failures; count false (a shutdown, a command
// that cannot start) counts nothing; any other end is a failed attempt,
// retried after a backoff, and after max_retries retries the item is
// blocked and the human told.
func (d *Dispatcher) settle(ctx context.Context, tx baton.Tx, f *Finished, count, fence bool, now time.Time) error {
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
	switch {
	case keep:
	case fence:
		cl, err := tx.ClaimOf(ctx, f.Item)
		if err != nil {
			return err
		}
		if cl != nil && cl.Holder == f.Agent {
			if _, err := tx.ForceReleaseClaim(ctx, f.Item, Agent, now); err != nil && !gone(err) {
				return err
			}
		}
	default:
		if err := tx.ReleaseClaim(ctx, f.Item, f.Agent, now); err != nil && !gone(err) {
			return err
		}
	}
	switch {
	case f.Status == baton.RunSucceeded:
		if err := tx.ClearDispatchRetry(ctx, f.Item); err != nil {
			return err
		}
	case !count:
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

// setAside tells the human, once per dispatcher and profile, that the
// profile's command cannot start; finish then sets the profile aside
// until the dispatcher restarts. The first run to get here owns the
// telling, decided under the lock: runs ending together have their
// transactions open at once (they may share one commit), so a flag set
// only after a commit would let each of them tell.
func (d *Dispatcher) setAside(ctx context.Context, tx baton.Tx, se *startError, runID, project string, now time.Time) error {
	d.mu.Lock()
	owner, told := d.telling[se.profile]
	if !told {
		d.telling[se.profile] = runID
	}
	d.mu.Unlock()
	if told && owner != runID {
		return nil
	}
	msg := &baton.Message{Project: project, AgentID: Agent, Recipient: baton.User, Role: baton.RoleAgent,
		Body: clip(fmt.Sprintf("baton dispatch cannot start %s agents: %s. No %s work is dispatched until you %s.",
			se.profile, se.Error(), se.profile, se.hint()), 8000),
		ThreadID: "dispatch-config", EventType: "blocker", CreatedAt: now}
	return tx.SendMessage(ctx, msg)
}

// record appends an action and an event for the dispatcher's own change,
// in its transaction, as every tool call's pipeline does.
func (d *Dispatcher) record(ctx context.Context, tx baton.Tx, tool, event, project, subject string, in, out any, at time.Time) error {
	return audit.Record(ctx, tx, audit.Change{Agent: Agent, Source: Source, Tool: tool, Subject: subject, In: in, Out: out, At: at,
		Event: event, Project: project})
}

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
