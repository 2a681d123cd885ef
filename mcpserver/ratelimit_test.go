package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// limitedSession connects an in-process client to f as p.
func limitedSession(t *testing.T, f *mcpserver.Factory, p baton.Principal) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.Server(p).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// pings calls server_ping n times and returns the errors' envelopes (nil
// for a success).
func pings(t *testing.T, cs *mcp.ClientSession, n int) []*baton.Error {
	t.Helper()
	var out []*baton.Error
	for range n {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "server_ping", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			out = append(out, nil)
			continue
		}
		b, _ := json.Marshal(res.StructuredContent)
		out = append(out, envelope(t, b))
	}
	return out
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		perSecond float64
		calls     int
		allowed   int // the burst: four seconds' worth
	}{
		{"one per second", 1, 6, 4},
		{"half per second", 0.5, 3, 2},
		{"two per second", 2, 10, 8},
		{"off", 0, 30, 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := testkit.New(t)
			f := mcpserver.NewFactory(k.Registry, k.Env, "test")
			f.RateLimit = tc.perSecond
			// Two sessions of one agent share its bucket.
			a := limitedSession(t, f, baton.Principal{Agent: "agent-bob", Source: baton.SourceTest})
			b := limitedSession(t, f, baton.Principal{Agent: "agent-bob", Project: "colibri", Source: baton.SourceTest})
			errs := append(pings(t, a, tc.calls/2), pings(t, b, tc.calls-tc.calls/2)...)
			for i, e := range errs {
				if i < tc.allowed {
					if e != nil {
						t.Fatalf("call %d refused: %+v", i+1, e)
					}
					continue
				}
				if e == nil {
					t.Fatalf("call %d over the limit went through", i+1)
				}
				ms, _ := e.Details["retry_after_ms"].(float64)
				if e.Code != baton.ErrRateLimited || ms < 1 || ms > 1000/tc.perSecond || !strings.HasPrefix(e.Hint, "retry after ") {
					t.Fatalf("call %d: %+v", i+1, e)
				}
			}
			// Another agent has its own bucket.
			if tc.perSecond > 0 {
				if e := pings(t, limitedSession(t, f, baton.Principal{Agent: "agent-carol", Source: baton.SourceTest}), 1)[0]; e != nil {
					t.Errorf("another agent was limited: %+v", e)
				}
			}
		})
	}
}

// TestPoint12BurstOf150: at the default rate a scripted client's 150 calls
// back to back all go through, over real HTTP; the sustained rate stays
// (TestRateLimit) and a refusal states the burst.
func TestPoint12BurstOf150(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{})
	s.f.RateLimit = mcpserver.DefaultRateLimit
	for i, version := range []string{"", "2025-06-18"} {
		token, _ := issue(t, k, fmt.Sprintf("agent-script-%d", i), "worker", "", false)
		cs := dial(t, s.url, token, version, nil)
		for i := range 150 {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "server_ping", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("call %d of 150 (%q) refused: %+v", i+1, version, toolEnvelope(t, res))
			}
		}
	}
	e := mcpserver.RateLimited("agent-script-0", mcpserver.DefaultRateLimit, 1)
	if e.Details["burst"] != 200 || e.Details["limit_per_second"] != 50.0 {
		t.Errorf("details = %v", e.Details)
	}
}
