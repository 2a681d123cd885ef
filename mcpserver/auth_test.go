package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// issue stores a token for agent and returns it with its row.
func issue(t *testing.T, k *testkit.Kit, agent, profile, project string, scheduler bool) (string, *baton.AgentToken) {
	t.Helper()
	token, tok := mcpserver.NewToken(agent, profile, project, scheduler)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.CreateToken(ctx, tok) }); err != nil {
		t.Fatal(err)
	}
	return token, tok
}

func revoke(t *testing.T, k *testkit.Kit, who string) {
	t.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		_, err := tx.RevokeTokens(ctx, who, time.Now())
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// authServer serves k's tools over HTTP, tokens required.
func authServer(t *testing.T, k *testkit.Kit) *httptest.Server {
	t.Helper()
	k.Env.Bus = events.NewBus()
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	srv := httptest.NewServer(f.Handler(mcpserver.HTTPOptions{
		Authenticator: &mcpserver.Authenticator{Store: k.Store, Project: testkit.Project}}))
	t.Cleanup(func() { f.CloseSessions(); srv.Close() })
	return srv
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends one JSON-RPC body to /mcp with the given headers.
func post(t *testing.T, url, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
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

// envelope decodes {"error": {...}}.
func envelope(t *testing.T, b []byte) *baton.Error {
	t.Helper()
	var env baton.Envelope
	if err := json.Unmarshal(b, &env); err != nil || env.Error == nil {
		t.Fatalf("not an error envelope: %s", b)
	}
	return env.Error
}

func TestHTTPRefusesWithoutValidToken(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	srv := authServer(t, k)
	good, _ := issue(t, k, "agent-bob", "worker", "", false)
	revoked, _ := issue(t, k, "agent-eve", "worker", "", false)
	revoke(t, k, "agent-eve")
	cases := []struct {
		name, auth, reason string
	}{
		{"no header", "", "missing_token"},
		{"basic auth", "Basic YWxpY2U6c2VjcmV0", "missing_token"},
		{"empty bearer", "Bearer ", "missing_token"},
		{"garbage", "Bearer garbage", "unknown_token"},
		{"token with a byte changed", "Bearer " + good[:len(good)-1] + "x", "unknown_token"},
		{"revoked", "Bearer " + revoked, "revoked_token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.auth != "" {
				h["Authorization"] = tc.auth
			}
			resp, b := post(t, srv.URL, initBody, h)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", resp.StatusCode, b)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != `Bearer realm="baton"` {
				t.Errorf("WWW-Authenticate = %q", got)
			}
			e := envelope(t, b)
			if e.Code != baton.ErrPermissionDenied || e.Type != "unauthenticated" || e.Details["reason"] != tc.reason ||
				!strings.Contains(e.Hint, "baton agent create") {
				t.Errorf("envelope = %+v", e)
			}
		})
	}
	// /events needs a token too; /healthz does not.
	resp, err := http.Get(srv.URL + "/events?project=colibri")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/events without a token: %d", resp.StatusCode)
	}
	resp, err = http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events?project=colibri", nil)
	req.Header.Set("Authorization", "Bearer "+good)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/events with a token: %d", resp.StatusCode)
	}
}

// bearerTransport adds a token to every request of an MCP client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectWith(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestTokenFixesPrincipal: the token's agent creates the task, its project
// is the session's default, and its profile decides the tools.
func TestTokenFixesPrincipal(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	srv := authServer(t, k)
	token, _ := issue(t, k, "agent-bob", "worker", "", false)
	cs := connectWith(t, srv.URL, token)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "task_create", Arguments: map[string]any{"title": "by bob", "project": testkit.Project}})
	if err != nil || res.IsError {
		t.Fatalf("task_create: %v %+v", err, res)
	}
	out, _ := res.StructuredContent.(map[string]any)
	if out["created_by"] != "agent-bob" {
		t.Errorf("created_by = %v, want agent-bob", out["created_by"])
	}
	got := k.OK("task_get", map[string]any{"task_id": out["task_id"]})
	if got["created_by"] != "agent-bob" || got["project"] != testkit.Project {
		t.Errorf("stored task = %v", got)
	}

	scanner, _ := issue(t, k, "agent-scan", "scanner", "", false)
	list, err := connectWith(t, srv.URL, scanner).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name == "move_issue" {
			t.Error("a scanner token lists move_issue")
		}
	}
}

