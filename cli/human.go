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
				args["threadId"] = thread
			}
			var out struct {
				Messages []struct {
					ID, AgentID, Recipient, Role, Body, DeliveryStatus, ThreadID, EventType, Question, CreatedAt string
				}
			}
			if err := a.callAs(c, a.human(), "read_messages", args, &out); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tFROM\tKIND\tSTATUS\tTHREAD\tMESSAGE\tID")
			n := 0
			for _, m := range out.Messages {
				if m.Recipient != baton.User {
					continue
				}
				n++
				kind := m.Role
				if m.EventType != "" {
					kind = m.EventType
				}
				if m.Question != "" {
					kind += " (" + m.Question + ")" // open questions wait for a reply in their thread
				}
				first, _, _ := strings.Cut(m.Body, "\n")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.CreatedAt, m.AgentID, kind, m.DeliveryStatus, m.ThreadID, first, m.ID)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "%d messages to you\n", n)
			return nil
		},
	}
	cmd.Flags().StringVar(&thread, "thread", "", "only this thread")
	cmd.Flags().IntVar(&limit, "limit", 50, "most messages to show")
	return cmd
}

func (a *App) replyCmd() *cobra.Command {
	var thread string
	cmd := &cobra.Command{
		Use:   "reply AGENT MESSAGE",
		Short: "Send a message to an agent as the user",
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			in := map[string]any{"to": args[0], "body": args[1]}
			if thread != "" {
				in["threadId"] = thread
			}
			var out struct{ MessageID, Timestamp string }
			if err := a.callAs(c, a.human(), "send_message", in, &out); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "sent %s to %s\n", out.MessageID, args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&thread, "thread", "", "thread to reply in")
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
			err = s.Update(ctx, func(tx baton.Tx) error {
				p, err := tx.DecideProposal(ctx, args[0], status)
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
					map[string]any{"id": args[0], "status": status, "create_item": createItem}, p, time.Now().UTC())
			})
			if err != nil {
				return a.fail(err)
			}
			fmt.Fprintf(a.Stdout, "proposal %s %s\n", args[0], status)
			if created != nil {
				fmt.Fprintf(a.Stdout, "created %s: %s\n", created.ID, created.Title)
			}
			return nil
		}
	}
	var createItem bool
	accept := &cobra.Command{
		Use:   "accept ID [--create-item]",
		Short: "Accept a pending proposal (as the user); --create-item turns it into a todo work item",
		Args:  cobra.ExactArgs(1),
		RunE:  func(c *cobra.Command, args []string) error { return decide("accepted")(c, args, createItem) },
	}
	accept.Flags().BoolVar(&createItem, "create-item", false, "create a work item from the proposal")
	dismiss := &cobra.Command{
		Use:   "dismiss ID",
		Short: "Dismiss a pending proposal (as the user)",
		Args:  cobra.ExactArgs(1),
		RunE:  func(c *cobra.Command, args []string) error { return decide("dismissed")(c, args, false) },
	}
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
