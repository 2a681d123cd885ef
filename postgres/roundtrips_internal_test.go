package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// TestActivityTrustsAnItemReadBefore: recording work on an item (here a
// comment) checks that the item exists, unless the same transaction has
// already found it: on PostgreSQL each read is a round trip under the
// writers' lock. The reads are counted in the transaction's own table
// statistics (every scan of items, the foreign key's check included), so
// the test compares a comment on an item read before with one on an item
// that was not.
func TestActivityTrustsAnItemReadBefore(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	read := &baton.Item{Project: "alpha", Title: "read first", Status: baton.StatusTodo, CreatedBy: "test"}
	unread := &baton.Item{Project: "alpha", Title: "not read", Status: baton.StatusTodo, CreatedBy: "test"}
	createInAlpha(t, s, read, unread)
	var withRead, withoutRead int64
	if err := s.Update(ctx, func(btx baton.Tx) error {
		t := btx.(*tx)
		comment := func(id string) (int64, error) {
			return scansDuring(ctx, t, "items", func() error {
				return t.AddComment(ctx, &baton.Comment{ItemID: id, Body: "why", CreatedBy: "test", CreatedAt: time.Now()})
			})
		}
		var err error
		if withoutRead, err = comment(unread.ID); err != nil {
			return err
		}
		if _, err := t.Item(ctx, read.ID); err != nil {
			return err
		}
		withRead, err = comment(read.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if withRead != withoutRead-1 {
		t.Errorf("a comment scanned items %d times on an item this transaction had read, %d on one it had not; want one fewer",
			withRead, withoutRead)
	}
}

// createInAlpha creates the project alpha (ALP) and items in it, in one
// write.
func createInAlpha(t *testing.T, s *Store, items ...*baton.Item) {
	t.Helper()
	ctx := context.Background()
	if err := s.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "alpha", Prefix: "ALP"}); err != nil {
			return err
		}
		for _, it := range items {
			if err := tx.CreateItem(ctx, it); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestAppendTrustsTheBatchsChainHead: an action appended after another in
// the same group commit batch takes its position and previous hash from the
// one before it, without reading the log's head (a round trip under the
// writers' lock); the first append of a batch reads it. Scans of actions
// are counted in the transaction's own statistics.
func TestAppendTrustsTheBatchsChainHead(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	var first, second int64
	if err := s.Update(ctx, func(btx baton.Tx) error {
		t := btx.(*tx)
		appendOne := func() (int64, error) {
			return scansDuring(ctx, t, "actions", func() error {
				return t.AppendAction(ctx, &baton.Action{Agent: "a", Source: "test", Tool: "t", InputDigest: "in",
					ResultDigest: "out", At: time.Now()})
			})
		}
		var err error
		if first, err = appendOne(); err != nil {
			return err
		}
		second, err = appendOne()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if first == 0 || second != 0 {
		t.Errorf("the first append scanned actions %d times, the second %d; want the head read by the first only", first, second)
	}
}

// TestCommentTrustsAClaimReadBefore: a comment on an item records work on
// it, which renews its holder's claim; when the same transaction has read
// and renewed the claim already (update_issue_status updates the item, then
// comments why), the comment does not read the claim again. Scans of
// claims are counted in the transaction's own statistics.
func TestCommentTrustsAClaimReadBefore(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	it := &baton.Item{Project: "alpha", Title: "claimed", Status: baton.StatusTodo, CreatedBy: "test"}
	createInAlpha(t, s, it)
	now := time.Now()
	if err := s.Update(ctx, func(tx baton.Tx) error {
		_, err := tx.Claim(ctx, it.ID, "agent-bob", time.Minute, now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var scans int64
	if err := s.Update(ctx, func(btx baton.Tx) error {
		t := btx.(*tx)
		cur, err := t.Item(ctx, it.ID)
		if err != nil {
			return err
		}
		cur.Progress, cur.UpdatedBy, cur.UpdatedAt = 50, "agent-bob", now.Add(time.Second)
		if err := t.UpdateItem(ctx, cur); err != nil {
			return err
		}
		scans, err = scansDuring(ctx, t, "claims", func() error {
			return t.AddComment(ctx, &baton.Comment{ItemID: it.ID, Body: "half way", CreatedBy: "agent-bob", CreatedAt: cur.UpdatedAt})
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if scans != 0 {
		t.Errorf("the comment scanned claims %d times after the update had read and renewed the claim; want none", scans)
	}
}

// TestProjectIsReadOncePerBatch: a project a write has looked up is not
// read again by the next lookup in the same group commit batch (each read
// is a round trip under the writers' lock). Scans of projects are counted
// in the transaction's own statistics.
func TestProjectIsReadOncePerBatch(t *testing.T) {
	t.Parallel()
	s := openGC(t, "")
	ctx := context.Background()
	createInAlpha(t, s)
	var first, second int64
	if err := s.Update(ctx, func(btx baton.Tx) error {
		t := btx.(*tx)
		lookup := func() (int64, error) {
			return scansDuring(ctx, t, "projects", func() error {
				_, err := t.Project(ctx, "alpha")
				return err
			})
		}
		var err error
		if first, err = lookup(); err != nil {
			return err
		}
		second, err = lookup()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if first == 0 || second != 0 {
		t.Errorf("the first lookup scanned projects %d times, the second %d; want the project read by the first only", first, second)
	}
}

// scansDuring is how many times fn made the transaction scan table.
func scansDuring(ctx context.Context, t *tx, table string, fn func() error) (int64, error) {
	before, err := tableScans(ctx, t, table)
	if err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		return 0, err
	}
	after, err := tableScans(ctx, t, table)
	return after - before, err
}

// tableScans is how many times the transaction has scanned table so far
// (sequential and index scans, foreign-key checks included), from its own
// statistics.
func tableScans(ctx context.Context, t *tx, table string) (n int64, err error) {
	err = t.Q.QueryRowContext(ctx, `SELECT COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) FROM pg_stat_xact_user_tables
		WHERE schemaname = current_schema() AND relname = ?`, table).Scan(&n)
	return n, err
}
