package bench

import (
	"context"
	"time"
)

// A paced run offers a fixed load, open-loop: the rate is dealt out evenly
// over the agents, so each agent has a call due every agents/rate seconds,
// the agents' schedules staggered so that the calls due in all are evenly
// spaced. An agent still busy when its next call is due starts it as soon
// as it can, and the call's latency counts from when it was due, not from
// when it started: a slow server cannot hide its backlog by slowing the
// offered load (no coordinated omission). At the end of the run an agent
// starts nothing more; the calls it still owed are counted as unsent.

// lateAfter is how far past its due time a call may start before it
// counts as late.
const lateAfter = time.Millisecond

// RateStats are what a paced run offered and did.
type RateStats struct {
	Offered float64       // calls per second offered, in all
	Elapsed time.Duration // from the first due time until the last call returned
	Issued  int           // calls started
	Late    int           // of those, started more than lateAfter after due
	Unsent  int           // calls due before the end but never started
}

// Achieved is the calls per second started.
func (r *RateStats) Achieved() float64 { return rate(r.Issued, r.Elapsed) }

// paced runs agent i of n's share of rate calls per second from start
// until deadline.
func (a *agent) paced(ctx context.Context, i, n int, rate float64, start, deadline time.Time) {
	interval := time.Duration(float64(n) / rate * float64(time.Second))
	offset := time.Duration(float64(interval) * float64(i) / float64(n))
	timer := time.NewTimer(time.Hour) // reset before each wait
	defer timer.Stop()
	step := a.first
	for k := 0; ; k++ {
		due := start.Add(offset + time.Duration(k)*interval)
		if !due.Before(deadline) {
			return
		}
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			// Due before the end, but the agent was still busy then.
			a.unsent += int((deadline.Sub(start)-offset+interval-1)/interval) - k
			return
		}
		// A step that makes no call (no work item held) passes the due
		// time on to the next, so every due time gets one call; a full
		// turn of the mix always makes one.
		for range workSteps {
			a.due = due
			made := a.step(ctx, step)
			step++
			if made {
				break
			}
		}
		a.due = time.Time{}
	}
}
