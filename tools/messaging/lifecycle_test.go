package messaging_test

import (
	"slices"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// statusOf reads a message's delivery status as an observer who is not
// its recipient (and so cannot change it).
func statusOf(k *testkit.Kit, id string) string {
	k.T.Helper()
	return peek(k, id).DeliveryStatus
}

func TestMessageLifecycle(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob", "agent-carol")
	alice, bob, carol := k, k.As("agent-bob"), k.As("agent-carol")

	id := send(alice, "agent-bob", "can you take COL-7?", nil)
	if got := statusOf(k, id); got != baton.DeliveryPending {
		t.Fatalf("after send: %s, want pending", got)
	}

	// Others read it: the sender, a bystander, the user, and a reader that
	// filters by the recipient's name. None of them is its recipient.
	for _, r := range []struct {
		who  *testkit.Kit
		args map[string]any
	}{
		{alice, map[string]any{}},
		{carol, map[string]any{}},
		{k.As("user"), map[string]any{}},
		{carol, map[string]any{"agentId": "agent-bob"}},
	} {
		if got := find(t, read(r.who, r.args), id)["deliveryStatus"]; got != baton.DeliveryPending {
			t.Errorf("%s reads it as %v, want pending", r.who.Principal.Agent, got)
		}
		if got := statusOf(k, id); got != baton.DeliveryPending {
			t.Fatalf("%s's read moved it to %s; only the recipient's read delivers", r.who.Principal.Agent, got)
		}
	}

	// The recipient reads it: delivered, and the reply already says so.
	if got := find(t, read(bob, map[string]any{}), id)["deliveryStatus"]; got != baton.DeliveryDelivered {
		t.Errorf("the recipient's read_messages shows %v, want delivered", got)
	}
	if got := statusOf(k, id); got != baton.DeliveryDelivered {
		t.Fatalf("after the recipient reads: %s, want delivered", got)
	}
	// Reading again keeps it delivered.
	if got := find(t, read(bob, map[string]any{}), id)["deliveryStatus"]; got != baton.DeliveryDelivered {
		t.Errorf("second read shows %v, want delivered", got)
	}

	// Somebody else cannot mark it read.
	out := carol.OK("mark_read", map[string]any{"messageId": id})
	if out["success"] != true || num(t, out["marked"]) != 0 {
		t.Errorf("bystander's mark_read = %v, want success with 0 marked", out)
	}
	alice.OK("mark_read", map[string]any{"messageId": id})
	if got := statusOf(k, id); got != baton.DeliveryDelivered {
		t.Fatalf("after others' mark_read: %s, want delivered", got)
	}

	// The recipient marks it read.
	out = bob.OK("mark_read", map[string]any{"messageId": id})
	if out["success"] != true || num(t, out["marked"]) != 1 {
		t.Errorf("mark_read = %v, want success with 1 marked", out)
	}
	if got := statusOf(k, id); got != baton.DeliveryRead {
		t.Fatalf("after mark_read: %s, want read", got)
	}

	// A read message never moves back.
	for _, who := range []*testkit.Kit{bob, alice, carol} {
		if got := find(t, read(who, map[string]any{}), id)["deliveryStatus"]; got != baton.DeliveryRead {
			t.Errorf("%s reads it as %v, want read", who.Principal.Agent, got)
		}
	}
	if got := statusOf(k, id); got != baton.DeliveryRead {
		t.Fatalf("after reading a read message: %s, want read", got)
	}
	// Marking again changes nothing and still succeeds.
	out = bob.OK("mark_read", map[string]any{"messageId": id})
	if out["success"] != true || num(t, out["marked"]) != 0 {
		t.Errorf("second mark_read = %v, want success with 0 marked", out)
	}
	bob.OK("mark_read", map[string]any{"agentId": "agent-alice"})
	if got := statusOf(k, id); got != baton.DeliveryRead {
		t.Fatalf("after a bulk mark_read: %s, want read", got)
	}
}

func TestMarkReadSkipsDelivered(t *testing.T) {
	// pending -> read directly is allowed (no read_messages in between).
	k := testkit.New(t)
	known(k, "agent-bob")
	id := send(k, "agent-bob", "hi", nil)
	k.As("agent-bob").OK("mark_read", map[string]any{"messageId": id})
	if got := statusOf(k, id); got != baton.DeliveryRead {
		t.Fatalf("%s, want read", got)
	}
}

func TestMessagesToTheUser(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	id := send(k, "user", "done with COL-7", nil)
	ann := k.OK("announce", map[string]any{"type": "question", "title": "Which DB?", "body": "Postgres or SQLite?"})["messageId"].(string)

	read(k.As("agent-bob"), map[string]any{"agentId": "user"})
	if statusOf(k, id) != baton.DeliveryPending || statusOf(k, ann) != baton.DeliveryPending {
		t.Fatal("an agent's read delivered messages to the user")
	}
	ms := read(k.As("user"), map[string]any{"agentId": "user"})
	for _, m := range []string{id, ann} {
		if got := find(t, ms, m)["deliveryStatus"]; got != baton.DeliveryDelivered {
			t.Errorf("the user's read shows %v, want delivered", got)
		}
		if got := statusOf(k, m); got != baton.DeliveryDelivered {
			t.Errorf("after the user reads: %s, want delivered", got)
		}
	}
	out := k.As("user").OK("mark_read", map[string]any{"agentId": "agent-alice"})
	if num(t, out["marked"]) != 2 || statusOf(k, id) != baton.DeliveryRead || statusOf(k, ann) != baton.DeliveryRead {
		t.Errorf("user's mark_read by agent = %v; statuses %s, %s", out, statusOf(k, id), statusOf(k, ann))
	}
}

func TestMarkReadByAgent(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob", "agent-carol")
	alice, bob, carol := k, k.As("agent-bob"), k.As("agent-carol")

	a1 := send(alice, "agent-bob", "a1", nil)
	a2 := send(alice, "AGENT-BOB", "a2", map[string]any{"threadId": "t"})
	c1 := send(carol, "agent-bob", "c1", nil)
	toCarol := send(alice, "agent-carol", "to carol", nil)
	toUser := send(alice, "user", "to user", nil)
	fromBob := send(bob, "agent-alice", "from bob", nil)
	read(bob, map[string]any{}) // a1, a2, c1 delivered; some marks start from delivered

	out := bob.OK("mark_read", map[string]any{"agentId": "agent-alice"})
	if out["success"] != true || num(t, out["marked"]) != 2 {
		t.Errorf("mark_read = %v, want 2 marked", out)
	}
	want := map[string]string{
		a1: baton.DeliveryRead, a2: baton.DeliveryRead,
		c1:      baton.DeliveryDelivered, // from another agent
		toCarol: baton.DeliveryPending,   // to another reader
		toUser:  baton.DeliveryPending,
		fromBob: baton.DeliveryPending, // the reader's own message
	}
	for id, st := range want {
		if got := statusOf(k, id); got != st {
			t.Errorf("%s: %s, want %s", peek(k, id).Body, got, st)
		}
	}
	// Again: nothing left to mark; another agent's name marks only theirs.
	if out := bob.OK("mark_read", map[string]any{"agentId": "agent-alice"}); num(t, out["marked"]) != 0 {
		t.Errorf("repeat mark_read = %v, want 0 marked", out)
	}
	if out := bob.OK("mark_read", map[string]any{"agentId": "Agent-Carol"}); num(t, out["marked"]) != 1 || statusOf(k, c1) != baton.DeliveryRead {
		t.Errorf("mark_read by Agent-Carol = %v, c1 %s; want 1 marked, read", out, statusOf(k, c1))
	}
	if out := bob.OK("mark_read", map[string]any{"agentId": "agent-nobody"}); out["success"] != true || num(t, out["marked"]) != 0 {
		t.Errorf("mark_read by an agent who sent nothing = %v", out)
	}
}

func TestMarkReadErrors(t *testing.T) {
	k := testkit.New(t)
	for _, args := range []map[string]any{{}, nil} {
		e := fail(k, "mark_read", args, baton.ErrInvalidInput)
		if e.Message != "Either messageId or agentId is required" {
			t.Errorf("message = %q, want exactly %q", e.Message, "Either messageId or agentId is required")
		}
		if e.Hint == "" {
			t.Error("no next_action_hint")
		}
	}
	runLimitCases(t, k, "mark_read", []limitCase{
		{"messageId empty", map[string]any{"messageId": ""}, "messageId", "minLength"},
		{"agentId empty", map[string]any{"agentId": ""}, "agentId", "minLength"},
		{"unknown field", map[string]any{"agentId": "a", "reader": "agent-bob"}, "reader", "additionalProperties"},
	})

	e := fail(k, "mark_read", map[string]any{"messageId": "550e8400-e29b-41d4-a716-446655440000"}, baton.ErrNotFound)
	if e.Details["messageId"] != "550e8400-e29b-41d4-a716-446655440000" || e.Hint == "" {
		t.Errorf("not found error = %+v", e)
	}
}

func TestReadMessagesDeliversOnlyWhatItReturns(t *testing.T) {
	k := testkit.New(t)
	withClock(k, 1e9)
	known(k, "agent-bob")
	var ids []string
	for _, th := range []string{"x", "y", "x", "y"} {
		ids = append(ids, send(k, "agent-bob", "in "+th, map[string]any{"threadId": th}))
	}
	bob := k.As("agent-bob")
	read(bob, map[string]any{"threadId": "x"})
	got := []string{statusOf(k, ids[0]), statusOf(k, ids[1]), statusOf(k, ids[2]), statusOf(k, ids[3])}
	want := []string{"delivered", "pending", "delivered", "pending"}
	if !slices.Equal(got, want) {
		t.Errorf("after reading thread x: %v, want %v", got, want)
	}
	read(bob, map[string]any{"limit": 1}) // only the newest
	if got := statusOf(k, ids[1]); got != baton.DeliveryPending {
		t.Errorf("a message outside the page was delivered: %s", got)
	}
	if got := statusOf(k, ids[3]); got != baton.DeliveryDelivered {
		t.Errorf("the newest message, returned with limit 1: %s, want delivered", got)
	}
}
