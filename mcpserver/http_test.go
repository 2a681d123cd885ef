package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// served is a factory behind a real http.Server (NewHTTPServer, as
// baton serve builds it) on a loopback port.
type served struct {
	f   *mcpserver.Factory
	url string
}

// serveReal serves k's tools with opts; tokens are required unless
// opts.Principal is set.
func serveReal(t *testing.T, k *testkit.Kit, opts mcpserver.HTTPOptions) *served {
	t.Helper()
	if k.Env.Bus == nil {
		k.Env.Bus = events.NewBus()
	}
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	if opts.Principal == nil && opts.Authenticator == nil {
		opts.Authenticator = &mcpserver.Authenticator{Store: k.Store, Project: testkit.Project}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.NewHTTPServer(f.Handler(opts), opts.Timeouts)
	go srv.Serve(ln)
	t.Cleanup(func() { f.CloseSessions(); srv.Close() })
	return &served{f: f, url: "http://" + ln.Addr().String()}
}

// dial connects a go-sdk client over Streamable HTTP with token, speaking
// version ("" for the SDK's newest).
func dial(t *testing.T, url, token, version string, rt http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc := &http.Client{Transport: &tokenTransport{token: token, next: rt}}
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc}, opts)
	if err != nil {
		t.Fatalf("connect (%q): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type tokenTransport struct {
	token string
	next  http.RoundTripper
}

func (b *tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

// ping calls server_ping and fails the test unless it works.
func ping(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "server_ping", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("server_ping: %v %+v", err, res)
	}
}

// toolEnvelope is the error envelope of a tool result.
func toolEnvelope(t *testing.T, res *mcp.CallToolResult) *baton.Error {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	return envelope(t, b)
}

// raw sends one request to path with headers and returns the response and
// its body.
func raw(t *testing.T, method, url, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestPoint15ProtocolVersions: every protocol version a client may speak
// gets served at /mcp, and a POST that is neither part of a session nor
// an initialize nor sessionless is a 400.
func TestPoint15ProtocolVersions(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{})
	scanner, _ := issue(t, k, "agent-scan", "scanner", "", false)
	for _, version := range []string{"", "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run("client "+version, func(t *testing.T) {
			cs := dial(t, s.url, scanner, version, nil)
			want := version
			if want == "" {
				want = "2026-07-28" // the SDK's newest, sessionless
			}
			if got := cs.InitializeResult().ProtocolVersion; got != want {
				t.Fatalf("negotiated %s, want %s", got, want)
			}
			ping(t, cs)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tl := range list.Tools {
				names[tl.Name] = true
			}
			if names["move_issue"] || !names["record_coverage"] {
				t.Errorf("a scanner's list: move_issue=%v record_coverage=%v", names["move_issue"], names["record_coverage"])
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "move_issue",
				Arguments: map[string]any{"issue_id": "COL-1", "target_project_id": "colibri", "reason": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			if e := toolEnvelope(t, res); !res.IsError || e.Code != baton.ErrPermissionDenied {
				t.Errorf("a scanner called move_issue: %+v", e)
			}
		})
	}

	// A client that knows nothing but 2026-07-28, by hand: no initialize,
	// no session, the version in a header and in _meta.
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"server_ping","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	headers := map[string]string{"Authorization": "Bearer " + scanner, "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": "server_ping"}
	resp, b := raw(t, http.MethodPost, s.url+"/mcp", call, headers)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"id":7`) || strings.Contains(string(b), `"isError":true`) ||
		resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("sessionless tools/call: %d %v %s", resp.StatusCode, resp.Header, b)
	}

	// Without a session, only initialize opens one.
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"server_ping","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`,
	} {
		resp, b := raw(t, http.MethodPost, s.url+"/mcp", body, map[string]string{"Authorization": "Bearer " + scanner,
			"MCP-Protocol-Version": "2025-06-18"})
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s without a session: %d %s", body, resp.StatusCode, b)
		}
		if e := envelope(t, b); e.Code != baton.ErrInvalidInput || e.Type != "missing_session" || !strings.Contains(e.Hint, "initialize") {
			t.Errorf("%s: %+v", body, e)
		}
	}
}

