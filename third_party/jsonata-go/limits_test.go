package jsonata

// Tests of the evaluation limits added by the baton patch (NOTE.md):
// EvalContext and MaxDepth.

import (
	"context"
	"errors"
	"testing"
	"time"
)

// slowExpr would run for minutes: a billion evaluations.
const slowExpr = `$count([1..1000].([1..1000].([1..1000])))`

func TestEvalContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := MustCompile(`1 + 1`).EvalContext(ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestEvalContextDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := MustCompile(slowExpr).EvalContext(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("stopped after %s, the deadline was 100ms", took)
	}
}

// TestEvalContextInRecursion: a deadline met deep in a recursion stops
// it at once, with a short error (each call it unwinds used to add
// itself to the message).
func TestEvalContextInRecursion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := MustCompile(`($f := function($n) { $n = 0 ? $count([1..1000].([1..1000])) : $f($n - 1) }; $f(2000))`).EvalContext(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || len(err.Error()) > 200 {
		t.Fatalf("err = %.300v, want a short context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("stopped after %s", took)
	}
}

func TestEvalContextResult(t *testing.T) {
	got, err := MustCompile(`$sum($)`).EvalContext(context.Background(), []interface{}{1.0, 2.0})
	if err != nil || got != 3.0 {
		t.Fatalf("got %v, %v; want 3", got, err)
	}
}

// TestMaxDepth: a function that recurses without end fails with
// ErrMaxDepth instead of overflowing the stack, which would end the
// program; a deep but finite recursion still runs.
func TestMaxDepth(t *testing.T) {
	for _, expr := range []string{
		`($f := function($n) { $f($n + 1) }; $f(0))`,
		`($f := function($n) { 1 + $f($n + 1) }; $f(0))`,
	} {
		start := time.Now()
		_, err := MustCompile(expr).Eval(nil)
		var ee *EvalError
		if !errors.As(err, &ee) || ee.Type != ErrMaxDepth || len(err.Error()) > 200 {
			t.Errorf("%s: err = %.300v, want a short ErrMaxDepth", expr, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: failed after %s", expr, took)
		}
	}
	got, err := MustCompile(`($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(1000))`).Eval(nil)
	if err != nil || got != 1000.0 {
		t.Errorf("a recursion 1000 deep: %v, %v", got, err)
	}
}
