package postgres_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
)

// BenchmarkConcurrentWrites: 16 writers per GOMAXPROCS on one store, each
// Update creating an item and appending its event (a NOTIFY): the store's
// write path alone, without the MCP server around it, so what group commit
// changes (one BEGIN, lock and COMMIT for a batch) is what it measures.
//
//	BATON_TEST_POSTGRES_URL=... go test -run '^$' -bench ConcurrentWrites -benchtime 2000x ./postgres/
func BenchmarkConcurrentWrites(b *testing.B) {
	dsn := os.Getenv("BATON_TEST_POSTGRES_URL")
	if dsn == "" {
		b.Skip("BATON_TEST_POSTGRES_URL is not set")
	}
	ctx := context.Background()
	schema := fmt.Sprintf("bench_writes_%d", os.Getpid())
	s, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { s.Close(); postgres.DropSchema(ctx, dsn, schema) }()
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: "bench", Prefix: "B"})
	}); err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			now := time.Now()
			err := s.Update(ctx, func(tx baton.Tx) error {
				if err := tx.CreateItem(ctx, &baton.Item{Project: "bench", Title: fmt.Sprintf("item %d", i), Status: baton.StatusTodo,
					CreatedBy: "bench", CreatedAt: now, UpdatedAt: now}); err != nil {
					return err
				}
				return tx.AppendEvent(ctx, &baton.Event{Project: "bench", Type: "issue.created"})
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}
