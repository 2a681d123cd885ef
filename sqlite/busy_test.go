package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// checkBusy fails the test unless e is the retryable busy error: code
// ERR_RATE_LIMITED, type busy, a positive details.retry_after_ms and a hint.
func checkBusy(t *testing.T, what string, e *baton.Error) {
	t.Helper()
	if e == nil || e.Code != baton.ErrRateLimited || e.Type != "busy" || e.Hint == "" {
		t.Errorf("%s: %+v, want ERR_RATE_LIMITED type busy with a hint", what, e)
		return
	}
	ms, ok := e.Details["retry_after_ms"].(int64)
	if !ok || ms <= 0 {
		t.Errorf("%s: retry_after_ms = %#v, want a positive number", what, e.Details["retry_after_ms"])
	}
}

// TestPoint5BusyWriteRetries (issue 12, point 5): while another process
// holds SQLite's write lock, a write whose own busy timeout has long run
// out keeps trying until the lock is free, and a write whose deadline comes
// first fails with the retryable busy error, never ERR_INTERNAL "database
// is locked", and writes nothing.
func TestPoint5BusyWriteRetries(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	s, err := sqlite.Open(ctx, path, sqlite.Options{BusyTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// Another process: a connection of its own holding the write lock.
	conn, err := rawDB(t, path).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err = createProject(short, s, "early", "EAR")
	cancel()
	checkBusy(t, "a write whose deadline passes while the lock is held", baton.AsError(err))

	const hold = 400 * time.Millisecond
	timer := time.AfterFunc(hold, func() { _, _ = conn.ExecContext(ctx, "COMMIT") })
	defer timer.Stop()
	if err := createProject(ctx, s, "patient", "PAT"); err != nil {
		t.Fatalf("a write without a deadline while the lock was held for %v: %v", hold, err)
	}
	var ps []*baton.Project
	if err := s.View(ctx, func(tx baton.Tx) (err error) { ps, err = tx.Projects(ctx); return err }); err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Slug != "patient" {
		t.Errorf("projects = %v, want only the patient write's (the busy one wrote nothing)", ps)
	}
}

// TestPoint5LockContentionIsNotInternal (issue 12, point 5): many store
// handles on one SQLite file (as many `baton mcp` processes have), each
// with a busy timeout of a millisecond so that SQLite gives up at once,
// write through the tool pipeline at the same time. Calls with time to
// spare all succeed; calls with a tight deadline either succeed or fail
// with the retryable busy error. No call is ever ERR_INTERNAL, and every
// success is stored exactly once.
func TestPoint5LockContentionIsNotInternal(t *testing.T) {
	const handles, calls = 24, 6
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	first, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close() })
	if err := createProject(ctx, first, "load", "LOD"); err != nil {
		t.Fatal(err)
	}
	reg := tools.Registry()
	envs := make([]*tool.Env, handles)
	for i := range envs {
		s, err := sqlite.Open(ctx, path, sqlite.Options{BusyTimeout: time.Millisecond, Readers: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		envs[i] = &tool.Env{Store: s, Registry: reg, DataDir: t.TempDir(), WorkDir: t.TempDir()}
	}
	type outcome struct {
		tight bool
		err   *baton.Error
	}
	results := make(chan outcome, handles*calls)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, env := range envs {
		wg.Go(func() {
			p := baton.Principal{Agent: fmt.Sprintf("agent-%02d", i), Source: baton.SourceStdio, Preset: tool.PresetFull}
			<-start
			for j := range calls {
				// Every other call gets a tight deadline, the rest a
				// generous one (bounded: the test cannot hang).
				tight := (i+j)%2 == 0
				d := time.Minute
				if tight {
					d = 30 * time.Millisecond
				}
				cctx, cancel := context.WithTimeout(ctx, d)
				raw, _ := json.Marshal(map[string]any{"project": "load", "title": fmt.Sprintf("work %d.%d", i, j)})
				res := reg.Call(cctx, env, p, "task_create", raw)
				cancel()
				results <- outcome{tight, res.Err}
			}
		})
	}
	close(start)
	wg.Wait()
	close(results)
	var ok, busy int
	for r := range results {
		switch {
		case r.err == nil:
			ok++
		case r.tight:
			busy++
			checkBusy(t, "a tight call that failed", r.err)
		default:
			t.Errorf("a call with a minute to spare failed: %+v", r.err)
		}
	}
	var stored int
	if err := first.View(ctx, func(tx baton.Tx) error {
		page, err := tx.ListItems(ctx, baton.ItemFilter{Project: "load", Limit: handles * calls * 2})
		stored = len(page.Items)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if stored != ok {
		t.Errorf("%d items stored for %d successful calls (%d busy)", stored, ok, busy)
	}
	t.Logf("%d calls succeeded, %d were busy", ok, busy)
}
