package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type coverageIn struct {
	FilePath string `json:"file_path" jsonschema:"Relative file path examined."`
	Concept  string `json:"concept" jsonschema:"Research concept (e.g., test_coverage, error_handling, type_safety)."`
	Status   string `json:"status" jsonschema:"covered = no issues found, has_issues = a ticket was created."`
	TicketID string `json:"ticket_id,omitempty" jsonschema:"ID of the ticket created (if status is has_issues)."`
	Notes    string `json:"notes,omitempty" jsonschema:"Brief observation about the file for this concept."`
}

type coverageOut struct {
	Recorded bool   `json:"recorded" jsonschema:"Always true on success."`
	Project  string `json:"project" jsonschema:"The project it was recorded for."`
	FilePath string `json:"file_path" jsonschema:"The file."`
	Concept  string `json:"concept" jsonschema:"The concept."`
	Status   string `json:"status" jsonschema:"The status recorded."`
}

// RecordCoverage is record_coverage.
var RecordCoverage = tool.New(tool.Definition[coverageIn, coverageOut]{
	Name:    "record_coverage",
	Event:   "coverage.recorded",
	Toolset: Toolset,
	Description: "Record research coverage for a file and concept, so the scanner does not review the same thing twice. " +
		"The latest record for a file and concept wins.",
	Profiles: []string{"scanner"},
	Input: tool.Rules{
		"file_path": tool.Length(1, 1024).NonBlank(),
		"concept":   tool.Length(1, 128).NonBlank(),
		"status":    tool.Enum("covered", "has_issues"),
		"ticket_id": issueIDRule,
		"notes":     tool.MaxLen(2000),
	},
	Execute: func(ctx context.Context, c *tool.Call, in coverageIn) (coverageOut, error) {
		p, err := session.Project(ctx, c, "")
		if err != nil {
			return coverageOut{}, err
		}
		if in.TicketID != "" {
			if _, err := c.Tx.Item(ctx, in.TicketID); err != nil {
				return coverageOut{}, err
			}
		}
		cv := &baton.Coverage{Project: p.Slug, FilePath: in.FilePath, Concept: in.Concept, Status: in.Status,
			TicketID: in.TicketID, Notes: in.Notes, Agent: c.Principal.Agent, UpdatedAt: c.Now}
		if err := c.Tx.RecordCoverage(ctx, cv); err != nil {
			return coverageOut{}, err
		}
		return coverageOut{Recorded: true, Project: p.Slug, FilePath: in.FilePath, Concept: in.Concept, Status: in.Status}, nil
	},
})
