package mcpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Run with: go test -run '^$' -bench . -benchtime 2000x ./mcpserver/

func inProcess(b *testing.B, k *testkit.Kit) *mcp.ClientSession {
	f := mcpserver.NewFactory(k.Registry, k.Env, "bench")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.Server(k.Principal).Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	return client(b, ct)
}

func overHTTP(b *testing.B, k *testkit.Kit) *mcp.ClientSession {
	f := mcpserver.NewFactory(k.Registry, k.Env, "bench")
	srv := httptest.NewServer(f.Handler(mcpserver.HTTPOptions{Principal: func(*http.Request) baton.Principal { return k.Principal }}))
	b.Cleanup(srv.Close)
	return client(b, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"})
}

func client(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func call(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %v", name, err, res)
	}
}

var transports = []struct {
	name    string
	connect func(*testing.B, *testkit.Kit) *mcp.ClientSession
}{{"in-process", inProcess}, {"http", overHTTP}}

func BenchmarkTaskCreate(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			cs := tr.connect(b, testkit.New(b))
			args := map[string]any{"title": "Benchmark task", "project": testkit.Project, "priority": "high", "labels": []string{"bench"}}
			b.ReportAllocs()
			for b.Loop() {
				call(b, cs, "task_create", args)
			}
		})
	}
}

func BenchmarkTaskGet(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			k := testkit.New(b)
			for i := range 100 {
				k.OK("task_create", map[string]any{"title": fmt.Sprintf("task %d", i), "project": testkit.Project})
			}
			cs := tr.connect(b, k)
			args := map[string]any{"task_id": testkit.Prefix + "-42"}
			b.ReportAllocs()
			for b.Loop() {
				call(b, cs, "task_get", args)
			}
		})
	}
}

// BenchmarkDirect is the floor: the registry without any transport.
func BenchmarkDirect(b *testing.B) {
	k := testkit.New(b)
	k.OK("task_create", map[string]any{"title": "task", "project": testkit.Project})
	b.Run("task_create", func(b *testing.B) {
		for b.Loop() {
			k.OK("task_create", map[string]any{"title": "task", "project": testkit.Project})
		}
	})
	b.Run("task_get", func(b *testing.B) {
		for b.Loop() {
			k.OK("task_get", map[string]any{"task_id": testkit.Prefix + "-1"})
		}
	})
}

// BenchmarkServerPerPrincipal is what the first call of a new agent costs
// the server before its tool runs: an MCP server built for its principal,
// with every tool of its scope added (the full preset's here). Agents of
// dispatch come with fresh names, so a busy server builds many.
func BenchmarkServerPerPrincipal(b *testing.B) {
	k := testkit.New(b)
	f := mcpserver.NewFactory(k.Registry, k.Env, "bench")
	p := k.Principal
	n := 0
	for b.Loop() {
		n++
		p.Agent = fmt.Sprintf("agent-%d", n)
		f.Server(p)
	}
}
