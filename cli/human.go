package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
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
	env, err := a.toolEnv(c.Context(), a.Registry, "FULL")
	if err != nil {
		return a.fail(err)
	}
	raw, _ := json.Marshal(args)
	res := a.Registry.Call(c.Context(), env, p, name, raw)
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

// proposalCmds decide proposals: the user's call, so CLI commands rather
// than agent tools. Accepting can turn the proposal into a work item.
func (a *App) proposalCmds() []*cobra.Command {
	decide := func(status string) func(c *cobra.Command, args []string, createItem bool) error {
		return func(c *cobra.Command, args []string, createItem bool) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			who := a.human()
			var created *baton.Item
			var id string // the proposal args[0] names: its id or a unique start of it
			err = s.Update(ctx, func(tx baton.Tx) error {
				all, err := tx.Proposals(ctx, "", "", "")
				if err != nil {
					return err
				}
				ids := make([]string, len(all))
				for i, p := range all {
					ids[i] = p.ID
				}
				if id, err = resolveID("proposal", args[0], ids, "`baton proposals list_proposals` lists the proposals"); err != nil {
					return err
				}
				p, err := tx.DecideProposal(ctx, id, status)
				if err != nil {
					return err
				}
				if createItem {
					if created, err = itemFromProposal(ctx, tx, p, who); err != nil {
						return err
					}
				}
				subject := ""
				if created != nil {
					subject = created.ID
				}
				return record(ctx, tx, "proposal_"+status, "proposal."+status, who.Agent, p.Project, subject,
					map[string]any{"id": id, "status": status, "create_item": createItem}, p, time.Now().UTC())
			})
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				out := map[string]any{"id": id, "status": status}
				if created != nil {
					out["created_item"] = map[string]any{"id": created.ID, "title": created.Title}
				}
				return a.printJSON(out)
			}
			fmt.Fprintf(a.Stdout, "proposal %s %s\n", cleanLine(id), status)
			if created != nil {
				fmt.Fprintf(a.Stdout, "created %s: %s\n", cleanLine(created.ID), cleanLine(created.Title))
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

func itemFromProposal(ctx context.Context, tx baton.Tx, p *baton.Proposal, who baton.Principal) (*baton.Item, error) {
	project := p.Project
	if project == "" {
		ps, err := tx.Projects(ctx)
		if err != nil {
			return nil, err
		}
		if len(ps) != 1 {
			return nil, baton.Errorf(baton.ErrInvalidInput, "the proposal has no project and there are %d projects", len(ps)).
				WithDetails("field", "project", "constraint", "required").WithHint("pass --project SLUG")
		}
		project = ps[0].Slug
	}
	if who.Project != "" {
		project = who.Project
	}
	kind := baton.KindFeature
	if p.Type == "engineering" {
		kind = baton.KindChore
	}
	it := &baton.Item{Project: project, Title: p.Title, Description: p.Description + "\n\nFrom proposal " + p.ID + " by " + p.Author + ".",
		Kind: kind, Status: baton.StatusTodo, Priority: baton.PriorityNormal, Labels: []string{"proposal", p.Type},
		CreatedBy: who.Agent}
	return it, tx.CreateItem(ctx, it)
}
