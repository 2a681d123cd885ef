package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestServerGC: the server's collector settings apply unless the operator
// set GOGC or GOMEMLIMIT, whose values the runtime has already taken.
func TestServerGC(t *testing.T) {
	restore := func(gogc int, limit int64) {
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(limit)
	}
	defer restore(debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64))

	gogc, limit := serverGC(func(string) string { return "" })
	if gogc != ServerGOGC || limit != ServerMemoryLimit {
		t.Fatalf("nothing set in the environment: applied GOGC %d, limit %d; want %d, %d", gogc, limit, ServerGOGC, ServerMemoryLimit)
	}
	if got := debug.SetGCPercent(100); got != ServerGOGC {
		t.Errorf("GOGC in effect %d, want %d", got, ServerGOGC)
	}
	if got := debug.SetMemoryLimit(-1); got != ServerMemoryLimit {
		t.Errorf("memory limit in effect %d, want %d", got, ServerMemoryLimit)
	}

	restore(100, math.MaxInt64)
	env := map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}
	gogc, limit = serverGC(func(k string) string { return env[k] })
	if gogc != 0 || limit != 0 {
		t.Fatalf("the operator's GOGC and GOMEMLIMIT were overridden: applied %d, %d", gogc, limit)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC changed to %d though the environment set it", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit changed to %d though the environment set it", got)
	}
}
