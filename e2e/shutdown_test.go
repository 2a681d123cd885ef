package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlite"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGracefulShutdown sends SIGTERM while agents are writing: the server
// exits 0, and every write it acknowledged is in the database afterwards.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTP(t, db, "--agent", "agent-alice")
	var (
		mu    sync.Mutex
		acked []string
		count atomic.Int64
		wg    sync.WaitGroup
	)
	for w := range 8 {
		cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp", MaxRetries: -1})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "task_create",
					Arguments: map[string]any{"title": fmt.Sprintf("w%d-%d", w, i), "project": "colibri"}})
				cancel()
				if err != nil || res.IsError {
					return // the server is going away
				}
				mu.Lock()
				acked = append(acked, res.StructuredContent.(map[string]any)["task_id"].(string))
				mu.Unlock()
				count.Add(1)
			}
		}()
	}
	for count.Load() < 200 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := srv.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.done:
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop")
	}
	wg.Wait()
	if srv.exit != 0 || !strings.Contains(srv.stderr.String(), "shutting down") {
		t.Fatalf("exit %d, stderr:\n%s", srv.exit, srv.stderr)
	}

	s, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	err = s.View(ctx, func(tx baton.Tx) error {
		for _, id := range acked {
			if _, err := tx.Item(ctx, id); err != nil {
				return fmt.Errorf("acknowledged %s is lost: %w", id, err)
			}
		}
		page, err := tx.ListItems(ctx, baton.ItemFilter{})
		if err == nil && page.Total < len(acked) {
			err = fmt.Errorf("%d items stored, %d acknowledged", page.Total, len(acked))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes acknowledged before shutdown, all present", len(acked))
}
