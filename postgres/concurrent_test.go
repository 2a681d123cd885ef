package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestConcurrentWriters (issue 18; they share group commits, see
// groupcommit_internal_test.go): concurrent Updates, some failing (one
// with a statement error that aborts a PostgreSQL transaction), some
// panicking, some with contexts already ended or ended between their
// statements, run; exactly the successful ones are visible afterwards,
// each on another connection as soon as its Update returned.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	s := testkit.OpenPostgres(t, nil)
	ctx := context.Background()
	errFail := errors.New("the call fails")
	const n = 200
	var wg sync.WaitGroup
	var mu sync.Mutex
	var want []string
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &baton.Project{Slug: fmt.Sprintf("p%d", i), Prefix: fmt.Sprintf("P%d", i)}
			switch i % 6 {
			case 0:
				if err := s.Update(ctx, func(tx baton.Tx) error { return tx.CreateProject(ctx, p) }); err != nil {
					t.Errorf("%s: %v", p.Slug, err)
					return
				}
				var n int
				if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE slug = $1`, p.Slug).Scan(&n); err != nil || n != 1 {
					t.Errorf("%s: Update returned before its commit (%d, %v)", p.Slug, n, err)
				}
				mu.Lock()
				want = append(want, p.Slug)
				mu.Unlock()
			case 1:
				err := s.Update(ctx, func(tx baton.Tx) error {
					if err := tx.CreateProject(ctx, p); err != nil {
						return err
					}
					return errFail
				})
				if !errors.Is(err, errFail) {
					t.Errorf("%s: %v, want its own error", p.Slug, err)
				}
			case 2: // a failed statement: PostgreSQL aborts the transaction
				err := s.Update(ctx, func(tx baton.Tx) error {
					if err := tx.CreateProject(ctx, p); err != nil {
						return err
					}
					return tx.CreateProject(ctx, p)
				})
				if err == nil {
					t.Errorf("%s: creating it twice succeeded", p.Slug)
				}
			case 3:
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
			case 4:
				dead, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
				defer cancel()
				err := s.Update(dead, func(tx baton.Tx) error { return tx.CreateProject(dead, p) })
				if e := baton.AsError(err); e == nil || e.Code != baton.ErrRateLimited {
					t.Errorf("%s: %v, want the busy error", p.Slug, err)
				}
			case 5:
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
	var got []string
	err := s.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.Projects(ctx)
		for _, p := range ps {
			got = append(got, p.Slug)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("projects:\n got %v\nwant %v", got, want)
	}
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: "last", Prefix: "LAST"})
	}); err != nil {
		t.Fatal(err)
	}
}
