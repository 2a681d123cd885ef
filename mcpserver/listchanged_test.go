package mcpserver_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listener is a go-sdk client session that counts the
// notifications/tools/list_changed it receives.
type listener struct {
	cs      *mcp.ClientSession
	changed chan struct{}
	n       atomic.Int32
}

// listen connects a go-sdk client speaking version ("" for the SDK's
// latest) to f's server for p. A client of the current protocol asks for
// list changes with subscriptions/listen, which the server registers a
// moment after Connect returns: listen waits for its acknowledgement, so
// that a change made next is one the session can hear of.
func listen(t *testing.T, f *mcpserver.Factory, p baton.Principal, version string) *listener {
	t.Helper()
	l := &listener{changed: make(chan struct{}, 64)}
	acked := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			l.n.Add(1)
			l.changed <- struct{}{}
		},
	})
	client.AddReceivingMiddleware(ackWatch(acked))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.Server(p).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	l.cs = cs
	awaitAck(t, cs, acked)
	return l
}

// ackWatch is client middleware that signals acked when the server
// acknowledges a subscriptions/listen.
func ackWatch(acked chan struct{}) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				select {
				case acked <- struct{}{}:
				default:
				}
			}
			return next(ctx, method, req)
		}
	}
}

func awaitAck(t *testing.T, cs *mcp.ClientSession, acked chan struct{}) {
	t.Helper()
	if cs.InitializeResult().ProtocolVersion < "2026-07-28" {
		return // older sessions hear list changes without asking
	}
	select {
	case <-acked:
	case <-time.After(20 * time.Second):
		t.Fatal("the server never acknowledged subscriptions/listen")
	}
}

// await waits for the next list_changed.
func (l *listener) await(t *testing.T, why string) {
	t.Helper()
	select {
	case <-l.changed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no notifications/tools/list_changed after %s", why)
	}
}

// changeAccess applies change to the store as the CLI does: with an
// access.changed event in the same transaction.
func changeAccess(t *testing.T, k *testkit.Kit, what string, change func(tx baton.Tx) error) {
	t.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		if err := change(tx); err != nil {
			return err
		}
		return events.RecordAccess(ctx, tx, baton.User, events.Access{Change: what}, time.Time{})
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPoint13RescopeTellsOnlyChangedSessions: when profiles or a
// project's bundle change, Rescope finds exactly the principals whose
// tools changed, their sessions get notifications/tools/list_changed
// (over the old protocol and the current one) and list the change, and
// no other session hears anything.
func TestPoint13RescopeTellsOnlyChangedSessions(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-06-18", ""} {
		name := version
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			k := testkit.New(t)
			k.OK("task_create", `{"title":"findings go here","project":"colibri"}`) // COL-1
			ctx := context.Background()
			f := mcpserver.NewFactory(k.Registry, k.Env, "test")
			worker := baton.Principal{Agent: "w", Profile: "worker", Project: testkit.Project, Source: baton.SourceStdio}
			scanner := baton.Principal{Agent: "s", Profile: "scanner", Source: baton.SourceStdio}
			w, w2, s := listen(t, f, worker, version), listen(t, f, worker, version), listen(t, f, scanner, version)
			if got := w.cs.InitializeResult().ProtocolVersion; version == "" && got < "2026-07-28" {
				t.Fatalf("the SDK's latest protocol came to %s: subscriptions/listen goes untested", got)
			}
			if !slices.Contains(listed(t, w.cs), "add_finding") {
				t.Fatal("worker does not list add_finding to begin with")
			}
			rescope := func(want ...baton.Principal) {
				t.Helper()
				if got := f.Rescope(ctx); !slices.Equal(got, want) {
					t.Fatalf("Rescope changed %v, want %v", got, want)
				}
			}

			// Taking a tool away: both sessions of the worker hear it.
			changeAccess(t, k, "profile.disallow", func(tx baton.Tx) error {
				return tx.PutProfile(ctx, &baton.Profile{Name: "worker", DisallowedTools: []string{"add_finding"}})
			})
			rescope(worker)
			w.await(t, "disallow")
			w2.await(t, "disallow")
			if got := listed(t, w.cs); slices.Contains(got, "add_finding") {
				t.Errorf("after disallow the worker lists %v", got)
			}
			if code, _ := callErr(t, w.cs, "add_finding", map[string]any{"issue_id": "COL-1", "category": "gap", "summary": "x"}); code != baton.ErrPermissionDenied {
				t.Errorf("add_finding after disallow: %q", code)
			}

			// Nothing that decides tools changed: nobody is told.
			changeAccess(t, k, "profile.set", func(tx baton.Tx) error {
				return tx.PutProfile(ctx, &baton.Profile{Name: "worker", DisallowedTools: []string{"add_finding"}, Description: "same tools"})
			})
			rescope()

			// A project's bundle reaches the sessions of that project only.
			changeAccess(t, k, "project.tools", func(tx baton.Tx) error {
				return tx.SetProjectTools(ctx, testkit.Project, []string{"move_issue"})
			})
			rescope(worker)
			w.await(t, "project tools --set")
			if got := listed(t, w.cs); !slices.Contains(got, "move_issue") {
				t.Errorf("after the project bundle the worker lists %v", got)
			}

			// Giving it back: listed and callable at once.
			changeAccess(t, k, "profile.reset", func(tx baton.Tx) error { return tx.DeleteProfile(ctx, "worker") })
			rescope(worker)
			w.await(t, "reset")
			if got := listed(t, w.cs); !slices.Contains(got, "add_finding") {
				t.Errorf("after reset the worker lists %v", got)
			}
			if code, _ := callErr(t, w.cs, "add_finding", map[string]any{"issue_id": "COL-1", "category": "gap", "summary": "x"}); code != "" {
				t.Errorf("add_finding after reset: %q", code)
			}

			// The scanner's tools never changed, so the server never set
			// out to notify it: what it has received by now is all it gets.
			if n := s.n.Load(); n != 0 {
				t.Errorf("the scanner, whose tools did not change, got %d list_changed", n)
			}
		})
	}
}

// TestPoint13WatchSeesOtherProcesses: Watch notices an access.changed
// event written by another process (nothing wakes its bus: it finds the
// event by polling the store) and the session hears of its new tools.
func TestPoint13WatchSeesOtherProcesses(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	k.Env.Bus = events.NewBus()
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Watch(ctx)
	watching(t, f)
	w := listen(t, f, baton.Principal{Agent: "w", Profile: "worker", Source: baton.SourceStdio}, "")
	if slices.Contains(listed(t, w.cs), "merkle_finalize") {
		t.Fatal("worker lists the privileged merkle_finalize before any grant")
	}
	changeAccess(t, k, "profile.allow", func(tx baton.Tx) error {
		return tx.PutProfile(ctx, &baton.Profile{Name: "worker", AllowedTools: []string{"get_issue", "merkle_finalize"}})
	})
	w.await(t, "a grant written without waking the bus")
	got := listed(t, w.cs)
	slices.Sort(got)
	if !slices.Equal(got, []string{"get_issue", "merkle_finalize"}) {
		t.Errorf("after the grant the worker lists %v", got)
	}
}
