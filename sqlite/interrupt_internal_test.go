package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	sqlite3 "modernc.org/sqlite/lib"
)

// codeError is an error with an SQLite result code, as the driver's are.
type codeError int

func (e codeError) Error() string { return "interrupted (9)" }
func (e codeError) Code() int     { return int(e) }

// TestInterruptIsOutOfTime: a statement the driver interrupted because the
// call's deadline passed (SQLITE_INTERRUPT) is the retryable busy error,
// never an internal one; with the context still live it stays as it is,
// and a cancelled call stays cancelled.
func TestInterruptIsOutOfTime(t *testing.T) {
	interrupted := codeError(sqlite3.SQLITE_INTERRUPT)
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if e := baton.AsError(outOfTime(expired, interrupted, time.Now())); e == nil || e.Code != baton.ErrRateLimited || e.Type != "busy" {
		t.Errorf("interrupted at the deadline: %+v", e)
	}
	if err := outOfTime(context.Background(), interrupted, time.Now()); !errors.Is(err, interrupted) || baton.ErrorCode(err) == baton.ErrRateLimited {
		t.Errorf("interrupted with time left: %v", err)
	}
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	if err := outOfTime(cancelled, interrupted, time.Now()); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted after a cancel: %v", err)
	}
}
