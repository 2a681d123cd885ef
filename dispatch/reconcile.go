package dispatch

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// reconcile ends the project's running runs that nobody looks after any
// more: this dispatcher's own runs it has lost track of (their end could
// not be recorded), and other dispatchers' runs whose heartbeat is stale
// (two leases without one) or, on this host, whose dispatcher process is
// gone. Their claims are released with a fence, since their agents may
// still be at work, and on this host the agents' process groups are
// killed.
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
		why := d.orphaned(r)
		if why == "" {
			continue
		}
		now := d.now()
		f := &Finished{RunID: r.ID, Item: r.ItemID, Project: p.Slug, Profile: r.Profile, Agent: r.Agent, Attempt: r.Attempt,
			Status: baton.RunFailed, Error: why, Worktree: r.Worktree}
		err := d.Store.Update(ctx, func(tx baton.Tx) error {
			done := *r
			done.Status, done.Error, done.EndedAt = f.Status, f.Error, now
			done.DurationMS = now.Sub(r.StartedAt).Milliseconds()
			if err := tx.FinishRun(ctx, &done); err != nil {
				return err
			}
			f.DurationMS, f.RetryAt, f.Blocked, f.MessageID = done.DurationMS, "", false, ""
			return d.settle(ctx, tx, f, true, true, now)
		})
		switch {
		case baton.ErrorCode(err) == baton.ErrConflict:
			continue // its dispatcher ended it a moment ago
		case err != nil:
			return out, err
		}
		if r.Host == d.Host && r.PID > 0 {
			killOrphan(r.PID, r.ID)
		}
		d.log().Warn("ended a run nobody looks after", "run", r.ID, "issue", r.ItemID, "dispatcher", r.Dispatcher, "why", why)
		out = append(out, f)
	}
	return out, nil
}

// orphaned says why nobody looks after a running run any more, or "" when
// someone may.
func (d *Dispatcher) orphaned(r *baton.Run) string {
	switch {
	case r.Dispatcher == "":
		return "" // an ingested run: no dispatcher looks after it
	case r.Dispatcher == d.id:
		d.mu.Lock()
		_, mine := d.running[r.ID]
		d.mu.Unlock()
		if mine {
			return ""
		}
		return "its end could not be recorded when it ended"
	}
	if r.Host == d.Host {
		if pid := dispatcherPID(r.Dispatcher); pid > 0 && !processAlive(pid) {
			return fmt.Sprintf("its dispatcher (%s) stopped while it ran", r.Dispatcher)
		}
	}
	beat := r.HeartbeatAt
	if beat.Before(r.StartedAt) {
		beat = r.StartedAt
	}
	if stale := d.now().Sub(beat); stale > 2*d.Config.Lease.Duration {
		return fmt.Sprintf("its dispatcher (%s) has not looked after it for %s", r.Dispatcher, stale.Round(time.Second))
	}
	return ""
}

// dispatcherPID is the process id in a dispatcher's id (host:pid:random),
// 0 when it has none.
func dispatcherPID(id string) int {
	parts := strings.Split(id, ":")
	if len(parts) < 3 {
		return 0
	}
	pid, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil {
		return 0
	}
	return pid
}
