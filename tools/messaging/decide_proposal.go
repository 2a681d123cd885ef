package messaging

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type decideIn struct {
	ID         string `json:"id" jsonschema:"The proposal's id (list_proposals shows it)."`
	Decision   string `json:"decision" jsonschema:"accepted or dismissed."`
	CreateItem bool   `json:"create_item,omitempty" jsonschema:"With accepted: also create a todo work item from the proposal."`
	Project    string `json:"project,omitempty" jsonschema:"With create_item: the new item's project slug; default the session's, else the proposal's, else the only project."`
}

type createdItem struct {
	ID    string `json:"id" jsonschema:"The new work item's id."`
	Title string `json:"title" jsonschema:"Its title: the proposal's."`
}

type decideOut struct {
	ID          string       `json:"id" jsonschema:"The proposal's id."`
	Status      string       `json:"status" jsonschema:"The proposal's status now: accepted or dismissed."`
	CreatedItem *createdItem `json:"created_item,omitempty" jsonschema:"The work item created from the proposal, with create_item."`
}

var decisionRule = tool.Enum("accepted", "dismissed")

// DecideProposal is decide_proposal.
var DecideProposal = tool.New(tool.Definition[decideIn, decideOut]{
	Name: "decide_proposal",
	// One tool, so one event type: the decision is the data's status.
	Event:   "proposal.decided",
	Toolset: Proposals,
	Description: "Accept or dismiss a pending proposal, as the user; with accepted, create_item also turns it into a todo work item " +
		"(a feature, a chore for engineering). A proposal is decided once: deciding it again is ERR_CONFLICT.",
	// Which proposals become work is the human's call, not an agent's:
	// the operator's dashboard and `baton proposals accept|dismiss` have
	// it, an agent only by an explicit grant.
	Annotations: tool.Annotations{Privileged: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"id":       tool.Length(1, 64).NonBlank(),
		"decision": decisionRule,
		"project":  tool.Length(1, 63),
	},
	Output: tool.Rules{"status": decisionRule},
	Execute: func(ctx context.Context, c *tool.Call, in decideIn) (decideOut, error) {
		if in.CreateItem && in.Decision != "accepted" {
			return decideOut{}, baton.Errorf(baton.ErrInvalidInput, "create_item goes with accepted, not %s", in.Decision).
				WithDetails("field", "create_item", "constraint", "requires_accepted").
				WithHint("accept the proposal to make work of it (decision accepted), or dismiss it without create_item")
		}
		p, err := c.Tx.DecideProposal(ctx, in.ID, in.Decision)
		if e := baton.AsError(err); e != nil && e.Code == baton.ErrConflict {
			// The store says what it is; say what to do about it.
			return decideOut{}, e.WithType("already_decided").
				WithHint("a proposal is decided once; list_proposals with status pending shows those still waiting")
		}
		if err != nil {
			return decideOut{}, err
		}
		out := decideOut{ID: p.ID, Status: p.Status}
		if in.CreateItem {
			it, err := itemFromProposal(ctx, c, p, in.Project)
			if err != nil {
				return decideOut{}, err
			}
			out.CreatedItem = &createdItem{ID: it.ID, Title: it.Title}
		}
		return out, nil
	},
})

// itemFromProposal creates the todo item an accepted proposal becomes, in
// project when named (the session's, filled in), else the proposal's,
// else the only project there is.
func itemFromProposal(ctx context.Context, c *tool.Call, p *baton.Proposal, project string) (*baton.Item, error) {
	if project == "" {
		project = p.Project
	}
	if project == "" {
		ps, err := c.Tx.Projects(ctx)
		if err != nil {
			return nil, err
		}
		if len(ps) != 1 {
			return nil, baton.Errorf(baton.ErrInvalidInput, "the proposal has no project and there are %d projects", len(ps)).
				WithDetails("field", "project", "constraint", "required").
				WithHint("name the project of the work item (project, or --project SLUG)")
		}
		project = ps[0].Slug
	}
	kind := baton.KindFeature
	if p.Type == "engineering" {
		kind = baton.KindChore
	}
	it := &baton.Item{Project: project, Title: p.Title,
		Description: p.Description + "\n\nFrom proposal " + p.ID + " by " + p.Author + ".",
		Kind:        kind, Status: baton.StatusTodo, Priority: baton.PriorityNormal, Labels: []string{"proposal", p.Type},
		CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
	return it, c.Tx.CreateItem(ctx, it)
}
