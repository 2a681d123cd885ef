package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pgDB returns the URL of a fresh schema in the test PostgreSQL database,
// dropped when the test ends; without BATON_TEST_POSTGRES_URL the test
// skips.
func pgDB(t *testing.T) string {
	t.Helper()
	base := os.Getenv("BATON_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("BATON_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable); .ci/run sets it")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "e2e_" + hex.EncodeToString(b[:])
	dsn, err := postgres.SchemaURL(base, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := postgres.DropSchema(context.Background(), base, schema); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return dsn
}

// newPGDB is newDB on PostgreSQL: a fresh schema with the project colibri.
func newPGDB(t *testing.T) string {
	t.Helper()
	db := pgDB(t)
	// From a temporary directory: with a database URL, init writes the
	// agents' instructions at the git top of where it runs.
	cmd := exec.Command(bin, "--db", db, "init", "--project", "colibri", "--prefix", "COL")
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("baton init: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(cmd.Dir, "AGENTS.md")); err != nil {
		t.Fatalf("init on PostgreSQL wrote no AGENTS.md where it ran: %v", err)
	}
	return db
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	return sc, res.IsError
}

// TestReplicasMigrateOnce starts four `baton migrate` at once on an empty
// schema: all succeed, and each migration is recorded exactly once.
func TestReplicasMigrateOnce(t *testing.T) {
	t.Parallel()
	db := pgDB(t)
	const n = 4
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := exec.Command(bin, "--db", db, "migrate").CombinedOutput()
			outs[i], errs[i] = string(out), err
		}()
	}
	wg.Wait()
	migrated := 0
	latest := fmt.Sprintf("schema version %d ", latestPGMigration(t))
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("migrate %d: %v\n%s", i, errs[i], outs[i])
		}
		if !strings.HasPrefix(outs[i], latest) {
			t.Errorf("migrate %d printed %q, want it to start with %q", i, outs[i], latest)
		}
		if strings.Contains(outs[i], "(was 0)") {
			migrated++
		}
	}
	if migrated != 1 {
		t.Errorf("%d processes found the schema empty, want exactly 1 (the others wait for its lock):\n%q", migrated, outs)
	}
	s, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows, versions int
	if err := s.DB().QueryRow(`SELECT COUNT(*), COUNT(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0`).Scan(&rows, &versions); err != nil {
		t.Fatal(err)
	}
	if rows != versions {
		t.Errorf("%d migration records for %d migrations, want each recorded once", rows, versions)
	}
}

// latestPGMigration is the number of the newest PostgreSQL migration file.
func latestPGMigration(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob("../postgres/migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	latest := 0
	for _, f := range files {
		var n int
		if _, err := fmt.Sscanf(filepath.Base(f), "%05d_", &n); err == nil && n > latest {
			latest = n
		}
	}
	return latest
}

// TestReplicasShareEvents: an SSE subscriber of replica B sees a message
// sent through replica A, carried by LISTEN/NOTIFY. On PostgreSQL a replica
// looks at the store on its own only once a minute, so within the 30 s
// deadline only the notification can bring the event.
func TestReplicasShareEvents(t *testing.T) {
	t.Parallel()
	db := newPGDB(t)
	a := startHTTP(t, db, "--agent", "agent-a")
	b := startHTTP(t, db, "--agent", "agent-b")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url+"/events?project=colibri", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /events on B: %d", resp.StatusCode)
	}
	lines := bufio.NewScanner(resp.Body)
	// The stream's opening comment says the subscription is live.
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), ": baton events") {
		t.Fatalf("stream opened with %q", lines.Text())
	}

	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: a.url + "/mcp"})
	sent, isErr := callTool(t, cs, "send_message", map[string]any{"to": "user", "body": "hello from replica A"})
	if isErr {
		t.Fatalf("send_message on A: %v", sent)
	}
	for lines.Scan() {
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string          `json:"type"`
			Agent string          `json:"agent"`
			Data  json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		if ev.Type == "message.sent" && ev.Agent == "agent-a" {
			return
		}
	}
	t.Fatalf("B's stream ended without A's message: %v", lines.Err())
}