// TestPoint15SessionlessSchedulerCaps: a scheduler token speaking the
// sessionless protocol has one cap account across its requests, not a
// fresh one per request.
func TestPoint15SessionlessSchedulerCaps(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{})
	token, _ := issue(t, k, "sched-1", "intake", testkit.Project, true)
	k.As("agent-bob").OK("set_status", map[string]any{"status": "idle"}) // a known recipient
	cs := dial(t, s.url, token, "", nil)
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	limit := 3 // tool.SchedulerCaps[tool.CapMessages]
	for i := range limit + 1 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send_message",
			Arguments: map[string]any{"to": "agent-bob", "body": fmt.Sprintf("note %d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		if i < limit && res.IsError {
			t.Fatalf("message %d: %+v", i+1, toolEnvelope(t, res))
		}
		if i == limit && (!res.IsError || toolEnvelope(t, res).Type != "scheduler_cap") {
			t.Fatalf("message %d of a scheduler went through: %+v", i+1, res)
		}
	}
}

// TestPoint15SessionlessPresence: a sessionless client shows as connected
// with one session, however many requests it makes.
func TestPoint15SessionlessPresence(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{})
	token, _ := issue(t, k, "agent-new", "worker", "", false)
	cs := dial(t, s.url, token, "", nil)
	for range 5 {
		ping(t, cs)
	}
	a := agents(t, k)["agent-new"]
	if a["connected"] != true {
		t.Fatalf("agent-new = %v", a)
	}
	if n := k.Count(`SELECT COUNT(*) FROM agent_sessions WHERE agent = ?`, "agent-new"); n != 1 {
		t.Errorf("%d presence sessions for one sessionless client, want 1", n)
	}
}

// TestPoint15LegacySSE: an HTTP+SSE (2024-11-05) client connects at /sse
// with its token, gets its profile's tools and the rate limit, and nobody
// else's token can post into its session.
func TestPoint15LegacySSE(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{})
	s.f.RateLimit = 1 // a burst of 4
	scanner, _ := issue(t, k, "agent-scan", "scanner", "", false)
	eve, _ := issue(t, k, "agent-eve", "worker", "", false)

	// No token, no stream.
	resp, b := raw(t, http.MethodGet, s.url+"/sse", "", nil)
	if resp.StatusCode != http.StatusUnauthorized || envelope(t, b).Type != "unauthenticated" {
		t.Fatalf("GET /sse without a token: %d %s", resp.StatusCode, b)
	}

	// Find the session's endpoint by watching the client's requests.
	var mu sync.Mutex
	var endpoint string
	spy := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost {
			mu.Lock()
			endpoint = r.URL.String()
			mu.Unlock()
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil).Connect(context.Background(),
		&mcp.SSEClientTransport{Endpoint: s.url + "/sse", HTTPClient: &http.Client{Transport: &tokenTransport{token: scanner, next: spy}}}, nil)
	if err != nil {
		t.Fatalf("SSE connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		t.Fatalf("negotiated %s over HTTP+SSE", v)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name == "move_issue" {
			t.Error("a scanner lists move_issue over /sse")
		}
	}
	refused := 0
	for range 8 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "server_ping", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			if e := toolEnvelope(t, res); e.Code != baton.ErrRateLimited {
				t.Fatalf("ping: %+v", e)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Error("no rate limit over /sse")
	}

	mu.Lock()
	u := endpoint
	mu.Unlock()
	if !strings.Contains(u, "/sse?sessionid=") {
		t.Fatalf("posted to %q", u)
	}
	resp, b = raw(t, http.MethodPost, u, `{"jsonrpc":"2.0","id":99,"method":"ping"}`, map[string]string{"Authorization": "Bearer " + eve})
	if resp.StatusCode != http.StatusForbidden || envelope(t, b).Type != "session_mismatch" {
		t.Fatalf("another token posting into the session: %d %s", resp.StatusCode, b)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// initialize opens a session (protocol 2025-06-18) by hand and returns
// the response.
func initialize(t *testing.T, url, token string) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return raw(t, http.MethodPost, url+"/mcp", initBody, h)
}

