// Package orchestrator runs baton's background work: for now the reaper
// that returns work from lapsed claims to the ready queue.
package orchestrator

import (
	"context"
	"log/slog"
	"time"

	"github.com/baton-dev/baton"
)

// Reaper ends lapsed claims every Every, so their items go back to the
// queue even when nobody reads it. (Reads already treat a lapsed claim as
// gone; the reaper makes the store say so too.) Reaping does not forgive
// the lapse: each reaped holder stays fenced out of its item, its updates
// ERR_CLAIMED, until it claims the item again.
type Reaper struct {
	Store baton.Store
	Every time.Duration
	Clock baton.Clock
	Log   *slog.Logger
}

// Run reaps until ctx ends.
func (r *Reaper) Run(ctx context.Context) {
	every := r.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := r.Once(ctx); err != nil && ctx.Err() == nil && r.Log != nil {
				r.Log.Warn("reaping lapsed claims", "err", err)
			}
		}
	}
}

// Once reaps the claims lapsed now and reports how many there were.
func (r *Reaper) Once(ctx context.Context) (int, error) {
	now := time.Now().UTC()
	if r.Clock != nil {
		now = r.Clock().UTC()
	}
	var n int
	err := r.Store.Update(ctx, func(tx baton.Tx) error {
		var err error
		if n, err = tx.ReapClaims(ctx, now); err != nil {
			return err
		}
		// Events past retention go too: a subscriber away longer than
		// that starts again from the present.
		_, err = tx.PruneEvents(ctx, now.Add(-baton.EventRetention))
		return err
	})
	if n > 0 && r.Log != nil {
		r.Log.Info("returned work from lapsed claims to the queue", "claims", n)
	}
	return n, err
}
