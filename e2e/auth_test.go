package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// issueToken runs `baton agent create` (or `baton agent token` when the
// first arg is "token") and returns the token it prints once.
func issueToken(t *testing.T, db, agent string, flags ...string) string {
	t.Helper()
	args := append([]string{"--db", db, "agent", "create", agent}, flags...)
	args = append(args, "--json")
	out, code := cliRun(t, args...)
	if code != 0 {
		t.Fatalf("baton agent create %s: exit %d: %s", agent, code, out)
	}
	var got struct {
		Token struct{ Token, ID, Agent string }
		Note  string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || !strings.HasPrefix(got.Token.Token, "baton_") {
		t.Fatalf("no token in %s", out)
	}
	return got.Token.Token
}

// toolCall calls a tool over raw HTTP and returns its structured content
// and whether it failed; params may carry _meta.
func (c *rawHTTP) toolCall(name string, args map[string]any, meta map[string]any) (map[string]any, bool) {
	c.t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	r := c.call("tools/call", params)
	if r.msg == nil {
		c.t.Fatalf("%s: status %d, body %s", name, r.status, r.body)
	}
	return toolResult(c.t, r.msg)
}

func errorOf(t *testing.T, sc map[string]any) map[string]any {
	t.Helper()
	e, ok := sc["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error envelope in %v", sc)
	}
	return e
}

// unauthorized checks a 401 with baton's envelope.
func unauthorized(t *testing.T, r httpReply, reason string) {
	t.Helper()
	if r.status != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401: %s", r.status, r.body)
	}
	if got := r.header.Get("WWW-Authenticate"); got != `Bearer realm="baton"` {
		t.Errorf("WWW-Authenticate = %q", got)
	}
	var env struct{ Error map[string]any }
	if err := json.Unmarshal(r.body, &env); err != nil || env.Error == nil {
		t.Fatalf("401 without an envelope: %s", r.body)
	}
	d, _ := env.Error["details"].(map[string]any)
	hint, _ := env.Error["next_action_hint"].(string)
	if env.Error["code"] != "ERR_PERMISSION_DENIED" || env.Error["type"] != "unauthenticated" || d["reason"] != reason ||
		!strings.Contains(hint, "baton agent create") {
		t.Errorf("envelope = %v, want reason %s", env.Error, reason)
	}
}

func TestAuthRefusesMissingAndBadTokens(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db)
	for _, tc := range []struct{ name, token, reason string }{
		{"missing", "", "missing_token"},
		{"garbage", "garbage", "unknown_token"},
		{"well-formed but never issued", "baton_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "unknown_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &rawHTTP{t: t, url: srv.url, token: tc.token}
			unauthorized(t, c.call("initialize", initParams()), tc.reason)
		})
	}
	// /events is guarded like /mcp; /healthz stays open.
	for path, want := range map[string]int{"/events?project=colibri": http.StatusUnauthorized, "/healthz": http.StatusOK} {
		resp, err := http.Get(srv.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s without a token: %d, want %d", path, resp.StatusCode, want)
		}
	}
	token := issueToken(t, db, "agent-bob", "--profile", "worker")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.url+"/events?project=colibri", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /events with a token: %d", resp.StatusCode)
	}
}