// TestPoint3SessionCap: one token holds at most MaxSessions sessions; the
// next gets 429 with Retry-After; closing or idling one out frees a slot;
// other tokens are not affected.
func TestPoint3SessionCap(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{MaxSessions: 2, SessionTimeout: 2 * time.Second})
	bob, _ := issue(t, k, "agent-bob", "worker", "", false)
	carol, _ := issue(t, k, "agent-carol", "worker", "", false)
	var sids []string
	for range 2 {
		resp, b := initialize(t, s.url, bob)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %d %s", resp.StatusCode, b)
		}
		sids = append(sids, resp.Header.Get("Mcp-Session-Id"))
	}
	refusedSession := func() {
		t.Helper()
		resp, b := initialize(t, s.url, bob)
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("session over the cap: %d %s", resp.StatusCode, b)
		}
		secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 2 {
			t.Errorf("Retry-After = %q, want 1-2 s (the idle timeout)", resp.Header.Get("Retry-After"))
		}
		e := envelope(t, b)
		if e.Code != baton.ErrRateLimited || e.Type != "too_many_sessions" || e.Details["limit"] != 2.0 ||
			!strings.Contains(e.Hint, "--max-sessions-per-token") {
			t.Errorf("envelope = %+v", e)
		}
	}
	refusedSession()
	if resp, b := initialize(t, s.url, carol); resp.StatusCode != http.StatusOK {
		t.Fatalf("another token: %d %s", resp.StatusCode, b)
	}
	// A failed initialize gives its slot back.
	bad := strings.Replace(initBody, `"protocolVersion":"2025-06-18"`, `"protocolVersion":7`, 1)
	if resp, _ := raw(t, http.MethodPost, s.url+"/mcp", bad, map[string]string{"Authorization": "Bearer " + carol}); resp.StatusCode == http.StatusTooManyRequests {
		t.Fatal("refused")
	}

	// DELETE frees a slot.
	if resp, b := raw(t, http.MethodDelete, s.url+"/mcp", "", map[string]string{"Authorization": "Bearer " + bob, "Mcp-Session-Id": sids[0]}); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
	}
	waitFor(t, "a slot after DELETE", func() bool {
		resp, _ := initialize(t, s.url, bob)
		return resp.StatusCode == http.StatusOK
	})
	refusedSession()
	// Idle sessions expire and free theirs.
	waitFor(t, "a slot after the idle timeout", func() bool {
		resp, _ := initialize(t, s.url, bob)
		return resp.StatusCode == http.StatusOK
	})
	resp, _ := raw(t, http.MethodPost, s.url+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		map[string]string{"Authorization": "Bearer " + bob, "Mcp-Session-Id": sids[1], "MCP-Protocol-Version": "2025-06-18"})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an expired session answered %d", resp.StatusCode)
	}
}

// waitFor retries cond for up to 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never got %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openStream GETs path and returns the response once its headers are in.
func openStream(t *testing.T, url string, headers map[string]string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return resp, cancel
}

