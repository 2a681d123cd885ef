package membot

import (
	"context"

	"github.com/baton-dev/baton/tool"
)

// UtilToolset is Botholomew's util group, where read_large_result lives.
const UtilToolset = "util"

type readLargeIn struct {
	ID   string `json:"id" jsonschema:"The parked result's id from the stub, e.g. lr_3."`
	Page int    `json:"page,omitempty" jsonschema:"1-based page of 8,000 characters."`
}

type readLargeOut struct {
	Content    string `json:"content" jsonschema:"The page's text."`
	ID         string `json:"id" jsonschema:"The parked result's id."`
	Page       int    `json:"page" jsonschema:"The page returned."`
	TotalPages int    `json:"total_pages" jsonschema:"Pages of the whole result."`
	TotalChars int    `json:"total_chars" jsonschema:"Characters of the whole result."`
	IsError    bool   `json:"is_error" jsonschema:"Always false on success (a failure is the error envelope: unknown_id, page_out_of_range)."`
}

// ReadLargeResult is read_large_result: it pages a tool result the session
// was given as a stub because it ran over 10,000 characters (parking is
// done by the MCP transport, tool/parking.go). Results live in the session
// that made them, for an hour; another session's ids mean nothing here.
var ReadLargeResult = tool.New(tool.Definition[readLargeIn, readLargeOut]{
	Name:    tool.ReadLargeResult,
	Toolset: UtilToolset,
	Description: "Read one page (8,000 characters) of a large tool result that was parked as lr_<n>. " +
		"Call it directly with the id and page the stub names.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Transaction: tool.TxNone, // the session's memory, not the store
	Input: tool.Rules{
		"id":   tool.Field{Pattern: `^lr_[0-9]{1,9}$`},
		"page": tool.Range(1, 1e6).WithDefault(1),
	},
	Args: []string{"id", "page"},
	Execute: func(ctx context.Context, c *tool.Call, in readLargeIn) (readLargeOut, error) {
		p, err := c.Env.ReadParked(ctx, in.ID, in.Page)
		if err != nil {
			return readLargeOut{}, err
		}
		return readLargeOut{Content: p.Content, ID: in.ID, Page: p.Page, TotalPages: p.TotalPages, TotalChars: p.TotalChars}, nil
	},
})
