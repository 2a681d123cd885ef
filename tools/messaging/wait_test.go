package messaging_test

import (
	"runtime"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestWaitForMessagesWakesOnSend: an agent blocked in wait_for_messages
// wakes when a message for it is sent, and gets it, delivered. The test
// asserts the wake, not how fast it was.
func TestWaitForMessagesWakesOnSend(t *testing.T) {
	k := testkit.New(t)
	k.Env.Bus = events.NewBus()
	bob, alice := k.As("agent-bob"), k.As("agent-alice")
	bob.OK("set_status", `{"status":"idle"}`) // bob becomes a known agent

	done := make(chan map[string]any, 1)
	go func() {
		res := bob.Call("wait_for_messages", `{"timeout_seconds":60}`)
		if res.Err != nil {
			t.Error(res.Text)
		}
		done <- testkit.Decode(t, res.Output)
	}()
	// Send only once bob is really waiting, so what is proven is the wake.
	for k.Env.Bus.Len() == 0 {
		runtime.Gosched()
	}
	alice.OK("send_message", `{"to":"agent-bob","body":"your turn"}`)
	out := <-done
	msgs := out["messages"].([]any)
	if out["timedOut"] != false || len(msgs) != 1 {
		t.Fatalf("wait = %v", out)
	}
	m := msgs[0].(map[string]any)
	if m["body"] != "your turn" || m["agentId"] != "agent-alice" || m["deliveryStatus"] != baton.DeliveryDelivered {
		t.Fatalf("message = %v", m)
	}
}

func TestWaitForMessagesReturnsWaitingAndTimesOut(t *testing.T) {
	k := testkit.New(t)
	bob := k.As("agent-bob")
	bob.OK("set_status", `{"status":"idle"}`)
	k.OK("send_message", `{"to":"agent-bob","body":"already here"}`)
	if out := bob.OK("wait_for_messages", `{"timeout_seconds":1}`); len(out["messages"].([]any)) != 1 {
		t.Fatalf("a waiting message did not return at once: %v", out)
	}
	if out := bob.OK("wait_for_messages", `{"timeout_seconds":1}`); out["timedOut"] != true || len(out["messages"].([]any)) != 0 {
		t.Fatalf("nothing waiting: %v", out)
	}
	for _, bad := range []string{`{"timeout_seconds":0}`, `{"timeout_seconds":61}`} {
		k.Fail("wait_for_messages", bad, baton.ErrInvalidInput)
	}
}