// TestPoint3StreamCap: one token holds at most MaxStreams event streams,
// /events, /mcp GET and /sse alike; the next gets 429 with Retry-After.
func TestPoint3StreamCap(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{MaxStreams: 2})
	bob, _ := issue(t, k, "agent-bob", "worker", "", false)
	auth := map[string]string{"Authorization": "Bearer " + bob}
	resp, b := initialize(t, s.url, bob)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	first, closeFirst := openStream(t, s.url+"/events?project="+testkit.Project, auth)
	second, _ := openStream(t, s.url+"/mcp", map[string]string{"Authorization": "Bearer " + bob, "Mcp-Session-Id": sid})
	if first.StatusCode != http.StatusOK || second.StatusCode != http.StatusOK {
		t.Fatalf("streams: %d %d", first.StatusCode, second.StatusCode)
	}
	for _, path := range []string{"/events?project=" + testkit.Project, "/sse"} {
		third, _ := openStream(t, s.url+path, auth)
		b, _ := io.ReadAll(third.Body)
		if third.StatusCode != http.StatusTooManyRequests || third.Header.Get("Retry-After") == "" {
			t.Fatalf("%s over the cap: %d %v %s", path, third.StatusCode, third.Header, b)
		}
		if e := envelope(t, b); e.Type != "too_many_streams" || e.Details["limit"] != 2.0 {
			t.Errorf("envelope = %+v", e)
		}
	}
	closeFirst()
	waitFor(t, "a stream slot after one closed", func() bool {
		resp, cancel := openStream(t, s.url+"/events?project="+testkit.Project, auth)
		defer cancel()
		return resp.StatusCode == http.StatusOK
	})
}

// TestPoint3Slowloris: hundreds of slow clients, none with a token, do not
// keep an authorised one out, and the server drops each of them once its
// timeout passes: headers sent a byte at a time, a body that never
// finishes, a kept-alive connection that never sends its next request.
func TestPoint3Slowloris(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("opens 300 connections")
	}
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{Timeouts: mcpserver.Timeouts{Header: time.Second, Body: time.Second,
		Write: time.Second, Idle: time.Second}})
	token, _ := issue(t, k, "agent-bob", "worker", "", false)
	addr := strings.TrimPrefix(s.url, "http://")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	const each = 100
	kinds := map[string]func(net.Conn){
		// A header line, then a byte now and then.
		"trickled headers": func(c net.Conn) {
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
			trickle(ctx, c, "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
		},
		// Whole headers without a token, then a body that never ends.
		"trickled body": func(c net.Conn) {
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", addr)
			trickle(ctx, c, strings.Repeat(" ", 1000))
		},
		// One request, then silence on the kept-alive connection.
		"idle keep-alive": func(c net.Conn) {
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		},
	}
	closed := make(chan string, 3*each)
	var dialErrs atomic.Int32
	for name, start := range kinds {
		for range each {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				dialErrs.Add(1)
				continue
			}
			defer c.Close()
			go start(c)
			go func() {
				// Read until the server hangs up (the healthz answer comes
				// first on the kept-alive one).
				_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
				_, err := io.Copy(io.Discard, c)
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					closed <- name + ": still open after 30 s"
					return
				}
				closed <- ""
			}()
		}
	}
	if n := dialErrs.Load(); n > 0 {
		t.Fatalf("%d slow clients could not connect", n)
	}
	// Meanwhile an authorised client works.
	cs := dial(t, s.url, token, "2025-06-18", nil)
	ping(t, cs)
	for range 3 * each {
		if msg := <-closed; msg != "" {
			t.Fatal(msg)
		}
	}
	ping(t, cs)
}

// trickle writes s one byte a quarter second until ctx ends or the write
// fails.
func trickle(ctx context.Context, c net.Conn, s string) {
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
		if _, err := c.Write([]byte{s[i%len(s)]}); err != nil {
			return
		}
	}
}