// TestAuthTokenIsTheIdentity: the token's agent is the sender and the
// creator whatever the server's --agent, the arguments or _meta say.
func TestAuthTokenIsTheIdentity(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db, "--agent", "agent-alice")
	bob := &rawHTTP{t: t, url: srv.url, token: issueToken(t, db, "agent-bob", "--profile", "worker", "--project", "colibri")}
	bob.initialize()

	spoof := map[string]any{"agent": "agent-alice", "agent_id": "agent-alice", "agentId": "agent-alice", "principal": "agent-alice"}
	// Identity fields as arguments are not part of any schema: refused.
	for _, field := range []string{"agent", "agent_id", "created_by", "from"} {
		sc, isErr := bob.toolCall("task_create", map[string]any{"title": "spoof", "project": "colibri", field: "agent-alice"}, nil)
		if !isErr || errorOf(t, sc)["code"] != "ERR_INVALID_INPUT" {
			t.Fatalf("task_create with %s: %v", field, sc)
		}
	}
	// In _meta or inside free-form metadata they change nothing.
	sc, isErr := bob.toolCall("task_create", map[string]any{"title": "by bob", "project": "colibri"}, spoof)
	if isErr || sc["created_by"] != "agent-bob" {
		t.Fatalf("task_create: %v", sc)
	}
	sc, isErr = bob.toolCall("send_message", map[string]any{"to": "user", "body": "hello from bob", "metadata": spoof}, spoof)
	if isErr {
		t.Fatalf("send_message: %v", sc)
	}
	if sc, isErr := bob.toolCall("send_message", map[string]any{"to": "user", "body": "x", "agent_id": "agent-alice"}, nil); !isErr {
		t.Fatalf("send_message with agent_id went through: %v", sc)
	}

	// The recipient reads it: the sender is bob.
	out, code := cliRun(t, "--db", db, "messages", "read_messages", "--agent-id", "user", "--json")
	if code != 0 {
		t.Fatalf("read_messages: %s", out)
	}
	var msgs struct{ Messages []map[string]any }
	if err := json.Unmarshal([]byte(out), &msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs.Messages) != 1 || msgs.Messages[0]["agentId"] != "agent-bob" || msgs.Messages[0]["body"] != "hello from bob" {
		t.Fatalf("messages to the user: %v", msgs.Messages)
	}
	// The refused calls created nothing; the one task is bob's.
	out, _ = cliRun(t, "--db", db, "tasks", "task_list", "--project", "colibri", "--json")
	if !strings.Contains(out, `"total_count":1`) {
		t.Fatalf("task_list: %s", out)
	}
	out, _ = cliRun(t, "--db", db, "tasks", "task_get", "--task-id", "COL-1", "--json")
	if !strings.Contains(out, `"created_by":"agent-bob"`) || strings.Contains(out, "agent-alice") {
		t.Fatalf("task_get: %s", out)
	}
}

// TestAuthSessionBelongsToItsToken: another agent's token, even a valid
// one, cannot use a session it did not open.
func TestAuthSessionBelongsToItsToken(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db)
	bob := &rawHTTP{t: t, url: srv.url, token: issueToken(t, db, "agent-bob", "--profile", "worker")}
	bob.initialize()
	eve := &rawHTTP{t: t, url: srv.url, token: issueToken(t, db, "agent-eve", "--profile", "worker"), session: bob.session}
	r := eve.call("tools/call", map[string]any{"name": "task_create", "arguments": map[string]any{"title": "hijack", "project": "colibri"}})
	if r.status != http.StatusForbidden {
		t.Fatalf("eve on bob's session: %d %s", r.status, r.body)
	}
	var env struct{ Error map[string]any }
	if json.Unmarshal(r.body, &env); env.Error["code"] != "ERR_PERMISSION_DENIED" || env.Error["type"] != "session_mismatch" {
		t.Fatalf("403 body: %s", r.body)
	}
	// Without a token the session id is worth nothing either.
	unauthorized(t, (&rawHTTP{t: t, url: srv.url, session: bob.session}).call("ping", map[string]any{}), "missing_token")
	// Bob's session goes on.
	if r := bob.call("ping", map[string]any{}); r.status != http.StatusOK {
		t.Fatalf("bob's ping: %d %s", r.status, r.body)
	}
	out, _ := cliRun(t, "--db", db, "tasks", "task_list", "--project", "colibri", "--json")
	if strings.Contains(out, "hijack") {
		t.Fatalf("the hijacked call ran: %s", out)
	}
}

// TestAuthRevokedToken: `baton agent revoke` shuts the agent out of a
// running server within the token cache's 2 s.
func TestAuthRevokedToken(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db)
	bob := &rawHTTP{t: t, url: srv.url, token: issueToken(t, db, "agent-bob", "--profile", "worker")}
	bob.initialize()
	if r := bob.call("ping", map[string]any{}); r.status != http.StatusOK {
		t.Fatalf("ping: %d", r.status)
	}
	if out, code := cliRun(t, "--db", db, "agent", "revoke", "agent-bob"); code != 0 || !strings.Contains(out, "revoked 1 ") {
		t.Fatalf("revoke: %d %s", code, out)
	}
	start := time.Now()
	for {
		r := bob.call("ping", map[string]any{})
		if r.status == http.StatusUnauthorized {
			unauthorized(t, r, "revoked_token")
			break
		}
		if time.Since(start) > 3*time.Second {
			t.Fatalf("the revoked token still works after %s: %d", time.Since(start), r.status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A new session with it is refused too.
	unauthorized(t, (&rawHTTP{t: t, url: srv.url, token: bob.token}).call("initialize", initParams()), "revoked_token")
}

// bearer adds a token to an MCP client's requests.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestAuthProfileLimitsTools: a scanner token neither lists nor calls
// move_issue, through a real MCP client.
func TestAuthProfileLimitsTools(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db)
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{issueToken(t, db, "agent-scan", "--profile", "scanner")}}})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	if names["move_issue"] || !names["record_coverage"] {
		t.Fatalf("a scanner lists move_issue=%v record_coverage=%v", names["move_issue"], names["record_coverage"])
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "move_issue",
		Arguments: map[string]any{"issue_id": "COL-1", "target_project_id": "colibri", "reason": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(b), `"ERR_PERMISSION_DENIED"`) {
		t.Fatalf("a scanner called move_issue: %s", b)
	}
}

