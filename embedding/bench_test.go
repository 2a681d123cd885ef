package embedding

import (
	"context"
	"testing"
)

// text1KB is 1 KB of a developer's notes, the size the budget
// names (embedding it: at most 50 µs).
var text1KB = func() string {
	const para = "The integration tests time out when the database connection pool is exhausted. " +
		"Raising the pool size hides the problem; the real cause is a transaction that is never committed " +
		"after a failed retry, so its connection is not returned. Fix the retry path to roll back, add a " +
		"regression test that runs two hundred concurrent requests, and record the latency percentiles. "
	s := ""
	for len(s) < 1024 {
		s += para
	}
	return s[:1024]
}()

// BenchmarkEmbed1KB embeds one 1 KB text with the table already loaded.
func BenchmarkEmbed1KB(b *testing.B) {
	e := NewBuiltin()
	if err := e.Load(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	texts := []string{text1KB}
	b.SetBytes(int64(len(text1KB)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad parses the embedded table, as the first Embed of a
// process does.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadTable(); err != nil {
			b.Fatal(err)
		}
	}
}