// TestPoint3StreamsOutliveTimeouts: the timeouts bound slow clients, not
// long answers: a long poll and an event stream both outlast every one of
// them.
func TestPoint3StreamsOutliveTimeouts(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{Timeouts: mcpserver.Timeouts{Header: time.Second, Body: time.Second,
		Write: time.Second, Idle: time.Second}})
	token, _ := issue(t, k, "agent-bob", "worker", "", false)
	events, _ := openStream(t, s.url+"/events?project="+testkit.Project, map[string]string{"Authorization": "Bearer " + token})
	if events.StatusCode != http.StatusOK {
		t.Fatalf("/events: %d", events.StatusCode)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(events.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for _, version := range []string{"2025-11-25", ""} {
		cs := dial(t, s.url, token, version, nil)
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait_for_messages", Arguments: map[string]any{"timeout_seconds": 3}})
		if err != nil || res.IsError {
			t.Fatalf("a 3 s long poll (%q): %v %+v", version, err, res)
		}
		if out, _ := res.StructuredContent.(map[string]any); out["timedOut"] != true || time.Since(start) < 3*time.Second {
			t.Fatalf("long poll = %v", out)
		}
	}
	// The event stream, quiet all along, is still there.
	k.As("agent-alice").OK("set_status", map[string]any{"status": "working", "task": "still here"})
	deadline := time.After(15 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the event stream was cut")
			}
			if strings.HasPrefix(line, "event: ") {
				return
			}
		case <-deadline:
			t.Fatal("no event on the stream")
		}
	}
}

// TestPoint3WriteTimeout: a client that stops reading a response is cut
// once a write has waited the write timeout, instead of holding the
// handler for ever.
func TestPoint3WriteTimeout(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	p := baton.Principal{Agent: "agent-bob", Source: baton.SourceHTTP}
	s := serveReal(t, k, mcpserver.HTTPOptions{Principal: func(*http.Request) baton.Principal { return p },
		Timeouts: mcpserver.Timeouts{Write: time.Second}})
	addr := strings.TrimPrefix(s.url, "http://")
	resp, b := initialize(t, s.url, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	// A response far larger than the socket buffers: every tool's schema.
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	request := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", addr, sid, len(list), list)
	_, full := raw(t, http.MethodPost, s.url+"/mcp", list, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"})
	// Pipeline the request until the answers outgrow any socket buffer.
	count := 1 + (16<<20)/len(full)
	request = strings.Repeat(request, count)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second) // not reading
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server still held the connection after 35 s (read %d bytes)", n)
	}
	if want := int64(count * len(full)); n >= want {
		t.Fatalf("read %d bytes, all %d of the answers: nothing was cut", n, want)
	}
}

// TestPoint14ResumeAfterDrop: a long poll whose connection drops before
// its answer still gets the answer: the SDK client reconnects with
// Last-Event-ID and the server replays the events it kept.
func TestPoint14ResumeAfterDrop(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{})
	token, _ := issue(t, k, "agent-bob", "worker", "", false)
	k.As("agent-bob").OK("set_status", map[string]any{"status": "idle"}) // a known recipient
	dropped := make(chan struct{})
	var once sync.Once
	var resumedFrom atomic.Value
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		if id := r.Header.Get("Last-Event-ID"); id != "" {
			resumedFrom.Store(id)
		}
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err == nil && strings.Contains(string(body), `"wait_for_messages"`) {
			// The connection drops while the call waits.
			once.Do(func() {
				time.AfterFunc(500*time.Millisecond, func() { resp.Body.Close(); close(dropped) })
			})
		}
		return resp, err
	})
	cs := dial(t, s.url, token, "2025-11-25", rt)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait_for_messages", Arguments: map[string]any{"timeout_seconds": 30}})
		if err != nil {
			t.Errorf("wait_for_messages: %v", err)
		}
		done <- res
	}()
	<-dropped
	k.As("agent-alice").OK("send_message", map[string]any{"to": "agent-bob", "body": "the result survives"})
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no answer after the drop")
	}
	if res == nil || res.IsError {
		t.Fatalf("result: %+v", res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), "the result survives") {
		t.Fatalf("the message is not in the answer: %s", b)
	}
	if id, _ := resumedFrom.Load().(string); id == "" {
		t.Error("the client never resumed with Last-Event-ID")
	}
}
