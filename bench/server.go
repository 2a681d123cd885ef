package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
	"github.com/baton-dev/baton/web"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The servers a run measures: baton's bench server (a fresh database,
// seeded, behind one HTTP listener per replica) and the no-op floor's
// bare go-sdk server. Both start either in the run's own process or, with
// --split, in a process of their own that this binary re-executes with
// ServeEnv set (Serve), so that the two ways serve exactly the same thing.

// ServeEnv names the environment variable that hands a ServeSpec (JSON) to
// a server process re-executed for --split: `baton bench --serve-only`
// reads it, and so may a test binary's TestMain (see ServeFromEnv).
const ServeEnv = "BATON_BENCH_SERVE"

// Server kinds of a ServeSpec.
const (
	KindBaton = "baton" // baton's bench server
	KindNoop  = "noop"  // the no-op floor: go-sdk with one tool that does nothing
	// KindReplay is the replay floor: go-sdk answering each tool with a
	// result recorded from baton (replay.go).
	KindReplay = "replay"
)

// ServeSpec is what a server of a run serves.
type ServeSpec struct {
	Kind      string `json:"kind"`
	Agents    int    `json:"agents"`             // baton: seeded with work for this many
	Postgres  string `json:"postgres,omitempty"` // baton: on a fresh schema of this database
	Replicas  int    `json:"replicas,omitempty"` // baton: servers on the one schema (PostgreSQL)
	Dashboard bool   `json:"dashboard,omitempty"`
	// Dir, when set, holds the database (kept afterwards); by default a
	// temporary directory does (removed).
	Dir string `json:"dir,omitempty"`
	// CPU is the CPU a server process pins itself to; -1 none.
	CPU int `json:"cpu"`
	// Replay is the file of results the replay floor's server answers
	// with (KindReplay).
	Replay string `json:"replay,omitempty"`
}

// endpoints are where a server listens: one MCP URL and one base URL per
// replica.
type endpoints struct {
	MCP  []string `json:"mcp"`
	Base []string `json:"base"`
}

// server is a started server of this process.
type server struct {
	endpoints
	closers []func()
}

// close stops the server, last started first.
func (s *server) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// startServer starts what spec describes in this process.
func startServer(ctx context.Context, spec ServeSpec) (srv *server, err error) {
	srv = &server{}
	defer func() {
		if err != nil {
			srv.close()
		}
	}()
	switch spec.Kind {
	case KindNoop:
		return srv, srv.listen(noopHandler())
	case KindReplay:
		h, err := replayHandler(spec.Replay)
		if err != nil {
			return nil, err
		}
		return srv, srv.listen(h)
	}
	if spec.Kind != KindBaton {
		return nil, fmt.Errorf("unknown server kind %q", spec.Kind)
	}
	replicas := max(spec.Replicas, 1)
	if replicas > 1 && spec.Postgres == "" {
		return nil, errors.New("replicas share one database: they need PostgreSQL")
	}
	dir := spec.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "baton-bench-"); err != nil {
			return nil, err
		}
		srv.closers = append(srv.closers, func() { os.RemoveAll(dir) })
	}
	stores := make([]baton.Store, 0, replicas)
	if spec.Postgres != "" {
		schema := scratchSchema("bench_")
		srv.closers = append(srv.closers, func() { postgres.DropSchema(context.WithoutCancel(ctx), spec.Postgres, schema) })
		// The replicas share the server's connections: 32 in all, as one
		// replica alone has, keeps several within max_connections.
		conns := max(8, 32/replicas)
		for range replicas {
			ps, err := postgres.Open(ctx, spec.Postgres, postgres.Options{Schema: schema, MaxConns: conns})
			if err != nil {
				return nil, err
			}
			srv.closers = append(srv.closers, func() { ps.Close() })
			stores = append(stores, ps)
		}
	} else {
		ss, err := sqlite.Open(ctx, filepath.Join(dir, "bench.db"), sqlite.Options{})
		if err != nil {
			return nil, err
		}
		srv.closers = append(srv.closers, func() { ss.Close() })
		stores = append(stores, ss)
	}
	if err := seed(ctx, stores[0], spec.Agents); err != nil {
		return nil, err
	}
	if ps, ok := stores[0].(*postgres.Store); ok {
		// A server in service has statistics for its tables (autovacuum
		// analyzes them as they fill); a schema filled a moment ago has
		// none, unless autovacuum came by.
		if err := ps.Analyze(ctx); err != nil {
			return nil, fmt.Errorf("analyzing the seeded schema: %w", err)
		}
	}
	reg := tools.Registry()
	for i, store := range stores {
		env := &tool.Env{Store: store, Registry: reg, Bus: events.NewBus(), DataDir: dir,
			Server: tool.ServerInfo{Version: "bench", Mode: "FULL", Started: time.Now()}}
		f := mcpserver.NewFactory(reg, env, "bench")
		opts := mcpserver.HTTPOptions{Principal: func(r *http.Request) baton.Principal {
			return baton.Principal{Agent: r.Header.Get(agentHeader), Project: Project, Source: baton.SourceHTTP, Preset: tool.PresetFull}
		}}
		if spec.Dashboard && i == 0 {
			dash := web.New(web.Options{Registry: reg, Env: env, Project: Project, Insecure: true})
			srv.closers = append(srv.closers, func() { dash.Close() })
			opts.Dashboard = dash
		}
		if err := srv.listen(f.Handler(opts)); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

// listen serves h on a fresh loopback port.
func (s *server) listen(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	s.closers = append(s.closers, func() { hs.Close() })
	base := "http://" + ln.Addr().String()
	s.Base = append(s.Base, base)
	s.MCP = append(s.MCP, base+"/mcp")
	return nil
}

// noopHandler is the no-op floor's server: the go-sdk's Streamable HTTP
// handler with the options baton's own sessions get (streamableOptions)
// in front of one server with one tool that answers at once. What it
// costs is what any go-sdk server costs per call, baton's floor.
func noopHandler() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: noopTool, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, streamableOptions())
}

