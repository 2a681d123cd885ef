package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// The human's side of the conversation. The person at the CLI is "user":
// these commands act as the user whatever --agent says, and go through the
// same tools (and the same audit) as an agent's calls.
func (a *App) human() baton.Principal {
	p := a.principal(baton.SourceCLI, baton.User)
	p.Agent = baton.User
	return p
}

// callAs runs a tool as p and decodes its output into out.
func (a *App) callAs(c *cobra.Command, p baton.Principal, name string, args map[string]any, out any) error {
	return a.callIn(c.Context(), p, name, args, out)
}

// callGranted is callAs for a command of the person's own that exists to
// call name, a privileged tool (`baton proposals accept`): running the
// command is the explicit grant of that one tool, for that one call
// (tool.WithGrant); the rest of the CLI session's scope is unchanged.
func (a *App) callGranted(c *cobra.Command, p baton.Principal, name string, args map[string]any, out any) error {
	return a.callIn(tool.WithGrant(c.Context(), name), p, name, args, out)
}

func (a *App) callIn(ctx context.Context, p baton.Principal, name string, args map[string]any, out any) error {
	env, err := a.toolEnv(ctx, a.Registry, "FULL")
	if err != nil {
		return a.fail(err)
	}
	raw, _ := json.Marshal(args)
	res := a.Registry.Call(ctx, env, p, name, raw)
	if res.Err != nil {
		return a.fail(res.Err)
	}
	b, _ := json.Marshal(res.Output)
	return json.Unmarshal(b, out)
}

// inboxMessage is one message of `baton inbox --json`: exactly what the
// agent wrote (JSON escapes it; the table cleans it).
type inboxMessage struct {
	ID             string `json:"id"`
	From           string `json:"from"`
	Role           string `json:"role"`
	EventType      string `json:"event_type,omitempty"`
	Question       string `json:"question,omitempty"`
	DeliveryStatus string `json:"delivery_status"`
	ThreadID       string `json:"thread_id,omitempty"`
	Body           string `json:"body"`
	CreatedAt      string `json:"created_at"`
}

func (a *App) inboxCmd() *cobra.Command {
	var thread string
	var limit int
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "Show messages and announcements to you (the user), oldest first; they become delivered",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			args := map[string]any{"agentId": baton.User, "limit": limit}
			if thread != "" {
				id, err := a.resolveThread(c, thread)
				if err != nil {
					return a.fail(err)
				}
				args["threadId"] = id
			}
			var out struct {
				Messages []struct {
					ID, AgentID, Recipient, Role, Body, DeliveryStatus, ThreadID, EventType, Question, CreatedAt string
				}
			}
			if err := a.callAs(c, a.human(), "read_messages", args, &out); err != nil {
				return err
			}
			mine := []inboxMessage{}
			for _, m := range out.Messages {
				if m.Recipient != baton.User {
					continue
				}
				mine = append(mine, inboxMessage{ID: m.ID, From: m.AgentID, Role: m.Role, EventType: m.EventType, Question: m.Question,
					DeliveryStatus: m.DeliveryStatus, ThreadID: m.ThreadID, Body: m.Body, CreatedAt: m.CreatedAt})
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"messages": mine, "count": len(mine)})
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tFROM\tKIND\tSTATUS\tTHREAD\tMESSAGE\tID")
			for _, m := range mine {
				kind := m.Role
				if m.EventType != "" {
					kind = m.EventType
				}
				if m.Question != "" {
					kind += " (" + m.Question + ")" // open questions wait for a reply in their thread
				}
				first, _, _ := strings.Cut(m.Body, "\n")
				// Every cell is agent text: no escape sequence reaches the terminal.
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cleanLine(m.CreatedAt), cleanLine(m.From), cleanLine(kind),
					cleanLine(m.DeliveryStatus), cleanLine(m.ThreadID), cleanLine(first), cleanLine(m.ID))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "%d messages to you\n", len(mine))
			return nil
		},
	}
	cmd.Flags().StringVar(&thread, "thread", "", "only this thread (its id, or a unique start of it)")
	cmd.Flags().IntVar(&limit, "limit", 50, "most messages to show")
	a.jsonFlag(cmd, `{"messages": [{"id", "from", "role", "event_type", "question", "delivery_status", "thread_id", "body",
"created_at"}], "count": N}: the messages to you, oldest first, bodies whole.`)
	return cmd
}

