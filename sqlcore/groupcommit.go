package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Group commit: concurrent write transactions of one store run as one
// database transaction. Writers run one at a time anyway (SQLite's single
// writer, PostgreSQL's advisory lock); what each of them pays alone is the
// BEGIN, the COMMIT (a WAL append and, on PostgreSQL, a flush) and the wait
// for the writer. Batched, those are paid once for everyone queued.
//
// The first caller to find no batch running leads: it takes whatever is
// queued at that moment (at most MaxBatch calls; nobody waits for more to
// arrive, so a lone call adds no latency), begins one transaction, runs
// each call's fn under a savepoint of its own (but the first: see
// runBatch), commits once, and then hands the lead to the first call
// queued meanwhile. A call returns only
// after the COMMIT that holds its changes succeeded, so an acknowledged
// write is as durable as one committed alone.
//
// A call's context ending cannot be allowed to cut a statement short: the
// SQLite driver then calls sqlite3_interrupt, and an interrupted
// INSERT/UPDATE/DELETE inside an explicit transaction may roll back the
// whole transaction, the other calls' changes with it. So the statements
// of a call run without its context's cancellation (see Uninterrupted),
// and the context is checked before the call starts and before each of its
// statements instead: a call whose time ran out stops at the next
// statement boundary, is rolled back (to its savepoint, or with the
// transaction when it ran first) and fails with its context's error. Should the transaction still end under a failing call
// (an I/O error, the driver giving up), the calls that ran before it in
// the batch are run again in a new transaction (a Store's fn may run more
// than once), so no call reports a commit that did not happen.

// GroupTx is the batch's transaction as the group sees it; T is the
// store's handle on it, given to each call's fn.
type GroupTx[T any] struct {
	// Tx is what fn receives.
	Tx T
	// Exec runs one statement of the group's own (SAVEPOINT,
	// ROLLBACK TO) in the transaction.
	Exec func(ctx context.Context, stmt string) error
	// Commit and Rollback end the transaction.
	Commit   func() error
	Rollback func() error
}

// BatchTx is a batch's database/sql transaction, with what the batch's
// calls learn that the next call can use without asking the database.
type BatchTx struct {
	Tx   *sql.Tx
	memo BatchMemo
}

// BatchMemo is what a batch's calls have learnt: the action log's head
// and the projects read.
type BatchMemo struct {
	Head     ChainHead
	Projects ProjectMemo
}

// ChainHead is the action log's head as the batch's last append left it:
// the calls of one batch run one after another in one transaction holding
// the writers' lock, so the next call's action follows it without reading
// the log again. Only Tx.AppendActionEvent sets it; whatever else could
// move the head or open or close an audit session forgets it (Forget).
type ChainHead struct {
	known    bool
	position int64
	hash     string
	open     bool // an audit session is open
}

// Forget makes the next append read the head from the database.
func (h *ChainHead) Forget() {
	if h != nil {
		h.known = false
	}
}

// Call runs one call of the batch with the batch's memo. A call that
// fails (or panics) is rolled back to its savepoint, its appends with it,
// so the head it leaves is put back as it was, and the projects it may
// have read after changing them are forgotten.
func (b *BatchTx) Call(fn func(t *sql.Tx, m *BatchMemo) error) (err error) {
	saved, ok := b.memo.Head, false
	defer func() {
		if !ok {
			b.memo.Head = saved
			b.memo.Projects.ForgetAll()
		}
	}()
	err = fn(b.Tx, &b.memo)
	ok = err == nil
	return err
}

// SQLGroupTx is the GroupTx of a database/sql transaction, as both stores
// begin theirs.
func SQLGroupTx(t *sql.Tx) *GroupTx[*BatchTx] {
	return &GroupTx[*BatchTx]{
		Tx: &BatchTx{Tx: t},
		Exec: func(ctx context.Context, stmt string) error {
			_, err := t.ExecContext(ctx, stmt)
			return err
		},
		Commit:   t.Commit,
		Rollback: t.Rollback,
	}
}

// Group batches the write transactions of one store. The zero value is
// not usable: set Begin.
type Group[T any] struct {
	// Begin starts the batch's transaction, having taken whatever
	// serialises writers (the writer connection, the advisory lock). ctx
	// carries no cancellation, only the earliest deadline of the batch's
	// calls (none when no call has one), to bound waiting for a lock: a
	// Begin that gives up when it passes fails the calls out of time, and
	// the others go on to the next batch, so no call waits past its
	// deadline for calls that have time left.
	Begin func(ctx context.Context) (*GroupTx[T], error)
	// MaxBatch bounds the calls in one transaction (DefaultMaxBatch when
	// zero); MaxTime stops starting more calls of a batch once its
	// transaction has run this long since Begin returned (the wait for the
	// writers' lock does not count; DefaultMaxBatchTime when zero): the
	// rest go to the next batch, so no batch holds the writer long.
	MaxBatch int
	MaxTime  time.Duration
	// Committed, when set, is called after each successful COMMIT with the
	// number of calls it acknowledged (the SQLite store counts writes for
	// its checkpointer with it; tests replace it).
	Committed func(n int)

	mu      sync.Mutex
	queue   []*groupCall[T]
	leading bool
}

