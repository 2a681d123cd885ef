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

func TestSendMessageToUserAnyCase(t *testing.T) {
	k := testkit.New(t)
	for _, to := range []string{"user", "USER", "User", "uSeR", "  user  "} {
		t.Run(to, func(t *testing.T) {
			k := on(k, t)
			id := send(k, to, "build is green", nil)
			m := peek(k, id)
			if m.Recipient != baton.User {
				t.Errorf("recipient = %q, want %q", m.Recipient, baton.User)
			}
			if m.AgentID != "agent-alice" || m.Role != baton.RoleAgent {
				t.Errorf("sender = %q role %q, want agent-alice role agent", m.AgentID, m.Role)
			}
		})
	}
}

func TestSendMessageToKnownAgentAnyCase(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob", "Reviewer-7")
	cases := []struct{ to, canonical string }{
		{"agent-bob", "agent-bob"},
		{"AGENT-BOB", "agent-bob"},
		{"Agent-Bob", "agent-bob"},
		{" agent-bob ", "agent-bob"},
		{"reviewer-7", "Reviewer-7"},
		{"REVIEWER-7", "Reviewer-7"},
		{"Reviewer-7", "Reviewer-7"},
	}
	for _, tc := range cases {
		t.Run(tc.to, func(t *testing.T) {
			k := on(k, t)
			id := send(k, tc.to, "please review COL-3", nil)
			if got := peek(k, id).Recipient; got != tc.canonical {
				t.Errorf("recipient stored as %q, want the canonical name %q", got, tc.canonical)
			}
		})
	}
}

func TestSendMessageUnknownRecipient(t *testing.T) {
	k := testkit.New(t)

	// Nobody has acted yet: only the user is known.
	e := fail(k, "send_message", map[string]any{"to": "agent-bob", "body": "hi"}, baton.ErrAgentNotFound)
	if got := strs(t, e.Details["known"]); !slices.Equal(got, []string{"user"}) {
		t.Errorf("known = %v, want [user]", got)
	}

	known(k, "agent-carol", "agent-bob")
	k.OK("set_status", map[string]any{"status": "working"}) // agent-alice is known too now

	for _, to := range []string{"agent-dave", "bob", "agent-bo", "agent-bob2", "users"} {
		t.Run(to, func(t *testing.T) {
			k := on(k, t)
			e := fail(k, "send_message", map[string]any{"to": to, "body": "hi"}, baton.ErrAgentNotFound)
			want := []string{"user", "agent-alice", "agent-bob", "agent-carol"}
			if got := strs(t, e.Details["known"]); !slices.Equal(got, want) {
				t.Errorf("known = %v, want %v", got, want)
			}
			if e.Details["agent"] != to {
				t.Errorf("details.agent = %v, want %q", e.Details["agent"], to)
			}
			if !strings.Contains(e.Message, to) {
				t.Errorf("message %q does not name %q", e.Message, to)
			}
			if e.Hint == "" {
				t.Error("no next_action_hint")
			}
		})
	}
	// A refused message is not stored.
	if ms := read(k, map[string]any{"limit": 500}); len(ms) != 0 {
		t.Errorf("refused messages were stored: %v", ms)
	}
}

func TestSendMessageRecipientOnlyBecomesKnownByActing(t *testing.T) {
	k := testkit.New(t)
	// Being named as a recipient or filtered for does not make an agent known.
	fail(k, "send_message", map[string]any{"to": "agent-bob", "body": "hi"}, baton.ErrAgentNotFound)
	k.OK("read_messages", map[string]any{"agentId": "agent-bob"})
	fail(k, "send_message", map[string]any{"to": "agent-bob", "body": "hi"}, baton.ErrAgentNotFound)
	// Any successful change by bob does.
	k.As("agent-bob").OK("report_progress", map[string]any{"task": "t", "percentage": 10})
	send(k, "agent-bob", "hi", nil)
}

func TestSendMessageLimits(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	base := map[string]any{"to": "agent-bob", "body": "b"}
	c := func(extra map[string]any) map[string]any { return with(base, extra) }
	runLimitCases(t, k, "send_message", []limitCase{
		{"body 1 char", c(map[string]any{"body": "x"}), "", ""},
		{"body 20000 chars", c(map[string]any{"body": strings.Repeat("a", 20000)}), "", ""},
		{"body 20000 runes of 2 bytes", c(map[string]any{"body": strings.Repeat("é", 20000)}), "", ""},
		{"body 20001 chars", c(map[string]any{"body": strings.Repeat("a", 20001)}), "body", "maxLength"},
		{"body empty", c(map[string]any{"body": ""}), "body", "minLength"},
		{"body blank", c(map[string]any{"body": " \t\n "}), "body", "pattern"},
		{"body missing", c(map[string]any{"body": nil}), "body", "required"},
		{"body not a string", c(map[string]any{"body": 42}), "body", "type"},
		{"to missing", c(map[string]any{"to": nil}), "to", "required"},
		{"to empty", c(map[string]any{"to": ""}), "to", "minLength"},
		{"to blank", c(map[string]any{"to": "   "}), "to", "pattern"},
		{"to 129 chars", c(map[string]any{"to": strings.Repeat("a", 129)}), "to", "maxLength"},
		{"threadId 1 char", c(map[string]any{"threadId": "t"}), "", ""},
		{"threadId 128 chars", c(map[string]any{"threadId": strings.Repeat("t", 128)}), "", ""},
		{"threadId 129 chars", c(map[string]any{"threadId": strings.Repeat("t", 129)}), "threadId", "maxLength"},
		{"threadId empty", c(map[string]any{"threadId": ""}), "threadId", "minLength"},
		{"metadata empty object", c(map[string]any{"metadata": map[string]any{}}), "", ""},
		{"metadata a string", c(map[string]any{"metadata": "x"}), "metadata", "type"},
		{"metadata a list", c(map[string]any{"metadata": []any{1}}), "metadata", "type"},
	})
}

