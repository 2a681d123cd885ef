package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	msqlite "modernc.org/sqlite"
)

func init() {
	// gc_test_sleep(ms) sleeps, then returns 1: a write that takes as long
	// as a test needs whatever the machine's speed.
	msqlite.MustRegisterScalarFunction("gc_test_sleep", 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		time.Sleep(time.Duration(args[0].(int64)) * time.Millisecond)
		return int64(1), nil
	})
}

// otherProcess opens the store's file on a connection of its own, as
// another process would: what it sees is committed.
func otherProcess(t *testing.T, s *Store) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.Path()}).EscapedPath()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func projectExists(t *testing.T, db *sql.DB, slug string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM projects WHERE slug = ?`, slug).Scan(&n); err != nil {
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

func newProject(i int) *baton.Project {
	return &baton.Project{Slug: fmt.Sprintf("p%d", i), Prefix: fmt.Sprintf("P%d", i)}
}

// TestGroupCommitManyWriters: concurrent Updates, some failing, some
// panicking, some with contexts already ended or ended while they run,
// share transactions; exactly the successful ones are visible afterwards,
// each to another process as soon as its Update returned; the others left
// nothing; the batches did batch; no goroutine is left behind.
func TestGroupCommitManyWriters(t *testing.T) {
	before := runtime.NumGoroutine()
	s := openTemp(t)
	other := otherProcess(t, s)
	var biggest atomic.Int64
	s.group.Committed = func(n int) {
		for {
			b := biggest.Load()
			if int64(n) <= b || biggest.CompareAndSwap(b, int64(n)) {
				return
			}
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
			switch i % 5 {
			case 0: // succeeds; committed when Update returns
				if err := s.Update(ctx, func(tx baton.Tx) error { return tx.CreateProject(ctx, p) }); err != nil {
					t.Errorf("%s: %v", p.Slug, err)
					return
				}
				if !projectExists(t, other, p.Slug) {
					t.Errorf("%s: Update returned before its commit", p.Slug)
				}
				mu.Lock()
				want = append(want, p.Slug)
				mu.Unlock()
			case 1: // fails after writing
				err := s.Update(ctx, func(tx baton.Tx) error {
					if err := tx.CreateProject(ctx, p); err != nil {
						return err
					}
					return errFail
				})
				if !errors.Is(err, errFail) {
					t.Errorf("%s: %v, want its own error", p.Slug, err)
				}
			case 2: // panics after writing
				func() {
					defer func() {
						if r := recover(); r != "boom" {
							t.Errorf("%s: recovered %v, want the panic raised again", p.Slug, r)
						}
					}()
					_ = s.Update(ctx, func(tx baton.Tx) error {
						if err := tx.CreateProject(ctx, p); err != nil {
							return err
						}
						panic("boom")
					})
				}()
			case 3: // its deadline has passed already
				dead, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
				defer cancel()
				err := s.Update(dead, func(tx baton.Tx) error { return tx.CreateProject(dead, p) })
				if e := baton.AsError(err); e == nil || e.Code != baton.ErrRateLimited {
					t.Errorf("%s: %v, want the busy error", p.Slug, err)
				}
			case 4: // cancelled between its statements
				cctx, cancel := context.WithCancel(ctx)
				err := s.Update(cctx, func(tx baton.Tx) error {
					if err := tx.CreateProject(cctx, p); err != nil {
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
	sort.Strings(want)
	if got := slugs(t, s); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("projects:\n got %v\nwant %v", got, want)
	}
	if biggest.Load() < 2 {
		t.Logf("no batch held more than one call (largest %d): the machine ran the writers one by one", biggest.Load())
	}
	// The writer is out of any transaction: a plain Update works.
	if err := s.Update(context.Background(), func(tx baton.Tx) error { return tx.CreateProject(context.Background(), newProject(n)) }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	other.Close()
	waitGoroutines(t, before)
}

// waitGoroutines fails the test unless the goroutines settle back to
// about before (database/sql's and the runtime's own come and go).
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		now := runtime.NumGoroutine()
		if now <= before+2 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", now, before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// queued waits until n calls wait in the group's queue.
func queued(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		q := s.group.Queued()
		if q >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// batchOf runs the calls fns as one batch: a first Update holds the
// writer until they are all queued behind it.
func batchOf(t *testing.T, s *Store, fns ...func() error) ([]error, []int) {
	t.Helper()
	release := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_ = s.Update(context.Background(), func(baton.Tx) error {
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
		queued(t, s, i+1) // in this order
	}
	var sizes []int
	var smu sync.Mutex
	s.group.Committed = func(n int) { smu.Lock(); sizes = append(sizes, n); smu.Unlock() }
	close(release)
	wg.Wait()
	s.group.Committed = nil
	return errs, sizes
}

// TestGroupCommitCancelMidStatement: a call whose context ends while one
// of its writes runs does not take the batch down with it. The driver
// would interrupt that write (sqlite3_interrupt), and an interrupted
// UPDATE inside an explicit transaction rolls the whole transaction back,
// the calls committed before it in the batch included; the group runs
// calls' statements uninterrupted and checks the context between them.
func TestGroupCommitCancelMidStatement(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if err := s.Update(ctx, func(tx baton.Tx) error { return tx.CreateProject(ctx, newProject(0)) }); err != nil {
		t.Fatal(err)
	}
	slow, cancel := context.WithCancel(ctx)
	defer cancel()
	s.group.MaxTime = time.Minute // the long write must not split the batch
	// An UPDATE that takes 300 ms a row: the cancel lands inside it.
	const longWrite = `UPDATE projects SET name = name WHERE gc_test_sleep(300) > 0`
	var runs atomic.Int32
	errs, sizes := batchOf(t, s,
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { runs.Add(1); return tx.CreateProject(ctx, newProject(1)) })
		},
		func() error {
			return s.Update(slow, func(bt baton.Tx) error {
				if err := bt.CreateProject(slow, newProject(2)); err != nil {
					return err
				}
				time.AfterFunc(20*time.Millisecond, cancel)
				if _, err := bt.(*tx).Q.ExecContext(slow, longWrite); err != nil {
					return err
				}
				return bt.CreateProject(slow, newProject(3))
			})
		},
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { return tx.CreateProject(ctx, newProject(4)) })
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
	if got := strings.Join(slugs(t, s), ","); got != "p0,p1,p4" {
		t.Errorf("projects %s, want p0,p1,p4", got)
	}
}

// TestGroupCommitTransactionLost: a call that ends the shared transaction
// itself (here a bare ROLLBACK; in life an I/O error) fails, and the calls
// that ran before it in the batch run again in a new transaction rather
// than report a commit that did not happen.
func TestGroupCommitTransactionLost(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	var runs atomic.Int32
	errs, sizes := batchOf(t, s,
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error {
				runs.Add(1)
				return tx.CreateProject(ctx, newProject(1))
			})
		},
		func() error {
			return s.Update(ctx, func(t baton.Tx) error {
				if err := t.CreateProject(ctx, newProject(2)); err != nil {
					return err
				}
				_, err := t.(*tx).Q.ExecContext(ctx, "ROLLBACK")
				return errors.Join(errors.New("gone"), err)
			})
		},
		func() error {
			return s.Update(ctx, func(tx baton.Tx) error { return tx.CreateProject(ctx, newProject(3)) })
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

// TestGroupCommitBusyRetries: while another process holds the write lock,
// a batch's BEGIN fails busy; its calls try again, as one call alone does,
// and all commit once the lock is free.
func TestGroupCommitBusyRetries(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "baton.db"), Options{BusyTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := otherProcess(t, s).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { conn.ExecContext(ctx, "ROLLBACK") })
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := s.Update(cctx, func(tx baton.Tx) error { return tx.CreateProject(cctx, newProject(i)) }); err != nil {
				t.Errorf("p%d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if got := len(slugs(t, s)); got != 20 {
		t.Errorf("%d projects, want 20", got)
	}
}

// TestViewDoesNotWaitForWriter: a read runs while a write transaction is
// held open.
func TestViewDoesNotWaitForWriter(t *testing.T) {
	s := openTemp(t)
	release := make(chan struct{})
	held := make(chan struct{})
	go s.Update(context.Background(), func(baton.Tx) error { close(held); <-release; return nil })
	<-held
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.View(ctx, func(tx baton.Tx) error { _, err := tx.Projects(ctx); return err }); err != nil {
		t.Fatalf("a read while the writer is held: %v", err)
	}
}

// TestStmtCacheNestedAndBounded: a query run again inside the loop over
// its own rows gets a statement of its own (the cached one is stepping);
// the cache stays bounded by stmtCacheSize whatever texts pass through.
func TestStmtCacheNestedAndBounded(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for i := range 3 {
		if err := s.Update(ctx, func(tx baton.Tx) error { return tx.CreateProject(ctx, newProject(i)) }); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT slug FROM projects ORDER BY slug`
	err := s.View(ctx, func(bt baton.Tx) error {
		t := bt.(*tx)
		rows, err := t.Q.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		var outer []string
		for rows.Next() {
			var slug string
			if err := rows.Scan(&slug); err != nil {
				return err
			}
			outer = append(outer, slug)
			inner, err := t.Strings(ctx, q)
			if err != nil {
				return err
			}
			if strings.Join(inner, ",") != "p0,p1,p2" {
				return fmt.Errorf("inner %v", inner)
			}
		}
		if strings.Join(outer, ",") != "p0,p1,p2" {
			return fmt.Errorf("outer %v", outer)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	// Many distinct texts (as IN lists of every length make).
	for n := 1; n <= 2*stmtCacheSize; n++ {
		err := s.Update(ctx, func(bt baton.Tx) error {
			args := make([]any, n)
			for i := range args {
				args[i] = fmt.Sprintf("p%d", i)
			}
			_, err := bt.(*tx).Strings(ctx, `SELECT slug FROM projects WHERE slug IN (`+strings.Repeat("?,", n-1)+`?)`, args...)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*cachingConn)
		if c.lru.Len() > stmtCacheSize || len(c.stmts) != c.lru.Len() {
			return fmt.Errorf("cache holds %d statements (%d keys), bound %d", c.lru.Len(), len(c.stmts), stmtCacheSize)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
