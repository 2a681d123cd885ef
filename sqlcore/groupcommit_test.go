package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// lockedGroup is a Group whose Begin waits, as a store's waits for the
// writers' lock, while locked is held (or until its ctx's deadline).
type lockedGroup struct {
	Group[int]
	locked chan struct{} // receive to take the lock; closed: free for good
	mu     sync.Mutex
	sizes  []int
}

func newLockedGroup() *lockedGroup {
	g := &lockedGroup{locked: make(chan struct{})}
	g.MaxTime = time.Hour
	g.Committed = func(n int) { g.mu.Lock(); g.sizes = append(g.sizes, n); g.mu.Unlock() }
	g.Begin = func(ctx context.Context) (*GroupTx[int], error) {
		select {
		case <-g.locked:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the lock: %w", ctx.Err())
		}
		nop := func() error { return nil }
		return &GroupTx[int]{Exec: func(context.Context, string) error { return nil }, Commit: nop, Rollback: nop}, nil
	}
	return g
}

// TestGroupDeadlineWhileBeginning: a batch's Begin waits (for a lock) no
// longer than the earliest deadline of its calls; then the calls out of
// time fail with their contexts' errors, promptly, whichever of them leads
// the batch, and the others, without a deadline, go on to the next batch
// and commit once Begin can.
func TestGroupDeadlineWhileBeginning(t *testing.T) {
	for _, shortFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("short first %v", shortFirst), func(t *testing.T) {
			g := newLockedGroup()
			// A first call takes the lock and holds its batch open while
			// the two calls queue behind it.
			held, release := make(chan struct{}), make(chan struct{})
			first := make(chan error, 1)
			go func() {
				first <- g.Do(context.Background(), func(int) error { close(held); <-release; return nil })
			}()
			g.locked <- struct{}{}
			<-held
			short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			var ran sync.Map
			patientErr, shortErr := make(chan error, 1), make(chan error, 1)
			calls := []func(){
				func() {
					patientErr <- g.Do(context.Background(), func(int) error { ran.Store("patient", true); return nil })
				},
				func() { shortErr <- g.Do(short, func(int) error { ran.Store("short", true); return nil }) },
			}
			if shortFirst {
				slices.Reverse(calls)
			}
			for i, call := range calls {
				go call()
				for g.Queued() < i+1 {
					time.Sleep(time.Millisecond)
				}
			}
			close(release)
			if err := <-first; err != nil {
				t.Fatal(err)
			}
			// The lock stays taken: the short call's deadline passes.
			select {
			case err := <-shortErr:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("the call with a deadline: %v, want context.DeadlineExceeded", err)
				}
			case err := <-patientErr:
				t.Fatalf("the call without a deadline returned while the lock was taken: %v", err)
			case <-time.After(30 * time.Second):
				t.Fatal("the call with a deadline did not return while the lock was taken")
			}
			close(g.locked)
			if err := <-patientErr; err != nil {
				t.Errorf("the call without a deadline: %v", err)
			}
			if _, ok := ran.Load("short"); ok {
				t.Error("the call out of time ran")
			}
			if _, ok := ran.Load("patient"); !ok {
				t.Error("the call without a deadline did not run")
			}
			if fmt.Sprint(g.sizes) != "[1 1]" {
				t.Errorf("commits of %v calls, want [1 1]", g.sizes)
			}
			if q := g.Queued(); q != 0 {
				t.Errorf("%d calls left queued", q)
			}
		})
	}
}

