package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkListener is a real go-sdk client session that counts the
// notifications/tools/list_changed it gets and reports resource updates.
type sdkListener struct {
	cs      *mcp.ClientSession
	changed chan struct{}
	n       atomic.Int32
	updated chan string
}

// listenOver connects a go-sdk client (the SDK's latest protocol) over
// tr. A client of the current protocol asks for list changes with
// subscriptions/listen, registered by the server a moment after Connect
// returns: this waits for the acknowledgement, so that a change made next
// is one the session can hear of.
func listenOver(t *testing.T, tr mcp.Transport) *sdkListener {
	t.Helper()
	return listenVersion(t, tr, "")
}

// listenVersion is listenOver with a client that asks for protocol
// version ("" for the SDK's latest).
func listenVersion(t *testing.T, tr mcp.Transport, version string) *sdkListener {
	t.Helper()
	l := &sdkListener{changed: make(chan struct{}, 64), updated: make(chan string, 64)}
	acked := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			l.n.Add(1)
			l.changed <- struct{}{}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case l.updated <- req.Params.URI:
			default:
			}
		},
	})
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				select {
				case acked <- struct{}{}:
				default:
				}
			}
			return next(ctx, method, req)
		}
	})
	cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	l.cs = cs
	if cs.InitializeResult().ProtocolVersion >= "2026-07-28" {
		select {
		case <-acked:
		case <-time.After(20 * time.Second):
			t.Fatal("the server never acknowledged subscriptions/listen")
		}
	}
	return l
}

// await waits for the next list_changed.
func (l *sdkListener) await(t *testing.T, why string) {
	t.Helper()
	select {
	case <-l.changed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no notifications/tools/list_changed after %s", why)
	}
}

func (l *sdkListener) tools(t *testing.T) []string {
	t.Helper()
	res, err := l.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// quiet proves l's server has handled every change made so far, and the
// notifications that would follow it have arrived: l is subscribed to
// baton://issues/COL-1, and COL-1 changes (through the CLI, another
// process) until l hears of it, twice. The server handles committed
// events in order, so the second update comes from a later pass over the
// store than any earlier change, long after anything that pass set off.
func (l *sdkListener) quiet(t *testing.T, db string) {
	t.Helper()
	n := 0 // the progress set, a new value each time
	for range 2 {
		deadline := time.Now().Add(30 * time.Second)
		for len(l.updated) > 0 { // updates for earlier rounds' changes prove nothing new
			<-l.updated
		}
	wait:
		for {
			n++
			if out, code := cliRun(t, "--db", db, "tasks", "task_update", "--task-id", "COL-1", "--progress", strconv.Itoa(n%100)); code != 0 {
				t.Fatalf("task_update: %d %s", code, out)
			}
			timeout := time.After(2 * time.Second)
			for {
				select {
				case uri := <-l.updated:
					if uri == "baton://issues/COL-1" {
						break wait
					}
				case <-timeout:
					if time.Now().After(deadline) {
						t.Fatal("no resource update for baton://issues/COL-1")
					}
					continue wait
				}
			}
		}
	}
}

// listChangedScenario runs the checks every transport shares: workers
// and scanner are sessions of a worker and a scanner on db's running
// servers. `baton profile disallow` and `allow` run as separate
// processes; every worker hears of each and lists the change, the scanner
// hears nothing.
func listChangedScenario(t *testing.T, db string, workers []*sdkListener, scanner *sdkListener) {
	t.Helper()
	if err := scanner.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "baton://issues/COL-1"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	for _, w := range workers {
		if !slices.Contains(w.tools(t), "add_finding") {
			t.Fatal("a worker does not list add_finding to begin with")
		}
	}
	before := scanner.tools(t)

	if out, code := cliRun(t, "--db", db, "profile", "disallow", "worker", "add_finding"); code != 0 {
		t.Fatalf("profile disallow: %d %s", code, out)
	}
	for _, w := range workers {
		w.await(t, "baton profile disallow worker add_finding")
		if got := w.tools(t); slices.Contains(got, "add_finding") {
			t.Errorf("after disallow a worker lists %v", got)
		}
	}

	if out, code := cliRun(t, "--db", db, "profile", "allow", "worker", "add_finding"); code != 0 {
		t.Fatalf("profile allow: %d %s", code, out)
	}
	for _, w := range workers {
		w.await(t, "baton profile allow worker add_finding")
		if got := w.tools(t); !slices.Contains(got, "add_finding") {
			t.Errorf("after allow a worker lists %v", got)
		}
		res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_finding",
			Arguments: map[string]any{"issue_id": "COL-1", "category": "gap", "summary": "granted again"}})
		if err != nil || res.IsError {
			t.Errorf("add_finding after allow: %v %+v", err, res)
		}
	}

	scanner.quiet(t, db)
	if n := scanner.n.Load(); n != 0 {
		t.Errorf("the scanner, whose tools did not change, got %d list_changed", n)
	}
	if got := scanner.tools(t); !slices.Equal(got, before) {
		t.Errorf("the scanner's tools changed: %v, were %v", got, before)
	}
}