func TestSendMessageMetadataRoundTrips(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	meta := map[string]any{
		"priority": "high",
		"attempt":  float64(3),
		"ratio":    0.25,
		"flag":     false,
		"none":     nil,
		"nested":   map[string]any{"files": []any{"a.go", "b.go"}, "ok": true},
		"unicode":  "naïve — ✓",
	}
	id := send(k, "agent-bob", "with metadata", map[string]any{"metadata": meta, "threadId": "t-1"})
	plain := send(k, "agent-bob", "without metadata", nil)

	for _, reader := range []string{"agent-bob", "agent-carol"} {
		ms := read(k.As(reader), map[string]any{})
		got := find(t, ms, id)
		if !reflect.DeepEqual(got["metadata"], meta) {
			t.Errorf("%s reads metadata %#v, want %#v", reader, got["metadata"], meta)
		}
		if got["threadId"] != "t-1" {
			t.Errorf("threadId = %v, want t-1", got["threadId"])
		}
		if m, ok := find(t, ms, plain)["metadata"]; ok {
			t.Errorf("a message without metadata reads metadata %v", m)
		}
	}
}

func TestSendMessageOutput(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, 1500*time.Millisecond)
	known(k, "agent-bob")
	out := k.OK("send_message", map[string]any{"to": "agent-bob", "body": "hello", "threadId": "t"})
	at := clock.Peek()
	if got := keys(out); !slices.Equal(got, []string{"messageId", "timestamp"}) {
		t.Fatalf("output keys = %v, want [messageId timestamp]", got)
	}
	id := out["messageId"].(string)
	if !uuidV4.MatchString(id) {
		t.Errorf("messageId %q is not a version 4 UUID", id)
	}
	ts := out["timestamp"].(string)
	if !stampRE.MatchString(ts) || ts != stamp(at) {
		t.Errorf("timestamp = %q, want %q (the call's time, ms, UTC)", ts, stamp(at))
	}
	m := find(t, read(k, map[string]any{}), id)
	if m["createdAt"] != ts {
		t.Errorf("stored createdAt %v differs from the timestamp returned %q", m["createdAt"], ts)
	}
	want := map[string]any{"id": id, "agentId": "agent-alice", "recipient": "agent-bob", "role": "agent", "body": "hello",
		"deliveryStatus": "pending", "threadId": "t", "createdAt": ts}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("read back %v, want %v", m, want)
	}

	// Ids are unique.
	seen := map[string]bool{id: true}
	for range 20 {
		id := send(k, "agent-bob", "again", nil)
		if seen[id] || !uuidV4.MatchString(id) {
			t.Fatalf("id %q repeated or malformed", id)
		}
		seen[id] = true
	}
}

func TestSendMessageSenderIsTheCaller(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob", "agent-carol")
	cases := []struct{ caller, role string }{
		{"agent-alice", baton.RoleAgent},
		{"agent-bob", baton.RoleAgent},
		{"Agent-Carol", baton.RoleAgent},
		{"user", baton.RoleUser},
	}
	for _, tc := range cases {
		t.Run(tc.caller, func(t *testing.T) {
			k := on(k.As(tc.caller), t)
			id := send(k, "agent-bob", "from "+tc.caller, nil)
			m := peek(k, id)
			if m.AgentID != tc.caller || m.Role != tc.role {
				t.Errorf("stored sender %q role %q, want %q role %q", m.AgentID, m.Role, tc.caller, tc.role)
			}
		})
	}
}

func TestSendMessageRejectsIdentityArguments(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob", "agent-mallory")
	for _, arg := range []string{"from", "agentId", "sender", "agent", "agent_id", "role", "deliveryStatus", "createdAt", "id", "_meta"} {
		t.Run(arg, func(t *testing.T) {
			k := on(k, t)
			var v any = "agent-mallory"
			if arg == "_meta" {
				v = map[string]any{"agentId": "agent-mallory"}
			}
			e := fail(k, "send_message", map[string]any{"to": "agent-bob", "body": "spoof", arg: v}, baton.ErrInvalidInput)
			checkInvalid(t, e, arg, "additionalProperties")
		})
	}
	if ms := read(k.As("agent-carol"), map[string]any{}); len(ms) != 0 {
		t.Errorf("spoofing attempts stored messages: %v", ms)
	}
	id := send(k, "agent-bob", "honest", nil)
	if got := peek(k, id).AgentID; got != "agent-alice" {
		t.Errorf("sender = %q, want agent-alice", got)
	}
}
