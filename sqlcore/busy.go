package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/baton-dev/baton"
)

// BusyWait is how long a transaction keeps retrying a database that other
// writers hold when its context sets no deadline of its own.
const BusyWait = 30 * time.Second

// Backoff bounds between attempts on a busy database: the wait doubles
// from busyFirst up to busyMost, each one jittered so that writers who met
// on the lock do not meet again on the retry.
const (
	busyFirst = 2 * time.Millisecond
	busyMost  = 250 * time.Millisecond
	// busyAgain is the least retry_after_ms a Busy error suggests: sooner
	// would most likely meet the same writers.
	busyAgain = 50 * time.Millisecond
)

// Busy is the error for a transaction that kept finding the database
// locked by other writers until its time ran out. It is ERR_RATE_LIMITED of
// type busy, the code DESIGN.md has for "too much at once, try again
// later", with details.retry_after_ms: nothing was written, and the same
// call can simply be made again.
func Busy(cause error, attempts int, waited, retryAfter time.Duration) *baton.Error {
	ms := max(busyAgain, retryAfter).Milliseconds()
	return baton.Errorf(baton.ErrRateLimited, "the database is busy: the transaction did not get through in the call's time (%d ms, %d attempts)",
		waited.Milliseconds(), attempts).
		WithType("busy").
		WithDetails("retry_after_ms", ms, "attempts", attempts, "waited_ms", waited.Milliseconds(), "cause", causeText(cause)).
		WithHint("nothing was changed; make the same call again after %d ms", ms)
}

// causeText is what the database said, for the details.
func causeText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// RetryBusy runs attempt (one whole transaction) until it succeeds or fails
// with an error transient does not call lock contention. Contention is
// retried with jittered exponential backoff until ctx's deadline, or
// BusyWait without one, would pass; then the result is Busy. A cancelled
// ctx ends the retries with its error: the caller went away.
func RetryBusy(ctx context.Context, transient func(error) bool, attempt func() error) error {
	start := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = start.Add(BusyWait)
	}
	wait := busyFirst
	for n := 1; ; n++ {
		err := attempt()
		if err == nil || !transient(err) {
			return err
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		// Full jitter over the upper half keeps some wait every time.
		sleep := wait/2 + rand.N(wait/2+1)
		if ctx.Err() != nil || time.Now().Add(sleep).After(deadline) {
			return Busy(err, n, time.Since(start), wait)
		}
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if errors.Is(ctx.Err(), context.Canceled) {
				return ctx.Err()
			}
			return Busy(err, n, time.Since(start), wait)
		}
		wait = min(2*wait, busyMost)
	}
}

// OutOfTime is err, unless err is ctx's deadline passing during a
// transaction (waiting for the one writer connection or the writers' lock,
// or cut off by it): then the change was not made for want of time, which
// a caller can retry as it retries Busy. A cancelled ctx stays as it is.
func OutOfTime(ctx context.Context, err error, start time.Time) error {
	// database/sql rolls a transaction back when its context ends, so a
	// statement after the deadline fails with sql.ErrTxDone, not the
	// context's error: the same running out of time.
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sql.ErrTxDone)) &&
		errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Busy(err, 1, time.Since(start), busyMost)
	}
	return err
}