// TestPoint13ListChangedOverStdio: `baton mcp` processes tell their
// go-sdk client when another process's `baton profile` changes its tools,
// and only then.
func TestPoint13ListChangedOverStdio(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	if out, code := cliRun(t, "--db", db, "tasks", "task_create", "--title", "watched", "--project", "colibri"); code != 0 {
		t.Fatalf("task_create: %d %s", code, out)
	}
	mcpProc := func(agent, profile string) *sdkListener {
		return listenOver(t, &mcp.CommandTransport{Command: exec.Command(bin, "--db", db, "mcp",
			"--agent", agent, "--agent-type", profile)})
	}
	listChangedScenario(t, db, []*sdkListener{mcpProc("agent-w", "worker")}, mcpProc("agent-s", "scanner"))
}

// TestPoint13ListChangedOverHTTP: the same over Streamable HTTP, two
// sessions of one `baton serve` authenticated by a worker's and a
// scanner's token.
func TestPoint13ListChangedOverHTTP(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	if out, code := cliRun(t, "--db", db, "tasks", "task_create", "--title", "watched", "--project", "colibri"); code != 0 {
		t.Fatalf("task_create: %d %s", code, out)
	}
	srv := startHTTPAuth(t, db)
	session := func(agent, profile string) *sdkListener {
		return listenOver(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{issueToken(t, db, agent, "--profile", profile)}}})
	}
	listChangedScenario(t, db, []*sdkListener{session("agent-w", "worker")}, session("agent-s", "scanner"))
}

// TestPoint13ListChangedAcrossReplicas: on PostgreSQL, two `baton serve`
// replicas each hear the CLI's change (LISTEN/NOTIFY) and tell their own
// worker sessions; the scanner on one of them hears nothing.
func TestPoint13ListChangedAcrossReplicas(t *testing.T) {
	t.Parallel()
	db := newPGDB(t)
	if out, code := cliRun(t, "--db", db, "tasks", "task_create", "--title", "watched", "--project", "colibri"); code != 0 {
		t.Fatalf("task_create: %d %s", code, out)
	}
	a, b := startHTTPAuth(t, db), startHTTPAuth(t, db)
	session := func(srv *httpServer, agent, profile string) *sdkListener {
		return listenOver(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{issueToken(t, db, agent, "--profile", profile)}}})
	}
	listChangedScenario(t, db, []*sdkListener{session(a, "agent-wa", "worker"), session(b, "agent-wb", "worker")},
		session(b, "agent-s", "scanner"))
}

// tokenAndID issues a token with `baton agent ARGS... --json` and returns
// it with its id.
func tokenAndID(t *testing.T, db string, args ...string) (token, id string) {
	t.Helper()
	out, code := cliRun(t, append(append([]string{"--db", db, "agent"}, args...), "--json")...)
	var got struct{ Token struct{ Token, ID string } }
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.Token.ID == "" {
		t.Fatalf("baton agent %v: %d %s", args, code, out)
	}
	return got.Token.Token, got.Token.ID
}

// TestPoint13RevokedTokenEndsItsSessions: `baton agent revoke TOKEN_ID`
// (another process) ends what the token holds open on a running server,
// the session (older protocols), the subscriptions/listen stream
// (2026-07-28) and the HTTP+SSE session at /sse, so it hears nothing
// more, while the session of the same agent's other token goes on and
// hears the next changes.
func TestPoint13RevokedTokenEndsItsSessions(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-11-25", ""} {
		name := version
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			srv := startHTTPAuth(t, db)
			oldToken, oldID := tokenAndID(t, db, "create", "agent-r", "--profile", "worker")
			newToken, _ := tokenAndID(t, db, "token", "agent-r")
			session := func(token string) *sdkListener {
				return listenVersion(t, &mcp.StreamableClientTransport{Endpoint: srv.url + "/mcp",
					HTTPClient: &http.Client{Transport: bearer{token}}}, version)
			}
			old, fresh := session(oldToken), session(newToken)
			oldSSE := listenVersion(t, &mcp.SSEClientTransport{Endpoint: srv.url + "/sse",
				HTTPClient: &http.Client{Transport: bearer{oldToken}}}, "")
			sseEnded := make(chan struct{})
			go func() { _ = oldSSE.cs.Wait(); close(sseEnded) }()
			for _, l := range []*sdkListener{old, fresh, oldSSE} {
				if !slices.Contains(l.tools(t), "add_finding") {
					t.Fatal("a worker session does not list add_finding")
				}
			}
			if out, code := cliRun(t, "--db", db, "agent", "revoke", oldID); code != 0 {
				t.Fatalf("revoke: %d %s", code, out)
			}
			// Not a measure of speed: an /sse session nobody ends lasts
			// until the 30-minute idle timeout.
			select {
			case <-sseEnded:
			case <-time.After(20 * time.Second):
				t.Error("the revoked token's /sse session is still open")
			}
			for _, cmd := range []string{"disallow", "allow"} {
				if out, code := cliRun(t, "--db", db, "profile", cmd, "worker", "add_finding"); code != 0 {
					t.Fatalf("profile %s: %d %s", cmd, code, out)
				}
				fresh.await(t, "baton profile "+cmd)
			}
			// The first change was handled after the revocation, the
			// second long after the first: whatever the revoked token's
			// stream would have got has come by now.
			if n := old.n.Load(); n != 0 {
				t.Errorf("the revoked token's session got %d list_changed after the revocation", n)
			}
			if n := oldSSE.n.Load(); n != 0 {
				t.Errorf("the revoked token's /sse session got %d list_changed after the revocation", n)
			}
			if n := fresh.n.Load(); n != 2 {
				t.Errorf("the other token's session got %d list_changed, want 2", n)
			}
		})
	}
}
