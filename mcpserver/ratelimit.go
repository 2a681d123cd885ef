package mcpserver

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// DefaultRateLimit is the tool calls per second each agent may make unless
// baton mcp/serve --rate-limit says otherwise: far above what a working
// agent needs, low enough to stop one that loops.
const DefaultRateLimit = 50

// BurstSeconds is how many seconds' worth of calls an agent may spend at
// once: 200 calls at the default rate, so a script that fires 150 calls
// back to back is not refused, while a loop still meets the sustained rate
// within seconds.
const BurstSeconds = 4

// rateLimits are the token buckets of the agents, one per agent id
// whatever its sessions, so opening more sessions buys no more calls.
type rateLimits struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

// Burst is what an agent may spend at once at perSecond: BurstSeconds'
// worth, at least one call.
func Burst(perSecond float64) int {
	return max(1, int(math.Ceil(BurstSeconds*perSecond)))
}

func (l *rateLimits) limiter(agent string, perSecond float64) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lim, ok := l.m[agent]; ok {
		return lim
	}
	if l.m == nil {
		l.m = map[string]*rate.Limiter{}
	}
	lim := rate.NewLimiter(rate.Limit(perSecond), Burst(perSecond))
	l.m[agent] = lim
	return lim
}

// limited refuses p's tool calls beyond f.RateLimit per second (bursts of
// BurstSeconds' worth) with ERR_RATE_LIMITED and how long to wait. The refused call
// does not run and takes nothing from the bucket.
func (f *Factory) limited(p baton.Principal) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			perSecond := f.RateLimit
			if method != "tools/call" || perSecond <= 0 {
				return next(ctx, method, req)
			}
			now := time.Now()
			r := f.limits.limiter(p.Agent, perSecond).ReserveN(now, 1)
			if wait := r.DelayFrom(now); wait > 0 {
				r.CancelAt(now)
				return tool.ErrorResult(RateLimited(p.Agent, perSecond, wait)), nil
			}
			return next(ctx, method, req)
		}
	}
}

// RateLimited is the error for a call over the agent's rate limit.
func RateLimited(agent string, perSecond float64, wait time.Duration) *baton.Error {
	ms := max(1, int64(math.Ceil(float64(wait)/float64(time.Millisecond))))
	return baton.Errorf(baton.ErrRateLimited, "%s is over its limit of %g tool calls per second", agent, perSecond).
		WithDetails("agent", agent, "limit_per_second", perSecond, "burst", Burst(perSecond), "retry_after_ms", ms).
		WithHint("retry after %d ms", ms)
}
