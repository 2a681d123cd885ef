package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPoint3ServeCutsSlowClients: `baton serve` with short timeouts drops
// clients that trickle a body or idle on a kept-alive connection, while a
// client with a token keeps working.
func TestPoint3ServeCutsSlowClients(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db, "--header-timeout", "1s", "--body-timeout", "1s", "--idle-timeout", "1s")
	token := issueToken(t, db, "agent-bob", "--profile", "worker")
	addr := strings.TrimPrefix(srv.url, "http://")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const each = 50
	closed := make(chan string, 2*each)
	for _, kind := range []string{"body", "idle"} {
		for range each {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if kind == "body" {
				fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", addr)
				go func() {
					for ctx.Err() == nil {
						time.Sleep(250 * time.Millisecond)
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
					}
				}()
			} else {
				fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
			}
			go func() {
				_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
				_, err := io.Copy(io.Discard, c)
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					closed <- kind + ": still open after 30 s"
					return
				}
				closed <- ""
			}()
		}
	}
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "server_ping", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	for range 2 * each {
		if msg := <-closed; msg != "" {
			t.Fatal(msg)
		}
	}
}

// TestPoint3ServeSessionCap: --max-sessions-per-token refuses the session
// past the cap with 429 and Retry-After; another token is unaffected.
func TestPoint3ServeSessionCap(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db, "--max-sessions-per-token", "2", "--session-idle-timeout", "1m")
	bob := issueToken(t, db, "agent-bob", "--profile", "worker")
	for range 2 {
		(&rawHTTP{t: t, url: srv.url, token: bob}).initialize()
	}
	r := (&rawHTTP{t: t, url: srv.url, token: bob}).call("initialize", initParams())
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("third session: %d %s", r.status, r.body)
	}
	if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 || secs > 60 {
		t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
	}
	if !strings.Contains(string(r.body), `"ERR_RATE_LIMITED"`) || !strings.Contains(string(r.body), "--max-sessions-per-token") {
		t.Errorf("body = %s", r.body)
	}
	(&rawHTTP{t: t, url: srv.url, token: issueToken(t, db, "agent-carol", "--profile", "worker")}).initialize()

	for _, bad := range [][]string{{"--body-timeout", "0s"}, {"--max-streams-per-token", "-1"}} {
		if out, code := cliRun(t, append([]string{"--db", db, "serve", "--addr", "127.0.0.1:0"}, bad...)...); code != 2 {
			t.Errorf("serve %v: exit %d %s", bad, code, out)
		}
	}
}

// TestPoint15ServeProtocols: `baton serve` takes the SDK's newest
// (sessionless) client, a legacy HTTP+SSE client at /sse, and answers a
// POST that neither has a session nor opens one with 400.
func TestPoint15ServeProtocols(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db)
	token := issueToken(t, db, "agent-bob", "--profile", "worker")
	hc := &http.Client{Transport: bearer{token}}
	for name, tr := range map[string]mcp.Transport{
		"streamable": &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp", HTTPClient: hc},
		"sse":        &mcp.SSEClientTransport{Endpoint: srv.url + "/sse", HTTPClient: hc},
	} {
		cs := connect(t, tr)
		v := cs.InitializeResult().ProtocolVersion
		if (name == "streamable") != (v == "2026-07-28") {
			t.Errorf("%s negotiated %s", name, v)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "task_create",
			Arguments: map[string]any{"title": "over " + name, "project": "colibri"}})
		if err != nil || res.IsError {
			t.Fatalf("%s: task_create: %v %+v", name, err, res)
		}
		if out, _ := res.StructuredContent.(map[string]any); out["created_by"] != "agent-bob" {
			t.Errorf("%s: created_by = %v", name, out["created_by"])
		}
	}
	r := (&rawHTTP{t: t, url: srv.url, token: token}).call("tools/list", map[string]any{})
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "missing_session") {
		t.Fatalf("tools/list without a session: %d %s", r.status, r.body)
	}
}