// noopTool is the no-op floor's one tool.
const noopTool = "noop"

// streamableOptions are the go-sdk options of baton's session handler
// (mcpserver.Factory.Handler, its stateful handler) at their defaults:
// mcpserver keeps them unexported, so they are repeated here and must
// follow mcpserver/http.go. The floor must pay for what baton's transport
// pays for, and no more. Baton answers with one application/json body
// (JSONResponse) all calls but those that may wait (its StreamResponse);
// the no-op tool never waits, so it needs no StreamResponse to be
// answered as baton answers a quick call. The event store stays, as
// baton's does, for the session's standalone stream.
func streamableOptions() *mcp.StreamableHTTPOptions {
	events := mcp.NewMemoryEventStore(nil)
	events.SetMaxBytes(mcpserver.DefaultReplayBytes)
	return &mcp.StreamableHTTPOptions{SessionTimeout: mcpserver.DefaultSessionTimeout, EventStore: events,
		MaxRequestBodyBytes: mcp.DefaultMaxRequestBodyBytes, // mcpserver's default, the SDK's own
		JSONResponse:        true}
}

// Serve serves spec until stdin ends (the parent of a --split run closes
// it, or dies), after writing the endpoints as one JSON line on stdout.
// It is the server process of --split; spec.CPU pins it.
func Serve(ctx context.Context, spec ServeSpec, stdin io.Reader, stdout io.Writer) error {
	if spec.CPU >= 0 {
		restore, err := pinProcess(spec.CPU)
		if err != nil {
			return err
		}
		defer restore()
	}
	srv, err := startServer(ctx, spec)
	if err != nil {
		return err
	}
	defer srv.close()
	if err := json.NewEncoder(stdout).Encode(srv.endpoints); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, stdin); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}

// ServeFromEnv is Serve with the spec taken from ServeEnv; ok is false
// when ServeEnv is not set (this is not a server process).
func ServeFromEnv(ctx context.Context, stdin io.Reader, stdout io.Writer) (ok bool, err error) {
	v := os.Getenv(ServeEnv)
	if v == "" {
		return false, nil
	}
	var spec ServeSpec
	if err := json.Unmarshal([]byte(v), &spec); err != nil {
		return true, fmt.Errorf("%s: %w", ServeEnv, err)
	}
	return true, Serve(ctx, spec, stdin, stdout)
}

// child is a server process of a --split run.
type child struct {
	endpoints
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tailBuffer
}

// childStartTimeout bounds seeding and starting a server process.
const childStartTimeout = 2 * time.Minute

// startChild re-executes bin as `bin bench --serve-only`, serving spec,
// born pinned to spec.CPU, and waits for its endpoints.
func startChild(ctx context.Context, bin string, spec ServeSpec) (*child, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "bench", "--serve-only")
	cmd.Env = append(os.Environ(), ServeEnv+"="+string(b))
	if path := os.Getenv("BATON_CPUPROFILE"); path != "" {
		// The server process profiles itself into a file of its own,
		// beside the clients' (the server's CPU alone is what --split
		// is for).
		cmd.Env = append(cmd.Env, "BATON_CPUPROFILE="+path+"."+spec.Kind)
	}
	c := &child{cmd: cmd, stderr: &tailBuffer{max: 4 << 10}}
	cmd.Stderr = c.stderr
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startPinned(spec.CPU, cmd.Start); err != nil {
		return nil, fmt.Errorf("starting the %s server process: %w", spec.Kind, err)
	}
	line := make(chan error, 1)
	go func() {
		l, err := bufio.NewReader(out).ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(l, &c.endpoints)
		}
		line <- err
		io.Copy(io.Discard, out) // nothing more is expected; never block the child
	}()
	select {
	case err = <-line:
	case <-time.After(childStartTimeout):
		err = fmt.Errorf("no endpoints after %s", childStartTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil || len(c.MCP) == 0 {
		c.stop()
		return nil, fmt.Errorf("the %s server process did not start: %v: %s", spec.Kind, err, bytes.TrimSpace(c.stderr.Bytes()))
	}
	return c, nil
}

// stop ends the server process: closing its stdin asks it to clean up
// (a PostgreSQL schema, a temporary directory); a process that has not
// ended after a while is killed.
func (c *child) stop() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// pid is the server process's id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// tailBuffer keeps the last max bytes written to it: a server process's
// stderr, for the error when it fails.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// Bytes returns what is kept.
func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.b)
}