// TestSessionBelongsToItsToken: another token cannot use a session's id.
func TestSessionBelongsToItsToken(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	srv := authServer(t, k)
	bob, _ := issue(t, k, "agent-bob", "worker", "", false)
	bob2, _ := issue(t, k, "agent-bob", "worker", "", false)
	eve, _ := issue(t, k, "agent-eve", "worker", "", false)
	resp, b := post(t, srv.URL, initBody, map[string]string{"Authorization": "Bearer " + bob})
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	for _, other := range []string{eve, bob2} {
		resp, b = post(t, srv.URL, ping, map[string]string{"Authorization": "Bearer " + other, "Mcp-Session-Id": sid})
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("another token on the session: %d %s", resp.StatusCode, b)
		}
		if e := envelope(t, b); e.Code != baton.ErrPermissionDenied || e.Type != "session_mismatch" || e.Hint == "" {
			t.Errorf("envelope = %+v", e)
		}
	}
	resp, b = post(t, srv.URL, ping, map[string]string{"Authorization": "Bearer " + bob, "Mcp-Session-Id": sid})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the owner's ping: %d %s", resp.StatusCode, b)
	}
}

type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *manualClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestRevocationWithinTTL: a looked-up token is reused for at most
// MaxTokenTTL, so a revocation reaches a running server within it.
func TestRevocationWithinTTL(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	clock := &manualClock{t: time.Unix(1_700_000_000, 0)}
	auth := &mcpserver.Authenticator{Store: k.Store, Clock: clock.now, TTL: time.Hour}
	token, tok := issue(t, k, "agent-bob", "judge", "colibri", true)
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	p, got, e := auth.Authenticate(req)
	if e != nil || got.ID != tok.ID {
		t.Fatalf("Authenticate: %v", e)
	}
	want := baton.Principal{Agent: "agent-bob", Profile: "judge", AgentType: "judge", Project: "colibri", SchedulerMode: true, Source: baton.SourceHTTP}
	if p != want {
		t.Errorf("principal = %+v, want %+v", p, want)
	}
	revoke(t, k, tok.ID)
	clock.add(mcpserver.MaxTokenTTL - time.Millisecond)
	if _, _, e := auth.Authenticate(req); e != nil {
		t.Errorf("within the TTL the cached token still works (TTL capped at %s): %v", mcpserver.MaxTokenTTL, e)
	}
	clock.add(time.Millisecond)
	if _, _, e := auth.Authenticate(req); e == nil || e.Details["reason"] != "revoked_token" {
		t.Errorf("after the TTL: %v, want revoked_token", e)
	}

	// Without a cache, the revocation counts at once.
	token, tok = issue(t, k, "agent-carol", "worker", "", false)
	nocache := &mcpserver.Authenticator{Store: k.Store, TTL: -1, Project: "colibri"}
	req.Header.Set("Authorization", "Bearer "+token)
	if p, _, e := nocache.Authenticate(req); e != nil || p.Project != "colibri" {
		t.Fatalf("Authenticate: %v %+v (the server's project is the default)", e, p)
	}
	revoke(t, k, "agent-carol")
	if _, _, e := nocache.Authenticate(req); e == nil {
		t.Error("a revoked token was accepted")
	}
}

func TestNewTokenFormat(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 50 {
		token, tok := mcpserver.NewToken("a", "worker", "", false)
		if !strings.HasPrefix(token, "baton_") || len(token) != len("baton_")+43 || strings.ContainsAny(token, "+/=") {
			t.Fatalf("token %q is not baton_ + base64url(32 bytes)", token)
		}
		if len(tok.ID) != len("tok_")+12 || !strings.HasPrefix(tok.ID, "tok_") {
			t.Fatalf("id %q", tok.ID)
		}
		if tok.Hash != mcpserver.TokenHash(token) || len(tok.Hash) != 64 || strings.Contains(tok.Hash, token) {
			t.Fatalf("hash %q", tok.Hash)
		}
		if seen[token] || seen[tok.ID] {
			t.Fatal("a token or id came up twice")
		}
		seen[token], seen[tok.ID] = true, true
	}
}
