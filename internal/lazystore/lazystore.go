// Package lazystore is a baton.Store that opens in the background. `baton
// mcp` answers what needs no database (MCP's initialize and, for most
// sessions, tools/list) while the database opens and checks its
// migrations; whatever needs the store waits for it, as long as its
// context allows, and gets the error that kept it from opening.
package lazystore

import (
	"context"
	"errors"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
)

// Store opens a store in the background and then stands for it.
type Store struct {
	known baton.StoreInfo // what Info says until the store is open
	done  chan struct{}   // closed once open returned
	s     baton.Store     // the open store; nil when opening failed
	err   *baton.Error    // why it did not open
}

// Open starts open in a goroutine and returns at once. known is what Info
// reports while the store is not open (its driver and path, Open false).
func Open(known baton.StoreInfo, open func() (baton.Store, error)) *Store {
	known.Open = false
	l := &Store{known: known, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		s, err := open()
		switch {
		case err != nil:
			l.err = openError(err)
		case s == nil:
			l.err = openError(errors.New("no store"))
		default:
			l.s = s
		}
	}()
	return l
}

// openError is err as calls report it: baton's own errors as they are
// (a missing file, a database newer than this binary), anything else as
// ERR_INIT_FAILED rather than an internal error.
func openError(err error) *baton.Error {
	var e *baton.Error
	if errors.As(err, &e) {
		return e
	}
	return baton.Errorf(baton.ErrInitFailed, "the database did not open: %v", err).
		WithHint("check the database (baton doctor) and start baton again")
}

// Wait returns the open store, waiting for it until ctx ends; when the
// store could not be opened, the error that kept it from opening. A call
// whose deadline passes while the database opens gets the retryable busy
// error, as one that waited for the writer would (sqlcore.OutOfTime).
func (l *Store) Wait(ctx context.Context) (baton.Store, error) {
	select {
	case <-l.done:
	default:
		start := time.Now()
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, sqlcore.OutOfTime(ctx, ctx.Err(), start)
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return l.s, nil
}

// Update runs fn in a write transaction of the open store (baton.Store).
func (l *Store) Update(ctx context.Context, fn func(baton.Tx) error) error {
	s, err := l.Wait(ctx)
	if err != nil {
		return err
	}
	return s.Update(ctx, fn)
}

// View runs fn in a read-only transaction of the open store (baton.Store).
func (l *Store) View(ctx context.Context, fn func(baton.Tx) error) error {
	s, err := l.Wait(ctx)
	if err != nil {
		return err
	}
	return s.View(ctx, fn)
}

// Info describes the open store; until it is open (or when it could not
// be), what was known without opening it, with Open false. It never
// waits: a health report says the store is not open yet rather than hang.
func (l *Store) Info(ctx context.Context) baton.StoreInfo {
	select {
	case <-l.done:
		if l.s != nil {
			return l.s.Info(ctx)
		}
	default:
	}
	return l.known
}

// Close waits for the opening to end and closes the store it opened.
func (l *Store) Close() error {
	<-l.done
	if l.s == nil {
		return nil
	}
	return l.s.Close()
}