// resolveThread is the thread a --thread value names: a thread id, or a
// unique start of one (any project's: thread ids are global).
func (a *App) resolveThread(c *cobra.Command, id string) (string, error) {
	ctx := c.Context()
	s, err := a.openStore(ctx)
	if err != nil {
		return "", err
	}
	var ids []string
	err = s.View(ctx, func(tx baton.Tx) error {
		ths, err := tx.Threads(ctx, "", "")
		for _, th := range ths {
			ids = append(ids, th.ThreadID)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return resolveID("thread", id, ids, "`baton inbox` shows the threads of your messages; to start a new thread, use --new-thread ID")
}

func (a *App) replyCmd() *cobra.Command {
	var thread, newThread string
	cmd := &cobra.Command{
		Use:   "reply AGENT MESSAGE [--thread ID | --new-thread ID]",
		Short: "Send a message to an agent as the user",
		Long: "reply sends MESSAGE to AGENT as the user. --thread replies in an existing thread (answering a question\n" +
			"asked there): its id, or enough of its start to name one. --new-thread starts a thread with that id.",
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if thread != "" && newThread != "" {
				return usageError("--thread replies in an existing thread and --new-thread starts one: give one of them")
			}
			in := map[string]any{"to": args[0], "body": args[1]}
			if thread != "" {
				id, err := a.resolveThread(c, thread)
				if err != nil {
					return a.fail(err)
				}
				in["threadId"] = id
			} else if newThread != "" {
				in["threadId"] = newThread
			}
			var out struct{ MessageID, Timestamp string }
			if err := a.callAs(c, a.human(), "send_message", in, &out); err != nil {
				return err
			}
			if wantJSON(c) {
				threadID, _ := in["threadId"].(string)
				return a.printJSON(map[string]any{"message_id": out.MessageID, "to": args[0], "thread_id": threadID, "timestamp": out.Timestamp})
			}
			fmt.Fprintf(a.Stdout, "sent %s to %s", cleanLine(out.MessageID), cleanLine(args[0]))
			if id, _ := in["threadId"].(string); id != "" {
				fmt.Fprintf(a.Stdout, " in thread %s", cleanLine(id))
			}
			fmt.Fprintln(a.Stdout)
			return nil
		},
	}
	cmd.Flags().StringVar(&thread, "thread", "", "the thread to reply in: its id, or a unique start of it")
	cmd.Flags().StringVar(&newThread, "new-thread", "", "start a new thread with this id")
	a.jsonFlag(cmd, `{"message_id", "to", "thread_id" ("" for none), "timestamp"}.`)
	return cmd
}

// proposalCmds decide proposals as the user. The decision is
// decide_proposal's, a privileged tool (which proposals become work is the
// human's call): these commands exist to call it, so each is the person's
// explicit grant of it for that call, while calling decide_proposal by
// name without a grant is refused like any privileged tool. Accepting can
// turn the proposal into a work item.
func (a *App) proposalCmds() []*cobra.Command {
	decide := func(status string) func(c *cobra.Command, args []string, createItem bool) error {
		return func(c *cobra.Command, args []string, createItem bool) error {
			id, err := a.resolveProposal(c, args[0])
			if err != nil {
				return a.fail(err)
			}
			in := map[string]any{"id": id, "decision": status}
			if createItem {
				in["create_item"] = true
			}
			var out struct {
				ID          string `json:"id"`
				Status      string `json:"status"`
				CreatedItem *struct {
					ID    string `json:"id"`
					Title string `json:"title"`
				} `json:"created_item"`
			}
			if err := a.callGranted(c, a.human(), "decide_proposal", in, &out); err != nil {
				return err
			}
			if wantJSON(c) {
				js := map[string]any{"id": out.ID, "status": out.Status}
				if out.CreatedItem != nil {
					js["created_item"] = map[string]any{"id": out.CreatedItem.ID, "title": out.CreatedItem.Title}
				}
				return a.printJSON(js)
			}
			fmt.Fprintf(a.Stdout, "proposal %s %s\n", cleanLine(out.ID), out.Status)
			if out.CreatedItem != nil {
				fmt.Fprintf(a.Stdout, "created %s: %s\n", cleanLine(out.CreatedItem.ID), cleanLine(out.CreatedItem.Title))
			}
			return nil
		}
	}
	var createItem bool
	const idHelp = "ID is the proposal's id or enough of its start to name one proposal."
	accept := &cobra.Command{
		Use:   "accept ID [--create-item]",
		Short: "Accept a pending proposal (as the user); --create-item turns it into a todo work item",
		Long:  "accept accepts a pending proposal as the user; --create-item turns it into a todo work item.\n" + idHelp,
		Args:  cobra.ExactArgs(1),
		RunE:  func(c *cobra.Command, args []string) error { return decide("accepted")(c, args, createItem) },
	}
	accept.Flags().BoolVar(&createItem, "create-item", false, "create a work item from the proposal")
	dismiss := &cobra.Command{
		Use:   "dismiss ID",
		Short: "Dismiss a pending proposal (as the user)",
		Long:  "dismiss dismisses a pending proposal as the user.\n" + idHelp,
		Args:  cobra.ExactArgs(1),
		RunE:  func(c *cobra.Command, args []string) error { return decide("dismissed")(c, args, false) },
	}
	shape := `{"id", "status" (accepted or dismissed), "created_item": {"id", "title"} (with --create-item)}.`
	a.jsonFlag(accept, shape)
	a.jsonFlag(dismiss, shape)
	return []*cobra.Command{accept, dismiss}
}

// resolveProposal is the proposal an argument names: its id, or a unique
// start of one (any project's, any status: deciding a decided one says so).
func (a *App) resolveProposal(c *cobra.Command, arg string) (string, error) {
	ctx := c.Context()
	s, err := a.openStore(ctx)
	if err != nil {
		return "", err
	}
	var ids []string
	err = s.View(ctx, func(tx baton.Tx) error {
		all, err := tx.Proposals(ctx, "", "", "")
		for _, p := range all {
			ids = append(ids, p.ID)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return resolveID("proposal", arg, ids, "`baton proposals list_proposals` lists the proposals")
}

// forceReleaseCmd ends another agent's claim as the user: the operator's
// way out of a claim whose holder died (the dashboard's "Release claim"),
// through the privileged force_release_claim tool.
func (a *App) forceReleaseCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "force-release ITEM --reason TEXT",
		Short: "End another agent's claim on ITEM (as the user); the holder is told why",
		Long: "force-release ends the claim on ITEM whoever holds it, active or lapsed, as the user: the item goes\n" +
			"back to the queue as a release would leave it, the holder gets a message with --reason, and its changes\n" +
			"under the old claim are refused (ERR_CLAIMED) until it claims the item again.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if strings.TrimSpace(reason) == "" {
				return usageError("--reason is required: say why the claim ends (the holder is told)")
			}
			var out struct {
				ItemID         string `json:"item_id"`
				PreviousHolder string `json:"previous_holder"`
				Status         string `json:"status"`
				MessageID      string `json:"message_id"`
			}
			in := map[string]any{"item_id": args[0], "reason": reason}
			if err := a.callGranted(c, a.human(), "force_release_claim", in, &out); err != nil {
				return err
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"item_id": out.ItemID, "previous_holder": out.PreviousHolder,
					"status": out.Status, "message_id": out.MessageID})
			}
			fmt.Fprintf(a.Stdout, "released %s from %s (now %s); %s was told why\n", cleanLine(out.ItemID),
				cleanLine(out.PreviousHolder), cleanLine(out.Status), cleanLine(out.PreviousHolder))
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the claim ends (sent to its holder)")
	a.jsonFlag(cmd, `{"item_id", "previous_holder", "status" (the item's, after release), "message_id" (the holder's notice)}.`)
	return cmd
}
