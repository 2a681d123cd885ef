package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourceSubscriptions: a go-sdk client subscribed to a work item and
// to its inbox is told when either changes, and reads the new state.
func TestResourceSubscriptions(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	k.Env.Bus = events.NewBus()
	k.OK("task_create", `{"title":"watched","project":"colibri"}`)
	k.As("agent-bob").OK("set_status", `{"status":"idle"}`)

	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Watch(ctx)
	watching(t, f)

	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	bob := baton.Principal{Agent: "agent-bob", Source: baton.SourceStdio}
	if _, err := f.Server(bob).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, uri := range []string{"baton://issues/COL-1", mcpserver.InboxURI} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	// A subscription made with the current protocol is registered by the
	// server a moment after Subscribe returns, so the change is repeated
	// until its notification arrives: what is proven is that it does.
	waitFor := func(want string, change func()) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		change()
		for {
			select {
			case got := <-updated:
				if got == want {
					return
				}
			case <-tick.C:
				change()
			case <-timeout:
				t.Fatalf("no update for %s", want)
			}
		}
	}
	n := 0
	waitFor("baton://issues/COL-1", func() {
		n++
		k.OK("task_update", fmt.Sprintf(`{"task_id":"COL-1","progress":%d}`, n))
	})
	k.OK("task_update", `{"task_id":"COL-1","status":"todo"}`)
	waitFor("baton://issues/COL-1", func() {})
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "baton://issues/COL-1"})
	if err != nil || !strings.Contains(res.Contents[0].Text, `"status":"todo"`) {
		t.Fatalf("read the item: %v %v", err, res)
	}

	waitFor(mcpserver.InboxURI, func() { k.OK("send_message", `{"to":"agent-bob","body":"look at COL-1"}`) })
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.InboxURI})
	if err != nil || !strings.Contains(res.Contents[0].Text, "look at COL-1") {
		t.Fatalf("read the inbox: %v %v", err, res)
	}
}

// watching waits until f's Watch has taken in what was committed before it
// began, so that the test's changes are news to it, not history.
func watching(t *testing.T, f *mcpserver.Factory) {
	t.Helper()
	select {
	case <-f.Watching():
	case <-time.After(20 * time.Second):
		t.Fatal("Watch did not begin")
	}
}