// TestAuthSchedulerToken: a scheduler token's sessions cannot message the
// user and create at most 3 issues each; a new session starts afresh.
func TestAuthSchedulerToken(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db)
	token := issueToken(t, db, "sched-1", "--profile", "intake", "--project", "colibri", "--scheduler")
	s1 := &rawHTTP{t: t, url: srv.url, token: token}
	s1.initialize()
	sc, isErr := s1.toolCall("send_message", map[string]any{"to": "user", "body": "hi"}, nil)
	if e := errorOf(t, sc); !isErr || e["code"] != "ERR_PERMISSION_DENIED" {
		t.Fatalf("a scheduler messaged the user: %v", sc)
	}
	create := func(c *rawHTTP, n int) (map[string]any, bool) {
		return c.toolCall("create_issue", map[string]any{"title": "scheduled " + string(rune('a'+n)), "project": "colibri"}, nil)
	}
	for i := range 3 {
		if sc, isErr := create(s1, i); isErr {
			t.Fatalf("create_issue %d: %v", i+1, sc)
		}
	}
	sc, isErr = create(s1, 3)
	if e := errorOf(t, sc); !isErr || e["code"] != "ERR_PERMISSION_DENIED" || e["type"] != "scheduler_cap" {
		t.Fatalf("the 4th create_issue: %v", sc)
	}
	s2 := &rawHTTP{t: t, url: srv.url, token: token}
	s2.initialize()
	for i := range 3 {
		if sc, isErr := create(s2, 10+i); isErr {
			t.Fatalf("new session, create_issue %d: %v", i+1, sc)
		}
	}
	if sc, isErr := create(s2, 20); !isErr || errorOf(t, sc)["type"] != "scheduler_cap" {
		t.Fatalf("new session, 4th create_issue: %v", sc)
	}
}

// TestAuthRateLimit: with --rate-limit 1 an agent gets 2 calls at once,
// then ERR_RATE_LIMITED with how long to wait.
func TestAuthRateLimit(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := startHTTPAuth(t, db, "--rate-limit", "1")
	bob := &rawHTTP{t: t, url: srv.url, token: issueToken(t, db, "agent-bob", "--profile", "worker")}
	bob.initialize()
	var limited map[string]any
	for range 5 {
		sc, isErr := bob.toolCall("server_ping", map[string]any{}, nil)
		if isErr {
			limited = errorOf(t, sc)
			break
		}
	}
	if limited == nil {
		t.Fatal("5 calls at once under --rate-limit 1, none refused")
	}
	d, _ := limited["details"].(map[string]any)
	ms, _ := d["retry_after_ms"].(float64)
	hint, _ := limited["next_action_hint"].(string)
	if limited["code"] != "ERR_RATE_LIMITED" || ms < 1 || ms > 1000 || !strings.HasPrefix(hint, "retry after ") {
		t.Fatalf("refusal: %v", limited)
	}
}

// TestInsecureLocalOnlyOnLoopback: serving without tokens is refused on
// an address other machines reach.
func TestInsecureLocalOnlyOnLoopback(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		out, code := cliRun(t, "--db", db, "serve", "--insecure-local", "--addr", addr)
		if code != 2 {
			t.Errorf("--insecure-local --addr %s: exit %d %s, want 2", addr, code, out)
		}
	}
	// On loopback it serves, as --agent, without a token.
	srv := startHTTP(t, db, "--agent", "agent-local")
	c := &rawHTTP{t: t, url: srv.url}
	c.initialize()
	if sc, isErr := c.toolCall("task_create", map[string]any{"title": "local", "project": "colibri"}, nil); isErr || sc["created_by"] != "agent-local" {
		t.Fatalf("task_create: %v", sc)
	}
}
