package messaging_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestListThreads(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	known(k, "agent-bob", "agent-carol")
	alice, bob, carol, user := k, k.As("agent-bob"), k.As("agent-carol"), k.As("user")

	if got := list(t, k.OK("list_threads", nil), "threads"); len(got) != 0 {
		t.Fatalf("threads before any message: %v", got)
	}

	send(alice, "agent-bob", "a1", map[string]any{"threadId": "t-a"})
	send(carol, "user", "b1", map[string]any{"threadId": "t-b"})
	send(bob, "agent-alice", "a2", map[string]any{"threadId": "t-a"})
	send(alice, "agent-carol", "no thread", nil)
	send(user, "agent-bob", "c1", map[string]any{"threadId": "t-c"})
	cAt := clock.Peek()
	send(alice, "agent-bob", "a3", map[string]any{"threadId": "t-a"})
	aAt := clock.Peek()
	send(carol, "user", "b2", map[string]any{"threadId": "t-b"})
	bAt := clock.Peek()
	send(bob, "agent-carol", "no thread either", nil)

	// threadView is a thread as list_threads reports it.
	th := func(id string, n int, body string, at time.Time, agent string) map[string]any {
		return map[string]any{"threadId": id, "messageCount": float64(n), "latestBody": body,
			"latestCreatedAt": stamp(at), "agentId": agent}
	}
	all := []map[string]any{
		th("t-b", 2, "b2", bAt, "agent-carol"),
		th("t-a", 3, "a3", aAt, "agent-alice"),
		th("t-c", 1, "c1", cAt, "user"),
	}
	if got := list(t, k.OK("list_threads", nil), "threads"); !reflect.DeepEqual(got, all) {
		t.Errorf("threads = %v\nwant %v (most recently active first; no thread is no thread)", got, all)
	}

	// The filter selects the threads an agent takes part in (as sender or
	// recipient), keeping the order.
	cases := []struct {
		agent string
		want  []string
	}{
		{"agent-bob", []string{"t-a", "t-c"}},
		{"AGENT-BOB", []string{"t-a", "t-c"}},
		{"agent-alice", []string{"t-a"}},
		{"agent-carol", []string{"t-b"}},
		{"user", []string{"t-b", "t-c"}},
		{"agent-nobody", []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.agent, func(t *testing.T) {
			got := list(t, on(k, t).OK("list_threads", map[string]any{"agentId": tc.agent}), "threads")
			if ids := field(got, "threadId"); !slices.Equal(ids, tc.want) {
				t.Errorf("threads = %v, want %v", ids, tc.want)
			}
		})
	}
}

func TestListThreadsIsReadOnly(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	id := send(k, "agent-bob", "hi", map[string]any{"threadId": "t"})
	k.As("agent-bob").OK("list_threads", nil)
	if got := peek(k, id).DeliveryStatus; got != baton.DeliveryPending {
		t.Errorf("list_threads by the recipient moved the message to %s", got)
	}
	k.As("agent-zed").OK("list_threads", nil)
	fail(k, "send_message", map[string]any{"to": "agent-zed", "body": "x"}, baton.ErrAgentNotFound)
}

func TestListThreadsLimits(t *testing.T) {
	k := testkit.New(t)
	runLimitCases(t, k, "list_threads", []limitCase{
		{"agentId empty", map[string]any{"agentId": ""}, "agentId", "minLength"},
		{"agentId 129", map[string]any{"agentId": strings.Repeat("a", 129)}, "agentId", "maxLength"},
		{"unknown field", map[string]any{"threadId": "t"}, "threadId", "additionalProperties"},
	})
}
