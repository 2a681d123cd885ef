package messaging

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type waitIn struct {
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"How long to wait at most, in seconds."`
	ThreadID       string `json:"threadId,omitempty" jsonschema:"Only wake for messages in this thread."`
}

type waitOut struct {
	Messages []messageView `json:"messages" jsonschema:"The messages that arrived for you, oldest first; they are now delivered."`
	TimedOut bool          `json:"timedOut" jsonschema:"true when nothing arrived before the timeout."`
	WaitedMS int64         `json:"waitedMs" jsonschema:"How long the call waited."`
}

// waitFor calls check now and again whenever something changes (the bus)
// or Env.PollEvery passes (writers the bus does not hear), until check says done, the timeout
// passes (false), or the call is cancelled. It holds no transaction while
// it waits.
func waitFor(ctx context.Context, c *tool.Call, timeout time.Duration, check func() (bool, error)) (bool, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var wake <-chan struct{}
	if c.Env.Bus != nil {
		ch, stop := c.Env.Bus.Subscribe("")
		defer stop()
		wake = ch
	}
	poll := time.NewTicker(c.Env.PollEvery())
	defer poll.Stop()
	for {
		done, err := check()
		if err != nil || done {
			return done, err
		}
		select {
		case <-ctx.Done():
			return false, baton.Errorf(baton.ErrInternal, "the wait was cancelled: %v", ctx.Err()).WithHint("call again")
		case <-deadline.C:
			return false, nil
		case <-wake:
		case <-poll.C:
		}
	}
}

// WaitForMessages is wait_for_messages, baton's own: instead of polling
// read_messages, an agent blocks until a message for it arrives.
var WaitForMessages = tool.New(tool.Definition[waitIn, waitOut]{
	Name:    "wait_for_messages",
	Toolset: Messages,
	Description: "Block until a message for you arrives (or the timeout, at most 60 s, passes) and return it: no polling. " +
		"Messages already waiting return at once.",
	Profiles:    tool.Profiles,
	Transaction: tool.TxNone,
	Input: tool.Rules{
		"timeout_seconds": tool.Range(1, 60).WithDefault(30),
		"threadId":        tool.Length(1, 128),
	},
	Execute: func(ctx context.Context, c *tool.Call, in waitIn) (waitOut, error) {
		start := time.Now()
		out := waitOut{Messages: []messageView{}}
		arrived, err := waitFor(ctx, c, time.Duration(in.TimeoutSeconds)*time.Second, func() (bool, error) {
			var msgs []*baton.Message
			err := c.Env.Store.Update(ctx, func(tx baton.Tx) (err error) {
				msgs, err = tx.ReadMessages(ctx, c.Principal.Agent, baton.MessageFilter{PendingTo: c.Principal.Agent, ThreadID: in.ThreadID, Limit: 100})
				return err
			})
			for _, m := range msgs {
				out.Messages = append(out.Messages, view(m))
			}
			return len(msgs) > 0, err
		})
		if err != nil {
			return waitOut{}, err
		}
		out.TimedOut, out.WaitedMS = !arrived, time.Since(start).Milliseconds()
		return out, nil
	},
})
