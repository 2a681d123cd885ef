// Package claims holds baton's own claim tools: leases on work items that
// let many agents race for work with exactly one winner per item. The
// store does the claiming (baton.ClaimTx); these tools only name the
// holder, pick the lease length and shape the answers.
package claims

import (
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "claims"

// TTL is the lease length a claim gets when the caller names none. It is
// the one place the server's configured TTL is read, so a --claim-ttl flag
// only has to change this function.
func TTL(c *tool.Call) time.Duration {
	if c.Env != nil && c.Env.ClaimTTL > 0 {
		return c.Env.ClaimTTL
	}
	return baton.DefaultClaimTTL
}

// ttl is the lease a call asks for: ttl_seconds when given (the schema has
// already held it to 30–86400), else the server's.
func ttl(c *tool.Call, seconds int) time.Duration {
	if seconds > 0 {
		return time.Duration(seconds) * time.Second
	}
	return TTL(c)
}

// holder is who a claim is for. It is always the caller's own agent, never
// an argument: a claim taken on someone else's behalf could not be renewed
// by their activity and would fence them out of their own work.
func holder(c *tool.Call) string { return c.Principal.Agent }

func statusNames() []string {
	out := make([]string, len(baton.Statuses))
	for i, s := range baton.Statuses {
		out[i] = string(s)
	}
	return out
}

// Field rules shared by several claim tools.
var (
	itemIDRule  = tool.Length(1, 128)
	ttlRule     = tool.Range(30, 86400)
	statusRule  = tool.Enum(statusNames()...)
	kindRule    = tool.Enum(string(baton.KindTask), string(baton.KindBug), string(baton.KindEpic), string(baton.KindFeature), string(baton.KindChore))
	projectRule = tool.Length(1, 63)
	labelRule   = tool.Length(1, 64).NonBlank()
)
