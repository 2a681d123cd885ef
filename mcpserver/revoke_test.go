package mcpserver_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dialSSE connects a go-sdk client over HTTP+SSE (2024-11-05) at /sse with
// token.
func dialSSE(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil).Connect(context.Background(),
		&mcp.SSEClientTransport{Endpoint: url + "/sse", HTTPClient: &http.Client{Transport: &tokenTransport{token: token, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("SSE connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// ended is closed when cs ends.
func ended(cs *mcp.ClientSession) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		_ = cs.Wait()
		close(done)
	}()
	return done
}

// TestPoint13RevokedTokenEndsSSESessions: revoking a token (as `baton
// agent revoke` does: the revocation and its access.changed event in one
// transaction) ends the token's HTTP+SSE session as well as its
// Streamable HTTP one, instead of leaving the /sse stream open, hearing
// notifications and holding its slots until it idles out; the sessions
// of the same agent's other token go on.
func TestPoint13RevokedTokenEndsSSESessions(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	s := serveReal(t, k, mcpserver.HTTPOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.f.Watch(ctx)
	watching(t, s.f)
	old, oldTok := issue(t, k, "agent-r", "worker", "", false)
	fresh, _ := issue(t, k, "agent-r", "worker", "", false)

	oldSSE, oldHTTP := dialSSE(t, s.url, old), dial(t, s.url, old, "2025-11-25", nil)
	freshSSE := dialSSE(t, s.url, fresh)
	for _, cs := range []*mcp.ClientSession{oldSSE, oldHTTP, freshSSE} {
		ping(t, cs)
	}
	sseEnded, httpEnded, freshEnded := ended(oldSSE), ended(oldHTTP), ended(freshSSE)

	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		if _, err := tx.RevokeTokens(ctx, oldTok.ID, time.Now()); err != nil {
			return err
		}
		return events.RecordAccess(ctx, tx, baton.User,
			events.Access{Change: "token.revoke", Tokens: []string{oldTok.ID}}, time.Time{})
	}); err != nil {
		t.Fatal(err)
	}
	// Not a measure of speed: without the fix the /sse session lasts
	// until the 30-minute idle timeout.
	for name, done := range map[string]<-chan struct{}{"/sse": sseEnded, "Streamable HTTP": httpEnded} {
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Errorf("the revoked token's %s session is still open", name)
		}
	}
	select {
	case <-freshEnded:
		t.Fatal("the other token's /sse session ended too")
	default:
	}
	ping(t, freshSSE)
}
