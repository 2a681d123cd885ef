package tools_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// Run with:
//
//	go test -run '^$' -bench ReadsGrow -benchtime 200x ./tools/
//
// (and BATON_TEST_POSTGRES_URL set for the postgres half).

// readsUnit is the data of 1x: messages, items and learnings; 20x has
// twenty times each.
const (
	readsMessages  = 1_000
	readsItems     = 500
	readsLearnings = 1_000
	readsAgents    = 50
)

// BenchmarkReadsGrow runs the four everyday reads (read_messages of one
// agent, list_issues and task_list with their default filters, and
// search_learnings) through the registry at 1x and 20x the data, on
// SQLite and, when BATON_TEST_POSTGRES_URL is set, PostgreSQL. A read
// whose cost follows its page, as each should, costs the same at both.
func BenchmarkReadsGrow(b *testing.B) {
	backends := []string{"sqlite"}
	if os.Getenv("BATON_TEST_POSTGRES_URL") != "" {
		backends = append(backends, "postgres")
	}
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			b.Setenv("BATON_TEST_STORE", backend)
			for _, scale := range []int{1, 20} {
				b.Run(fmt.Sprintf("%dx", scale), func(b *testing.B) {
					k := testkit.New(b)
					seedReads(b, k, scale)
					seedLearnings(b, k, readsLearnings*scale)
					// Statistics as a database in use has them: PostgreSQL's
					// autovacuum gathers them soon after such a load, while
					// baton never runs ANALYZE on SQLite, whose planner
					// therefore always guesses (and must still find the
					// page).
					if backend == "postgres" {
						k.Exec("ANALYZE")
					}
					reader := k.As("agent-7")
					reader.T = b
					calls := []struct {
						name string
						k    *testkit.Kit
						tool string
						args map[string]any
					}{
						{"read_messages", reader, "read_messages", map[string]any{"agentId": "agent-7", "limit": 10}},
						{"list_issues", k, "list_issues", map[string]any{"limit": 10}},
						{"task_list", k, "task_list", map[string]any{"limit": 10}},
						{"search_learnings", k, "search_learnings", map[string]any{"query": vocabulary[300], "limit": 10}},
					}
					for _, c := range calls {
						b.Run(c.name, func(b *testing.B) {
							c.k.T = b
							for b.Loop() {
								c.k.OK(c.tool, c.args)
							}
						})
					}
				})
			}
		})
	}
}

// seedReads stores scale times the unit of messages between many agents
// (and the user), one a second, and of items of every status, priority and
// age, some assigned and labelled.
func seedReads(b testing.TB, k *testkit.Kit, scale int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	agent := func() string {
		if r.IntN(10) == 0 {
			return baton.User
		}
		return fmt.Sprintf("agent-%d", r.IntN(readsAgents))
	}
	n := readsMessages * scale
	for batch := 0; batch < n; batch += 1000 {
		if err := k.Store.Update(ctx, func(tx baton.Tx) error {
			for i := batch; i < min(batch+1000, n); i++ {
				from, to := agent(), agent()
				m := &baton.Message{Project: testkit.Project, AgentID: from, Recipient: to, Role: baton.RoleAgent,
					Body: sentence(r, 15), CreatedAt: start.Add(time.Duration(i) * time.Second)}
				if r.IntN(3) == 0 {
					m.ThreadID = fmt.Sprintf("thread-%d", r.IntN(n/20+1))
				}
				if err := tx.SendMessage(ctx, m); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	statuses := []baton.Status{baton.StatusBacklog, baton.StatusTodo, baton.StatusInProgress, baton.StatusBlocked,
		baton.StatusReview, baton.StatusDone, baton.StatusDone, baton.StatusDone, baton.StatusCancelled}
	n = readsItems * scale
	for batch := 0; batch < n; batch += 500 {
		if err := k.Store.Update(ctx, func(tx baton.Tx) error {
			for i := batch; i < min(batch+500, n); i++ {
				at := start.Add(time.Duration(i) * time.Minute)
				it := &baton.Item{Project: testkit.Project, Title: sentence(r, 6), Description: sentence(r, 30),
					Status: statuses[r.IntN(len(statuses))], Priority: baton.Priority(r.IntN(5)), CreatedBy: "bench",
					CreatedAt: at, UpdatedAt: at.Add(time.Duration(r.IntN(100_000)) * time.Minute)}
				if r.IntN(2) == 0 {
					it.Assignee = fmt.Sprintf("agent-%d", r.IntN(readsAgents))
				}
				if r.IntN(3) == 0 {
					it.Labels = []string{vocabulary[r.IntN(20)]}
				}
				if err := tx.CreateItem(ctx, it); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