// TestGroupBudgetCountsFromBegin: the time a batch waits in Begin (for
// the writers' lock, held by another replica's batch) does not count
// against its MaxTime, so the calls queued meanwhile still share one
// COMMIT instead of going one per batch.
func TestGroupBudgetCountsFromBegin(t *testing.T) {
	g := newLockedGroup()
	g.MaxTime = 100 * time.Millisecond
	held, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- g.Do(context.Background(), func(int) error { close(held); <-release; return nil })
	}()
	g.locked <- struct{}{}
	<-held
	const n = 5
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- g.Do(context.Background(), func(int) error { return nil }) }()
		for g.Queued() < i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// The next batch's Begin waits three budgets for the lock.
	time.Sleep(3 * g.MaxTime)
	close(g.locked)
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if fmt.Sprint(g.sizes) != fmt.Sprint([]int{1, n}) {
		t.Errorf("commits of %v calls, want [1 %d]", g.sizes, n)
	}
}

// fakeTx is a transaction of a store of strings: what its calls wrote,
// with savepoints as in SQL (ROLLBACK TO keeps the savepoint, RELEASE
// merges it into the one below).
type fakeTx struct {
	rows  []string
	marks []int
}

// fakeStore commits fakeTxs.
type fakeStore struct {
	mu        sync.Mutex
	committed []string
}

func (s *fakeStore) begin(context.Context) (*GroupTx[*fakeTx], error) {
	t := &fakeTx{}
	done := false
	return &GroupTx[*fakeTx]{
		Tx: t,
		Exec: func(_ context.Context, stmt string) error {
			if done {
				return errors.New("no transaction")
			}
			switch {
			case strings.HasPrefix(stmt, "SAVEPOINT "):
				t.marks = append(t.marks, len(t.rows))
			case strings.HasPrefix(stmt, "ROLLBACK TO SAVEPOINT "):
				t.rows = t.rows[:t.marks[len(t.marks)-1]]
			case strings.HasPrefix(stmt, "RELEASE SAVEPOINT "):
				t.marks = t.marks[:len(t.marks)-1]
			default:
				return fmt.Errorf("unexpected %q", stmt)
			}
			return nil
		},
		Commit: func() error {
			if done {
				return errors.New("no transaction")
			}
			done = true
			s.mu.Lock()
			s.committed = append(s.committed, t.rows...)
			s.mu.Unlock()
			return nil
		},
		Rollback: func() error { done = true; return nil },
	}, nil
}

// TestGroupFailureFirstOrLater: a call that fails after writing leaves
// nothing, and the calls beside it in its batch commit, whether it ran
// first in the transaction (which then rolls back whole, and the others
// run in a new one) or after others (rolled back to its savepoint).
func TestGroupFailureFirstOrLater(t *testing.T) {
	for _, failing := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("call %d fails", failing), func(t *testing.T) {
			st := &fakeStore{}
			g := &Group[*fakeTx]{Begin: st.begin, MaxTime: time.Hour}
			errFail := errors.New("fails")
			var want []string
			for i, err := range runQueued(t, g, 3, failing, errFail) {
				if i == failing {
					if !errors.Is(err, errFail) {
						t.Errorf("call %d: %v, want its error", i, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("call %d: %v", i, err)
				}
				want = append(want, fmt.Sprintf("c%d", i))
			}
			if fmt.Sprint(st.committed) != fmt.Sprint(want) {
				t.Errorf("committed %v, want %v", st.committed, want)
			}
		})
	}
}

