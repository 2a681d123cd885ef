package messaging

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type askIn struct {
	Question       string `json:"question" jsonschema:"What you need the owner (the user) to decide or tell you."`
	Context        string `json:"context,omitempty" jsonschema:"What the owner needs to know to answer."`
	ThreadID       string `json:"threadId,omitempty" jsonschema:"Thread to ask in; a new one when omitted."`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"How long to wait for the answer (0 asks without waiting)."`
}

type askOut struct {
	QuestionID string `json:"questionId" jsonschema:"The question's message id."`
	ThreadID   string `json:"threadId" jsonschema:"Where the answer will come."`
	Answered   bool   `json:"answered" jsonschema:"Whether the owner answered within the timeout."`
	Answer     string `json:"answer,omitempty" jsonschema:"The owner's reply, when answered."`
	AnsweredAt string `json:"answeredAt,omitempty" jsonschema:"When the owner replied."`
	Message    string `json:"message" jsonschema:"What to do next."`
}

// AskOwner is ask_owner (from corvid-agent): an agent asks the human and
// gets the answer when it comes, waiting up to the timeout, or later in
// the question's thread. The question stays marked open until answered.
var AskOwner = tool.New(tool.Definition[askIn, askOut]{
	Name:    "ask_owner",
	Toolset: Messages,
	Event:   "question.asked",
	Description: "Ask the owner (the human user) a question. Waits up to timeout_seconds (at most 60) for the reply; " +
		"if none comes, the answer arrives later in the question's thread (read_messages or wait_for_messages with threadId).",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{SchedulerBlocked: true},
	Input: tool.Rules{
		"question":        tool.Length(1, 5000).NonBlank(),
		"context":         tool.MaxLen(20000),
		"threadId":        tool.Length(1, 128),
		"timeout_seconds": tool.Range(0, 60).WithDefault(30),
	},
	Execute: func(ctx context.Context, c *tool.Call, in askIn) (askOut, error) {
		body := in.Question
		if in.Context != "" {
			body += "\n\n" + in.Context
		}
		meta, _ := json.Marshal(map[string]any{"timeout_seconds": in.TimeoutSeconds})
		m := &baton.Message{Project: project(ctx, c), AgentID: c.Principal.Agent, Recipient: baton.User, Role: baton.RoleAgent,
			Body: body, ThreadID: in.ThreadID, EventType: "question", Question: "open", Metadata: meta, CreatedAt: c.Now}
		if m.ThreadID == "" {
			m.ThreadID = "ask-" + newThreadSuffix(c.Now)
		}
		if err := c.Tx.SendMessage(ctx, m); err != nil {
			return askOut{}, err
		}
		out := askOut{QuestionID: m.ID, ThreadID: m.ThreadID,
			Message: "Asked. The answer will arrive in thread " + m.ThreadID + ": read_messages or wait_for_messages with that threadId."}
		return out, nil
	},
	// Waiting happens after the question is committed, so the owner can
	// see it while the agent waits.
	Then: func(ctx context.Context, c *tool.Call, in askIn, out askOut) (askOut, error) {
		if in.TimeoutSeconds == 0 {
			return out, nil
		}
		answered, err := waitFor(ctx, c, time.Duration(in.TimeoutSeconds)*time.Second, func() (bool, error) {
			var replies []*baton.Message
			err := c.Env.Store.Update(ctx, func(tx baton.Tx) (err error) {
				replies, err = tx.ReadMessages(ctx, c.Principal.Agent, baton.MessageFilter{ThreadID: out.ThreadID, To: c.Principal.Agent, Limit: 100})
				return err
			})
			for _, r := range replies {
				if strings.EqualFold(r.AgentID, baton.User) {
					out.Answered, out.Answer, out.AnsweredAt = true, r.Body, baton.Timestamp(r.CreatedAt)
					return true, nil
				}
			}
			return false, err
		})
		switch {
		case err != nil && ctx.Err() == nil:
			return out, err
		case answered:
			out.Message = "The owner answered."
		default:
			out.Message = "No answer yet. It will arrive in thread " + out.ThreadID + ": call wait_for_messages with that threadId, or read_messages later."
		}
		return out, nil
	},
})

// newThreadSuffix names a question's thread uniquely enough for humans.
func newThreadSuffix(now time.Time) string {
	return strings.ReplaceAll(now.UTC().Format("20060102-150405.000"), ".", "-")
}
