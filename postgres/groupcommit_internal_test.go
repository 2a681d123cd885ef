package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// schemaSeq numbers the tests' schemas.
var schemaSeq atomic.Int64

// openGC opens a store on a schema of its own, dropped afterwards; params
// are added to the URL.
func openGC(t *testing.T, params string) *Store {
	t.Helper()
	dsn := os.Getenv("BATON_TEST_POSTGRES_URL")
	if dsn == "" {
		t.Skip("BATON_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable); .ci/run sets it")
	}
	ctx := context.Background()
	schema := fmt.Sprintf("gc_%d_%d", os.Getpid(), schemaSeq.Add(1))
	s, err := Open(ctx, dsn+params, Options{Schema: schema, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if err := DropSchema(ctx, dsn, schema); err != nil {
			t.Error(err)
		}
	})
	return s
}

// replica opens another store on s's schema.
func replica(t *testing.T, s *Store, params string) *Store {
	t.Helper()
	r, err := Open(context.Background(), os.Getenv("BATON_TEST_POSTGRES_URL")+params, Options{Schema: s.schema, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func newProject(i int) *baton.Project {
	return &baton.Project{Slug: fmt.Sprintf("p%d", i), Prefix: fmt.Sprintf("P%d", i)}
}

// created creates p and appends an event of its project (a NOTIFY).
func created(ctx context.Context, tx baton.Tx, p *baton.Project) error {
	if err := tx.CreateProject(ctx, p); err != nil {
		return err
	}
	return tx.AppendEvent(ctx, &baton.Event{Project: p.Slug, Type: "project.created"})
}

// committed reports whether another connection sees the project.
func committed(t *testing.T, s *Store, slug string) bool {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM projects WHERE slug = $1`, slug).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func slugs(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	err := s.View(context.Background(), func(tx baton.Tx) error {
		ps, err := tx.Projects(context.Background())
		for _, p := range ps {
			out = append(out, p.Slug)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// queued waits until n calls wait in the group's queue.
func queued(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.group.Queued() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", s.group.Queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// batchOf runs the calls fns as one batch: a first Update holds the
// writer until they are all queued behind it, in order. It returns each
// call's error and the number of calls each COMMIT acknowledged. The
// batch's time budget is lifted, so a slow machine does not split it.
func batchOf(t *testing.T, s *Store, fns ...func() error) ([]error, []int) {
	t.Helper()
	s.group.MaxTime = time.Hour
	release, held := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(context.Background(), func(baton.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = fn() }()
		queued(t, s, i+1)
	}
	var sizes []int
	var mu sync.Mutex
	s.group.Committed = func(n int) { mu.Lock(); sizes = append(sizes, n); mu.Unlock() }
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatalf("the call holding the writer: %v", err)
	}
	s.group.Committed = nil
	return errs, sizes
}

// listen starts s's listener and returns the projects it is woken for;
// it has caught up (is listening) when it returns.
func listen(t *testing.T, s *Store) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: "listening", Prefix: "LSN"})
	}); err != nil {
		t.Fatal(err)
	}
	woken := make(chan string, 1024)
	go s.Listen(ctx, func(p string) { woken <- p }, nil)
	select {
	case p := <-woken:
		if p != "listening" {
			t.Fatalf("first wake-up %q, want the catch-up of listening", p)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the listener never caught up")
	}
	return woken
}

// wokenUntil collects wake-ups until last's (notifications come in commit
// order, so every earlier commit's has come by then).
func wokenUntil(t *testing.T, woken <-chan string, last string) []string {
	t.Helper()
	var got []string
	for {
		select {
		case p := <-woken:
			if p == last {
				sort.Strings(got)
				return got
			}
			got = append(got, p)
		case <-time.After(30 * time.Second):
			t.Fatalf("no wake-up for %s; got %v", last, got)
		}
	}
}

// TestGroupCommitManyWriters: concurrent Updates, some failing (one with
// a statement error, which aborts a PostgreSQL transaction), some
// panicking, some with contexts already ended or ended between their
// statements, share transactions; exactly the successful ones are visible
// afterwards, each on another connection as soon as its Update returned;
// only their events reach another replica's listener (NOTIFY of a call
// rolled back to its savepoint is dropped); the batches did batch; no
// goroutine is left behind.
func TestGroupCommitManyWriters(t *testing.T) {
	// Not parallel: it counts the process's goroutines.
	before := runtime.NumGoroutine()
	s := openGC(t, "")
	woken := listen(t, replica(t, s, ""))
	var biggest atomic.Int64
	s.group.Committed = func(n int) {
		for b := biggest.Load(); int64(n) > b && !biggest.CompareAndSwap(b, int64(n)); b = biggest.Load() {
		}
	}
	errFail := errors.New("the call fails")
	const n = 300
	var wg sync.WaitGroup
	var mu sync.Mutex
	var want []string
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newProject(i)
			ctx := context.Background()
			switch i % 6 {
			case 0: // succeeds; committed when Update returns
				if err := s.Update(ctx, func(tx baton.Tx) error { return created(ctx, tx, p) }); err != nil {
					t.Errorf("%s: %v", p.Slug, err)
					return
				}
				if !committed(t, s, p.Slug) {
					t.Errorf("%s: Update returned before its commit", p.Slug)
				}
				mu.Lock()
				want = append(want, p.Slug)
				mu.Unlock()
			case 1: // fails after writing
				err := s.Update(ctx, func(tx baton.Tx) error {
					if err := created(ctx, tx, p); err != nil {
						return err
					}
					return errFail
				})
				if !errors.Is(err, errFail) {
					t.Errorf("%s: %v, want its own error", p.Slug, err)
				}
			case 2: // a failed statement: PostgreSQL aborts the transaction
				err := s.Update(ctx, func(tx baton.Tx) error {
					if err := created(ctx, tx, p); err != nil {
						return err
					}
					return tx.CreateProject(ctx, p)
				})
				if err == nil {
					t.Errorf("%s: creating it twice succeeded", p.Slug)
				}
			case 3: // panics after writing
				func() {
					defer func() {
						if r := recover(); r != "boom" {
							t.Errorf("%s: recovered %v, want the panic raised again", p.Slug, r)
						}
					}()
					_ = s.Update(ctx, func(tx baton.Tx) error {
						if err := created(ctx, tx, p); err != nil {
							return err
						}
						panic("boom")
					})
				}()
			case 4: // its deadline has passed already
				dead, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
				defer cancel()
				err := s.Update(dead, func(tx baton.Tx) error { return created(dead, tx, p) })
				if e := baton.AsError(err); e == nil || e.Code != baton.ErrRateLimited {
					t.Errorf("%s: %v, want the busy error", p.Slug, err)
				}
			case 5: // cancelled between its statements
				cctx, cancel := context.WithCancel(ctx)
				err := s.Update(cctx, func(tx baton.Tx) error {
					if err := created(cctx, tx, p); err != nil {
						return err
					}
					cancel()
					return tx.CreateProject(cctx, &baton.Project{Slug: p.Slug + "x", Prefix: p.Prefix + "X"})
				})
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s: %v, want context.Canceled", p.Slug, err)
				}
			}
		}()
	}
	wg.Wait()
	s.group.Committed = nil
	sort.Strings(want)
	if got := slugs(t, s); strings.Join(got, ",") != strings.Join(append([]string{"listening"}, want...), ",") {
		t.Errorf("projects:\n got %v\nwant %v", got, want)
	}
	if biggest.Load() < 2 {
		t.Logf("no batch held more than one call (largest %d): the machine ran the writers one by one", biggest.Load())
	}
	// The writer is out of any transaction: a plain Update works, and its
	// wake-up comes after every earlier commit's.
	ctx := context.Background()
	if err := s.Update(ctx, func(tx baton.Tx) error { return created(ctx, tx, newProject(n)) }); err != nil {
		t.Fatal(err)
	}
	if got := wokenUntil(t, woken, newProject(n).Slug); strings.Join(slices.Compact(got), ",") != strings.Join(want, ",") {
		t.Errorf("wake-ups:\n got %v\nwant %v", got, want)
	}
	s.Close()
	waitGoroutines(t, before)
}

// waitGoroutines fails the test unless the goroutines settle back to
// about before (database/sql's, pgx's and the runtime's own come and go).
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		now := runtime.NumGoroutine()
		if now <= before+4 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", now, before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGroupCommitCancelMidStatement: a call whose context ends while one
// of its statements runs does not take the batch down with it. Cancelled
// under it, pgx would cut the connection (and the shared transaction with
// it); the group runs calls' statements uncancelled and checks the context
// between them.
func TestGroupCommitCancelMidStatement(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	slow, cancel := context.WithCancel(ctx)
	defer cancel()
	var runs atomic.Int32
	errs, sizes := batchOf(t, s,
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { runs.Add(1); return created(ctx, tx, newProject(1)) })
		},
		func() error {
			return s.Update(slow, func(bt baton.Tx) error {
				if err := created(slow, bt, newProject(2)); err != nil {
					return err
				}
				time.AfterFunc(20*time.Millisecond, cancel)
				if _, err := bt.(*tx).Q.ExecContext(slow, `SELECT pg_sleep(0.3)`); err != nil {
					return err
				}
				return created(slow, bt, newProject(3))
			})
		},
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { return created(ctx, tx, newProject(4)) })
		},
	)
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the other calls: %v, %v", errs[0], errs[2])
	}
	if !errors.Is(errs[1], context.Canceled) {
		t.Errorf("the cancelled call: %v, want context.Canceled", errs[1])
	}
	if fmt.Sprint(sizes) != "[1 2]" {
		t.Errorf("commits of %v calls, want [1 2]: the three calls were not one batch", sizes)
	}
	// Once: the transaction survived the cancel (had it been lost, the
	// group would have run the first call again in a new one).
	if runs.Load() != 1 {
		t.Errorf("the call before the cancelled one ran %d times, want 1", runs.Load())
	}
	if got := strings.Join(slugs(t, s), ","); got != "p1,p4" {
		t.Errorf("projects %s, want p1,p4", got)
	}
}

// TestGroupCommitFailedStatement: a statement error aborts a PostgreSQL
// transaction; the failing call is rolled back to its savepoint, which
// revives the transaction for the calls after it, so the batch commits
// once with the others' changes and none of the failed call's.
func TestGroupCommitFailedStatement(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	var runs atomic.Int32
	errs, sizes := batchOf(t, s,
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { runs.Add(1); return created(ctx, tx, newProject(1)) })
		},
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error {
				if err := created(ctx, tx, newProject(2)); err != nil {
					return err
				}
				return tx.CreateProject(ctx, newProject(2)) // unique violation
			})
		},
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { return created(ctx, tx, newProject(3)) })
		},
	)
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the other calls: %v, %v", errs[0], errs[2])
	}
	if errs[1] == nil {
		t.Error("creating a project twice succeeded")
	}
	if runs.Load() != 1 || fmt.Sprint(sizes) != "[1 2]" {
		t.Errorf("the first call ran %d times, commits of %v calls; want once, [1 2]", runs.Load(), sizes)
	}
	if got := strings.Join(slugs(t, s), ","); got != "p1,p3" {
		t.Errorf("projects %s, want p1,p3", got)
	}
}

// TestGroupCommitTransactionLost: a call that ends the shared transaction
// itself (here a bare ROLLBACK; in life a lost connection) fails, and the
// calls that ran before it in the batch run again in a new transaction
// rather than report a commit that did not happen.
func TestGroupCommitTransactionLost(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	var runs atomic.Int32
	errs, sizes := batchOf(t, s,
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { runs.Add(1); return created(ctx, tx, newProject(1)) })
		},
		func() error {
			return s.Update(ctx, func(bt baton.Tx) error {
				if err := created(ctx, bt, newProject(2)); err != nil {
					return err
				}
				_, err := bt.(*tx).Q.ExecContext(ctx, "ROLLBACK")
				return errors.Join(errors.New("gone"), err)
			})
		},
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { return created(ctx, tx, newProject(3)) })
		},
	)
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the other calls: %v, %v", errs[0], errs[2])
	}
	if errs[1] == nil {
		t.Error("the call that ended the transaction succeeded")
	}
	if runs.Load() != 2 {
		t.Errorf("the call before it ran %d times, want 2", runs.Load())
	}
	if fmt.Sprint(sizes) != "[1 2]" {
		t.Errorf("commits of %v calls, want [1 2]", sizes)
	}
	if got := strings.Join(slugs(t, s), ","); got != "p1,p3" {
		t.Errorf("projects %s, want p1,p3", got)
	}
}

// TestGroupCommitReplicasSerialised: a batch holds the writers' advisory
// lock until its COMMIT, so another replica's write waits for it (on the
// lock, in PostgreSQL) and then commits; with a lock_timeout it meets
// 55P03, which is retried until the lock is free.
func TestGroupCommitReplicasSerialised(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	other := replica(t, s, "&lock_timeout=20")
	ctx := context.Background()
	release, held := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Update(ctx, func(tx baton.Tx) error {
			if err := created(ctx, tx, newProject(1)); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	otherDone := make(chan error, 1)
	go func() {
		otherDone <- other.Update(ctx, func(bt baton.Tx) error {
			// The first replica's change is committed before this runs.
			var n int
			if err := bt.(*tx).Q.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE slug = 'p1'`).Scan(&n); err != nil {
				return err
			}
			if n != 1 {
				return fmt.Errorf("ran beside the other replica's batch: p1 not committed")
			}
			return created(ctx, bt, newProject(2))
		})
	}()
	// The other replica's batch meets the lock (and its lock_timeout) at
	// least once before the first lets go.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event = 'advisory'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		select {
		case err := <-otherDone:
			t.Fatalf("the other replica's write returned while the lock was held: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the other replica never waited for the writers' lock")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-otherDone; err != nil {
		t.Fatalf("the other replica's write: %v", err)
	}
	if got := strings.Join(slugs(t, s), ","); got != "p1,p2" {
		t.Errorf("projects %s, want p1,p2", got)
	}
}