// TestReplicasClaimRace: agents on two replicas race for the same items;
// every item gets exactly one holder.
func TestReplicasClaimRace(t *testing.T) {
	t.Parallel()
	db := newPGDB(t)
	a := startHTTP(t, db, "--agent", "agent-a")
	b := startHTTP(t, db, "--agent", "agent-b")
	sessions := map[string]*mcp.ClientSession{
		"agent-a": connect(t, &mcp.StreamableClientTransport{Endpoint: a.url + "/mcp"}),
		"agent-b": connect(t, &mcp.StreamableClientTransport{Endpoint: b.url + "/mcp"}),
	}
	const rounds = 20
	for r := range rounds {
		created, isErr := callTool(t, sessions["agent-a"], "task_create", map[string]any{"title": fmt.Sprintf("race %d", r), "project": "colibri"})
		if isErr {
			t.Fatalf("task_create: %v", created)
		}
		id := created["task_id"].(string)
		if res, isErr := callTool(t, sessions["agent-a"], "task_update", map[string]any{"task_id": id, "status": "todo"}); isErr {
			t.Fatalf("task_update: %v", res)
		}
		results := map[string]map[string]any{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for agent, cs := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "claim_item", Arguments: map[string]any{"item_id": id}})
				if err != nil {
					t.Errorf("%s claim_item %s: %v", agent, id, err)
					return
				}
				sc, _ := res.StructuredContent.(map[string]any)
				if !res.IsError {
					sc = map[string]any{"won": sc}
				}
				mu.Lock()
				results[agent] = sc
				mu.Unlock()
			}()
		}
		wg.Wait()
		winners := 0
		for agent, res := range results {
			if won, ok := res["won"].(map[string]any); ok {
				winners++
				if won["holder"] != agent {
					t.Errorf("round %d: %s won with %v", r, agent, won)
				}
				continue
			}
			if e, _ := res["error"].(map[string]any); e == nil || e["code"] != "ERR_CLAIMED" {
				t.Errorf("round %d: %s lost with %v, want ERR_CLAIMED", r, agent, res)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d winners across the replicas (%v), want exactly 1", r, winners, results)
		}
	}
}

// TestReplicaKilledMidLoad: agents write through two replicas; one is
// killed (SIGKILL, no shutdown) while writes are under way. Every write
// either replica acknowledged is in the database afterwards.
func TestReplicaKilledMidLoad(t *testing.T) {
	t.Parallel()
	db := newPGDB(t)
	a := startHTTP(t, db, "--agent", "agent-a")
	b := startHTTP(t, db, "--agent", "agent-b")
	var (
		mu         sync.Mutex
		acked      []string
		count      atomic.Int64
		wg         sync.WaitGroup
		stopWrites = make(chan struct{})
	)
	for w := range 8 {
		srv := a
		if w%2 == 1 {
			srv = b
		}
		cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp", MaxRetries: -1})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stopWrites:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "task_create",
					Arguments: map[string]any{"title": fmt.Sprintf("w%d-%d", w, i), "project": "colibri"}})
				cancel()
				if err != nil || res.IsError {
					return // the replica is gone
				}
				mu.Lock()
				acked = append(acked, res.StructuredContent.(map[string]any)["task_id"].(string))
				mu.Unlock()
				count.Add(1)
			}
		}()
	}
	for count.Load() < 150 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	// B carries on alone for a while.
	target := count.Load() + 100
	for count.Load() < target {
		time.Sleep(5 * time.Millisecond)
	}
	close(stopWrites)
	wg.Wait()

	s, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	err = s.View(ctx, func(tx baton.Tx) error {
		seen := map[string]bool{}
		for _, id := range acked {
			if seen[id] {
				return fmt.Errorf("id %s acknowledged twice", id)
			}
			seen[id] = true
			if _, err := tx.Item(ctx, id); err != nil {
				return fmt.Errorf("acknowledged %s is lost: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes acknowledged across the replicas, all present after one was killed", len(acked))
}