// Defaults for Group's bounds.
const (
	DefaultMaxBatch     = 64
	DefaultMaxBatchTime = 10 * time.Millisecond
)

// savepoint is the name every call's savepoint takes. None is released:
// a savepoint established later hides an earlier one of the same name,
// so ROLLBACK TO undoes only the call that failed, and a RELEASE would be
// one more round trip per call on PostgreSQL, under the writers' lock,
// for nothing the COMMIT does not do.
const savepoint = "baton_call"

// groupCall is one waiting call.
type groupCall[T any] struct {
	ctx context.Context
	fn  func(T) error
	// wake receives when the call is made leader and when it is finished
	// (each at most once, so one slot never blocks a sender).
	wake     chan struct{}
	promoted bool // made leader (under Group.mu)
	taken    bool // in a running batch: it cannot leave (under Group.mu)
	finished bool
	err      error
	panicked bool
	panicVal any
}

// Do runs fn in a write transaction shared with the other calls queued
// now, and returns once that transaction committed (nil), or fn failed and
// its changes were rolled back (fn's error), or the batch could not commit
// (its error: a busy one is the caller's to retry, as with RetryBusy). A
// panic in fn is rolled back and raised again here, in the caller's
// goroutine.
func (g *Group[T]) Do(ctx context.Context, fn func(T) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := &groupCall[T]{ctx: ctx, fn: fn, wake: make(chan struct{}, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead {
		select {
		case <-c.wake:
		case <-ctx.Done():
			g.mu.Lock()
			if !c.taken && !c.promoted {
				g.remove(c)
				g.mu.Unlock()
				return ctx.Err()
			}
			g.mu.Unlock()
			<-c.wake
		}
		lead = c.promoted
	}
	for lead {
		g.mu.Lock()
		c.promoted = false
		g.mu.Unlock()
		g.lead()
		// The leader's call heads its batch, so it is finished now, unless
		// the batch could not begin in the time of a call beside it: then
		// it went back to the head of the queue, and lead promoted it.
		g.mu.Lock()
		lead = !c.finished
		g.mu.Unlock()
		if lead {
			<-c.wake
			lead = c.promoted
		}
	}
	if c.panicked {
		panic(c.panicVal)
	}
	return c.err
}

// Queued is how many calls wait for a batch (for tests and metrics).
func (g *Group[T]) Queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// remove takes c out of the queue (under mu).
func (g *Group[T]) remove(c *groupCall[T]) {
	for i, q := range g.queue {
		if q == c {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			return
		}
	}
}

// lead runs one batch from the head of the queue (where the leader's own
// call is), then passes the lead on.
func (g *Group[T]) lead() {
	limit := g.MaxBatch
	if limit <= 0 {
		limit = DefaultMaxBatch
	}
	g.mu.Lock()
	n := min(limit, len(g.queue))
	batch := append([]*groupCall[T](nil), g.queue[:n]...)
	g.queue = g.queue[n:]
	for _, c := range batch {
		c.taken = true
	}
	g.mu.Unlock()

	rest := g.runBatch(batch)

	g.mu.Lock()
	for _, c := range rest {
		c.taken = false
	}
	g.queue = append(rest, g.queue...)
	if len(g.queue) == 0 {
		g.leading = false
	} else {
		next := g.queue[0]
		next.promoted = true
		next.wake <- struct{}{}
	}
	g.mu.Unlock()
}

// finish reports the call's outcome and wakes it.
func (c *groupCall[T]) finish(err error) {
	c.finished, c.err = true, err
	c.wake <- struct{}{}
}

// runBatch runs calls in one transaction (again, without the failed call,
// if a failure ends the transaction) and finishes each of them; it returns
// the calls the time budget left for the next batch.
func (g *Group[T]) runBatch(calls []*groupCall[T]) (rest []*groupCall[T]) {
	budget := g.MaxTime
	if budget <= 0 {
		budget = DefaultMaxBatchTime
	}
	var tx *GroupTx[T]
	// Whatever happens in here (a panic in the store's own code
	// included), no call is left waiting and the transaction ends.
	defer func() {
		if p := recover(); p != nil {
			if tx != nil {
				_ = tx.Rollback()
			}
			for _, c := range calls {
				if !c.finished {
					c.finish(fmt.Errorf("group commit: %v", p))
				}
			}
			rest = nil
		}
	}()
	for len(calls) > 0 {
		ctx, cancel := batchContext(calls)
		var err error
		tx, err = g.Begin(ctx)
		// The deadline only bounds Begin's wait for the lock; the calls'
		// statements check their own contexts.
		late := ctx.Err() != nil
		cancel()
		if err != nil && late {
			// Begin gave up when the earliest deadline passed: the calls
			// out of time fail with their contexts' errors, as they would
			// have waiting alone; the others are the next batch's, led by
			// another goroutine, so this one's caller (maybe out of time)
			// returns now.
			now := time.Now()
			for _, c := range calls {
				if d, ok := c.ctx.Deadline(); ok && !now.Before(d) {
					<-c.ctx.Done() // its timer fires at d, if not yet
					c.finish(c.ctx.Err())
				} else {
					rest = append(rest, c)
				}
			}
			return rest
		}
		if err != nil {
			for _, c := range calls {
				c.finish(err)
			}
			return nil
		}
		// The budget counts from here: a batch that waited for another
		// replica's batch to let go of the lock still runs its calls.
		start := time.Now()
		var ran []*groupCall[T] // succeeded, awaiting the COMMIT
		var again []*groupCall[T]
		for i, c := range calls {
			if i > 0 && time.Since(start) > budget {
				rest = calls[i:]
				break
			}
			if err := c.ctx.Err(); err != nil {
				c.finish(err)
				continue
			}
			// The first call to run in the transaction needs no
			// savepoint (a round trip on PostgreSQL): its failure rolls
			// back a transaction holding nothing else, and the calls after
			// it begin a new one. Under load most batches run one or two
			// calls before their time is up.
			err, alive := g.runCall(tx, c, len(ran) == 0)
			if err == nil {
				ran = append(ran, c)
				continue
			}
			c.finish(err)
			if !alive {
				// The transaction ended under c: the calls before it
				// lost their changes and run again in a new one.
				again = append(ran, calls[i+1:]...)
				break
			}
		}
		if again != nil || len(ran) == 0 {
			// Nothing to commit. (After the first call's failure runCall
			// rolled back already; a second Rollback does nothing.)
			_ = tx.Rollback()
			tx = nil
			if again != nil {
				calls, rest = again, nil
				continue
			}
			return rest
		}
		// A failed COMMIT leaves no transaction behind: the drivers roll
		// it back (modernc when SQLite keeps it open after SQLITE_BUSY).
		err = tx.Commit()
		tx = nil
		if err == nil && g.Committed != nil {
			g.Committed(len(ran))
		}
		for _, c := range ran {
			c.finish(err)
		}
		return rest
	}
	return rest
}

// runCall runs one call's fn under a savepoint, rolled back to on failure
// or panic and left open otherwise (see savepoint). The first call of a
// transaction runs without one, and its failure rolls the transaction
// back. alive reports whether the transaction is still open for the next
// call.
func (g *Group[T]) runCall(tx *GroupTx[T], c *groupCall[T], first bool) (err error, alive bool) {
	bg := context.WithoutCancel(c.ctx)
	if !first {
		if err := tx.Exec(bg, "SAVEPOINT "+savepoint); err != nil {
			return err, false
		}
	}
	var p any
	panicked := false
	func() {
		defer func() {
			if r := recover(); r != nil {
				p, panicked = r, true
			}
		}()
		err = c.fn(tx.Tx)
	}()
	if panicked {
		c.panicked, c.panicVal = true, p
		err = fmt.Errorf("%w: %v", errCallPanicked, p)
	}
	if first {
		if err != nil {
			_ = tx.Rollback()
			return err, false
		}
		return nil, true
	}
	if err != nil {
		// A failing ROLLBACK TO means the transaction itself is gone.
		if rerr := tx.Exec(bg, "ROLLBACK TO SAVEPOINT "+savepoint); rerr != nil {
			return err, false
		}
		return err, true
	}
	return nil, true
}

// batchContext is the context a batch begins under: no cancellation (a
// call leaving must not end the others' transaction), and the earliest of
// the calls' deadlines, if any has one.
func batchContext[T any](calls []*groupCall[T]) (context.Context, context.CancelFunc) {
	ctx := context.WithoutCancel(calls[0].ctx)
	var earliest time.Time
	for _, c := range calls {
		if d, ok := c.ctx.Deadline(); ok && (earliest.IsZero() || d.Before(earliest)) {
			earliest = d
		}
	}
	if earliest.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, earliest)
}

// Uninterrupted runs q's statements without their contexts' cancellation,
// checking the context before each statement instead: a call of a group
// commit whose time runs out stops at the next statement rather than
// having the driver interrupt one mid-way (which on SQLite can roll back
// the whole batch's transaction; see Group). Statements are short; the
// longest a call overruns its deadline is one of them.
func Uninterrupted(q Querier) Querier { return uninterrupted{q} }

type uninterrupted struct{ q Querier }

func (u uninterrupted) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return u.q.ExecContext(context.WithoutCancel(ctx), query, args...)
}

func (u uninterrupted) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return u.q.QueryContext(context.WithoutCancel(ctx), query, args...)
}

// QueryRowContext hands an ended ctx to the transaction as it is:
// database/sql then returns a Row holding ctx's error without running the
// statement (a *sql.Row cannot be made with an error otherwise).
func (u uninterrupted) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if ctx.Err() != nil {
		return u.q.QueryRowContext(ctx, query, args...)
	}
	return u.q.QueryRowContext(context.WithoutCancel(ctx), query, args...)
}

// errCallPanicked is in the error of a call whose fn panicked, for the
// batch's bookkeeping; the caller sees the panic itself.
var errCallPanicked = errors.New("panic in a write transaction")