// TestGroupCommitDeadlineWhileLocked: a call's deadline holds while its
// batch waits for the writers' lock, even beside a call without one in the
// same batch: it fails with the retryable busy error while another replica
// still holds the lock, having written nothing, and the other call commits
// once the lock is free. Whichever of the two leads the batch.
func TestGroupCommitDeadlineWhileLocked(t *testing.T) {
	t.Parallel()
	for _, shortFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("short first %v", shortFirst), func(t *testing.T) { deadlineWhileLocked(t, shortFirst) })
	}
}

func deadlineWhileLocked(t *testing.T, shortFirst bool) {
	s := openGC(t, "")
	holder := replica(t, s, "")
	ctx := context.Background()
	s.group.MaxTime = time.Hour
	// This store's first batch holds the lock while the next two calls
	// queue behind it and the other replica waits for the lock.
	release1, held1 := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, func(tx baton.Tx) error {
			close(held1)
			<-release1
			return created(ctx, tx, newProject(1))
		})
	}()
	<-held1
	patient, short := make(chan error, 1), make(chan error, 1)
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	calls := []func(){
		func() { patient <- s.Update(ctx, func(tx baton.Tx) error { return created(ctx, tx, newProject(2)) }) },
		func() { short <- s.Update(sctx, func(tx baton.Tx) error { return created(sctx, tx, newProject(3)) }) },
	}
	if shortFirst {
		slices.Reverse(calls)
	}
	for i, call := range calls {
		go call()
		queued(t, s, i+1)
	}
	release2, held2 := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- holder.Update(ctx, func(baton.Tx) error { close(held2); <-release2; return nil })
	}()
	waitAdvisory(t, s, 1)
	defer func() {
		select {
		case <-release2:
		default:
			close(release2)
		}
	}()
	// The first batch commits; the other replica takes the lock (it was
	// waiting first) and holds it; the batch of the two calls waits.
	close(release1)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	<-held2
	select {
	case err := <-short:
		if e := baton.AsError(err); e == nil || e.Code != baton.ErrRateLimited || e.Type != "busy" {
			t.Errorf("the call with a deadline: %v, want ERR_RATE_LIMITED type busy", err)
		}
	case err := <-patient:
		t.Fatalf("the call without a deadline returned while the lock was held: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the call with a deadline did not return while the other replica held the lock")
	}
	close(release2)
	for _, c := range []chan error{done, patient} {
		if err := <-c; err != nil {
			t.Error(err)
		}
	}
	if got := strings.Join(slugs(t, s), ","); got != "p1,p2" {
		t.Errorf("projects %s, want p1,p2", got)
	}
}

// waitAdvisory waits until n sessions wait for an advisory lock.
func waitAdvisory(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event = 'advisory'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait for the writers' lock, want %d", waiting, n)
		}
		time.Sleep(time.Millisecond)
	}
}
