package postgres

import (
	"fmt"
	"testing"
)

// TestRebindCacheIsBounded (issue 12, point 2): queries of ever new shapes
// (search SQL follows a client's query) do not grow the cache past its
// bound, and every query is still rebound right.
func TestRebindCacheIsBounded(t *testing.T) {
	t.Parallel()
	for i := range maxRebindCache + 500 {
		q := fmt.Sprintf("SELECT %d WHERE a = ? AND b = '?' AND c = ?", i)
		if got, want := Rebind(q), fmt.Sprintf("SELECT %d WHERE a = $1 AND b = '?' AND c = $2", i); got != want {
			t.Fatalf("Rebind(%q) = %q, want %q", q, got, want)
		}
	}
	n := 0
	rebindCache.Range(func(any, any) bool { n++; return true })
	if n > maxRebindCache || rebindCached.Load() > maxRebindCache {
		t.Fatalf("the cache holds %d entries (counted %d), bound %d", n, rebindCached.Load(), maxRebindCache)
	}
}
