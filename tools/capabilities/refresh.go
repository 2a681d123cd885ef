package capabilities

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of capabilities_refresh, as
// Botholomew groups it (`baton capabilities` runs it too).
const Toolset = "capabilities"

type refreshIn struct {
	IncludeMCP *bool `json:"include_mcp,omitempty" jsonschema:"Include the tools of external MCP servers (baton's plugins); default true."`
}

type refreshOut struct {
	Path              string `json:"path" jsonschema:"The summary file, relative to the directory holding baton's data directory (e.g. .baton/prompts/worker/capabilities.md)."`
	InternalToolCount int    `json:"internal_tool_count" jsonschema:"baton's own tools the session has."`
	MCPToolCount      int    `json:"mcp_tool_count" jsonschema:"Tools of external MCP servers (plugins) the session has; 0 when skipped."`
	CreatedFile       bool   `json:"created_file" jsonschema:"The file did not exist before."`
	Message           string `json:"message" jsonschema:"What was written."`
	IsError           bool   `json:"is_error" jsonschema:"Always false on success (a failure is the error envelope, error_type refresh_failed)."`
}

// CapabilitiesRefresh is capabilities_refresh.
var CapabilitiesRefresh = tool.New(tool.Definition[refreshIn, refreshOut]{
	Name:    "capabilities_refresh",
	Event:   "capabilities.refreshed",
	Toolset: Toolset,
	Description: "Rewrite the summary of what this session's tools let you do: one line per theme, no tool names, in a markdown file " +
		"your prompt includes (path in the output). Call it when your tools changed.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{Idempotent: true},
	// A file, not the store: no transaction is held while it is written.
	Transaction: tool.TxNone,
	Input:       tool.Rules{"include_mcp": tool.Field{Default: true}},
	Execute: func(ctx context.Context, c *tool.Call, in refreshIn) (refreshOut, error) {
		include := in.IncludeMCP == nil || *in.IncludeMCP
		s, err := Refresh(ctx, c.Env, c.Principal, include, c.Now)
		if err != nil {
			return refreshOut{}, err
		}
		return refreshOut{Path: s.Path, InternalToolCount: s.InternalTools, MCPToolCount: s.ExternalTools,
			CreatedFile: s.Created, Message: Message(s)}, nil
	},
})

// Message is Botholomew's: "Wrote capabilities.md (<n> internal tool(s),
// <m> MCPX tool(s)[, MCPX skipped][, file created])".
func Message(s *Summary) string {
	msg := fmt.Sprintf("Wrote capabilities.md (%d internal tool(s), %d MCPX tool(s)", s.InternalTools, s.ExternalTools)
	if s.SkippedMCP {
		msg += ", MCPX skipped"
	}
	if s.Created {
		msg += ", file created"
	}
	return msg + ")"
}
