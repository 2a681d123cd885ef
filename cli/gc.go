package cli

import (
	"runtime/debug"
)

// ServerGOGC and ServerMemoryLimit are the garbage collector's settings for
// `baton serve`, unless the operator set GOGC or GOMEMLIMIT.
//
// Go's default (GOGC=100: collect whenever the heap doubles) suits a
// program whose live heap is large next to its garbage. A baton server's
// live heap is small (tens of MB) and each tool call makes a few hundred KB
// of short-lived garbage, so at the default it collects many times a second
// under load and the collector's marking competes with the calls for the
// cores. Collecting when the heap has grown fivefold cuts that work about
// fourfold for a few tens of MB more heap; the soft memory limit makes the
// collector work harder again before the heap outgrows it, so the extra
// headroom never costs more than the limit. (`baton mcp`, one process per
// agent, keeps Go's default: there a small idle footprint matters more.)
const (
	ServerGOGC        = 400
	ServerMemoryLimit = 512 << 20
)

// serverGC applies ServerGOGC and ServerMemoryLimit where the environment
// (getenv) sets neither GOGC nor GOMEMLIMIT, which the Go runtime has
// already read and which win. It reports what it set.
func serverGC(getenv func(string) string) (gogc int, limit int64) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(ServerGOGC)
		gogc = ServerGOGC
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(ServerMemoryLimit)
		limit = ServerMemoryLimit
	}
	return gogc, limit
}
