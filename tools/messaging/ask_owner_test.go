package messaging_test

import (
	"runtime"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestAskOwnerGetsTheAnswer: the agent's question is visible to the user
// (open) while the agent waits; the user's reply in its thread wakes the
// agent with the answer and marks the question answered.
func TestAskOwnerGetsTheAnswer(t *testing.T) {
	k := testkit.New(t)
	k.Env.Bus = events.NewBus()
	agent, user := k.As("agent-w"), k.As(baton.User)
	agent.OK("set_status", `{"status":"blocked"}`)

	done := make(chan map[string]any, 1)
	go func() {
		res := agent.Call("ask_owner", `{"question":"Postgres or SQLite?","context":"for the test suite","timeout_seconds":60}`)
		if res.Err != nil {
			t.Error(res.Text)
		}
		done <- testkit.Decode(t, res.Output)
	}()
	for k.Env.Bus.Len() == 0 { // the agent is waiting
		runtime.Gosched()
	}
	inbox := user.OK("read_messages", `{"agentId":"user"}`)["messages"].([]any)
	q := inbox[len(inbox)-1].(map[string]any)
	if q["eventType"] != "question" || q["question"] != "open" || q["recipient"] != baton.User {
		t.Fatalf("the open question reads as %v", q)
	}
	user.OK("send_message", map[string]any{"to": "agent-w", "body": "SQLite", "threadId": q["threadId"]})
	out := <-done
	if out["answered"] != true || out["answer"] != "SQLite" || out["threadId"] != q["threadId"] || out["answeredAt"] == nil {
		t.Fatalf("ask_owner = %v", out)
	}
	inbox = user.OK("read_messages", map[string]any{"threadId": q["threadId"]})["messages"].([]any)
	if inbox[0].(map[string]any)["question"] != "answered" {
		t.Fatalf("the question after the reply = %v", inbox[0])
	}
}

func TestAskOwnerWithoutWaiting(t *testing.T) {
	k := testkit.New(t)
	out := k.As("agent-w").OK("ask_owner", `{"question":"Ship on Friday?","timeout_seconds":0,"threadId":"release"}`)
	if out["answered"] != false || out["threadId"] != "release" || out["questionId"] == nil {
		t.Fatalf("ask_owner = %v", out)
	}
	// Timed out: answered false, the way to get the answer later in the message.
	out = k.As("agent-w").OK("ask_owner", `{"question":"And Monday?","timeout_seconds":1,"threadId":"release"}`)
	if out["answered"] != false || out["message"] == "" {
		t.Fatalf("timed out = %v", out)
	}
	for _, bad := range []string{`{"question":""}`, `{"question":"x","timeout_seconds":61}`, `{"question":"x","timeout_seconds":-1}`} {
		k.Fail("ask_owner", bad, baton.ErrInvalidInput)
	}
}