// TestBatchCallKeepsTheMemoOfCallsThatStand: the chain head a call leaves
// is kept when it succeeds and put back when it fails or panics (its
// savepoint undid its appends); the projects read are kept after a call
// that succeeds and forgotten after one that fails or panics (what it
// read may have been its own change, rolled back).
func TestBatchCallKeepsTheMemoOfCallsThatStand(t *testing.T) {
	b := &BatchTx{}
	set := func(pos int64) func(*sql.Tx, *BatchMemo) error {
		return func(_ *sql.Tx, m *BatchMemo) error {
			m.Head = ChainHead{known: true, position: pos, hash: fmt.Sprint("h", pos)}
			m.Projects.put(&baton.Project{Slug: fmt.Sprint("p", pos)})
			return nil
		}
	}
	kept := func(slug string) bool { return b.memo.Projects.get(slug) != nil }
	if err := b.Call(set(1)); err != nil || b.memo.Head.position != 1 || !kept("p1") {
		t.Fatalf("a call that stands: err %v, head %+v, p1 kept %v", err, b.memo.Head, kept("p1"))
	}
	failed := errors.New("failed")
	if err := b.Call(func(tx *sql.Tx, m *BatchMemo) error { _ = set(2)(tx, m); return failed }); err != failed ||
		b.memo.Head.position != 1 || kept("p1") || kept("p2") {
		t.Fatalf("a call that failed: err %v, head %+v, want the head before it; p1 kept %v, p2 kept %v, want neither",
			err, b.memo.Head, kept("p1"), kept("p2"))
	}
	_ = b.Call(set(1))
	func() {
		defer func() { _ = recover() }()
		_ = b.Call(func(tx *sql.Tx, m *BatchMemo) error { _ = set(3)(tx, m); panic("boom") })
	}()
	if b.memo.Head.position != 1 || !b.memo.Head.known || kept("p1") || kept("p3") {
		t.Fatalf("after a call that panicked: head %+v, want the head before it; p1 kept %v, p3 kept %v, want neither",
			b.memo.Head, kept("p1"), kept("p3"))
	}
	b.memo.Head.Forget()
	if b.memo.Head.known {
		t.Fatal("Forget left the head known")
	}
}

// TestGroupStatementsOfABatch: of its own, a batch runs a SAVEPOINT for
// each call after the first and a ROLLBACK TO for each that fails, and
// releases none (on PostgreSQL each statement is a round trip under the
// writers' lock); the savepoints stack, so a rollback undoes only the call
// that failed.
func TestGroupStatementsOfABatch(t *testing.T) {
	st := &fakeStore{}
	var mu sync.Mutex
	var stmts []string
	begin := func(ctx context.Context) (*GroupTx[*fakeTx], error) {
		tx, err := st.begin(ctx)
		if err != nil {
			return nil, err
		}
		exec := tx.Exec
		tx.Exec = func(ctx context.Context, stmt string) error {
			mu.Lock()
			stmts = append(stmts, stmt)
			mu.Unlock()
			return exec(ctx, stmt)
		}
		return tx, nil
	}
	g := &Group[*fakeTx]{Begin: begin, MaxTime: time.Hour}
	errFail := errors.New("fails")
	for i, err := range runQueued(t, g, 4, 2, errFail) {
		if (i == 2) != errors.Is(err, errFail) {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if want := "[c0 c1 c3]"; fmt.Sprint(st.committed) != want {
		t.Errorf("committed %v, want %s", st.committed, want)
	}
	want := []string{"SAVEPOINT " + savepoint, "SAVEPOINT " + savepoint, "ROLLBACK TO SAVEPOINT " + savepoint, "SAVEPOINT " + savepoint}
	if !slices.Equal(stmts, want) {
		t.Errorf("the batch ran %q, want %q", stmts, want)
	}
}

// runQueued queues n calls behind one holding the writer, each writing the
// row c<i> and the one numbered failing then failing with errFail, lets
// them run as one batch and returns each call's error.
func runQueued(t *testing.T, g *Group[*fakeTx], n, failing int, errFail error) []error {
	t.Helper()
	held, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- g.Do(context.Background(), func(*fakeTx) error { close(held); <-release; return nil })
	}()
	<-held
	errs := make([]chan error, n)
	for i := range errs {
		errs[i] = make(chan error, 1)
		go func() {
			errs[i] <- g.Do(context.Background(), func(tx *fakeTx) error {
				tx.rows = append(tx.rows, fmt.Sprintf("c%d", i))
				if i == failing {
					return errFail
				}
				return nil
			})
		}()
		for g.Queued() < i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	out := make([]error, n)
	for i, c := range errs {
		out[i] = <-c
	}
	return out
}
