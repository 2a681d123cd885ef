package messaging

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type proposalIn struct {
	Title       string `json:"title" jsonschema:"Concise proposal title."`
	Description string `json:"description" jsonschema:"Deep description: what, why, how, and expected impact."`
	Type        string `json:"type" jsonschema:"product (UX/product) or engineering (refactor/architecture)."`
}

type proposalView struct {
	ID          string `json:"id" jsonschema:"Proposal id."`
	Author      string `json:"author,omitempty" jsonschema:"Who proposed it."`
	Title       string `json:"title" jsonschema:"Title."`
	Description string `json:"description,omitempty" jsonschema:"Description."`
	Type        string `json:"type" jsonschema:"product or engineering."`
	Status      string `json:"status" jsonschema:"pending, accepted or dismissed."`
	CreatedAt   string `json:"createdAt" jsonschema:"ISO-8601 UTC timestamp."`
}

var proposalStatus = tool.Enum("pending", "accepted", "dismissed")

// CreateProposal is create_proposal.
var CreateProposal = tool.New(tool.Definition[proposalIn, proposalView]{
	Name:        "create_proposal",
	Event:       "proposal.created",
	Toolset:     Proposals,
	Description: "Propose an improvement (product or engineering) for the user to accept or dismiss; check list_proposals for duplicates first.",
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"title":       tool.Length(1, 256).NonBlank(),
		"description": tool.Length(1, 20000).NonBlank(),
		"type":        tool.Enum("product", "engineering"),
	},
	Output: tool.Rules{"status": proposalStatus},
	Execute: func(ctx context.Context, c *tool.Call, in proposalIn) (proposalView, error) {
		p := &baton.Proposal{Project: project(ctx, c), Author: c.Principal.Agent, Title: in.Title, Description: in.Description,
			Type: in.Type, CreatedAt: c.Now}
		if err := c.Tx.CreateProposal(ctx, p); err != nil {
			return proposalView{}, err
		}
		return proposalView{ID: p.ID, Title: p.Title, Type: p.Type, Status: p.Status, CreatedAt: baton.Timestamp(p.CreatedAt)}, nil
	},
})

type listIn struct {
	Status string `json:"status,omitempty" jsonschema:"Filter: pending, accepted or dismissed."`
	Type   string `json:"type,omitempty" jsonschema:"Filter: product or engineering."`
}

type listOut struct {
	Proposals []proposalView `json:"proposals" jsonschema:"Proposals, newest first."`
	Count     int            `json:"count" jsonschema:"Proposals returned."`
}

// ListProposals is list_proposals.
var ListProposals = tool.New(tool.Definition[listIn, listOut]{
	Name:        "list_proposals",
	Toolset:     Proposals,
	Description: "List proposals, newest first, by status and type.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"status": proposalStatus, "type": tool.Enum("product", "engineering")},
	Output:      tool.Rules{"proposals.status": proposalStatus},
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		ps, err := c.Tx.Proposals(ctx, project(ctx, c), in.Status, in.Type)
		if err != nil {
			return listOut{}, err
		}
		out := listOut{Proposals: make([]proposalView, 0, len(ps))}
		for _, p := range ps {
			out.Proposals = append(out.Proposals, proposalView{ID: p.ID, Author: p.Author, Title: p.Title,
				Description: p.Description, Type: p.Type, Status: p.Status, CreatedAt: baton.Timestamp(p.CreatedAt)})
		}
		out.Count = len(out.Proposals)
		return out, nil
	},
})
