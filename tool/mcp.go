package tool

import (
	"context"
	"encoding/json"

	"github.com/baton-dev/baton"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PrincipalFunc resolves who makes an MCP call. Transports supply it; it
// never reads tool arguments.
type PrincipalFunc func(ctx context.Context, req *mcp.CallToolRequest) baton.Principal

type binder interface {
	// Bind adds the tool to an MCP server through mcp.AddTool, with the
	// input and output schemas of its Spec.
	Bind(s *mcp.Server, env *Env, who PrincipalFunc)
}

// MCPTool is the tool as an MCP client sees it in tools/list.
func MCPTool(s *Spec) *mcp.Tool {
	ann := &mcp.ToolAnnotations{
		ReadOnlyHint:   s.Annotations.ReadOnly,
		IdempotentHint: s.Annotations.Idempotent || s.Annotations.ReadOnly,
	}
	if !s.Annotations.ReadOnly {
		d := s.Annotations.Destructive
		ann.DestructiveHint = &d
	}
	closed := false
	ann.OpenWorldHint = &closed
	meta := mcp.Meta{"baton/toolset": s.Toolset}
	for k, on := range map[string]bool{
		"baton/terminal": s.Annotations.Terminal, "baton/privileged": s.Annotations.Privileged,
		"baton/schedulerBlocked": s.Annotations.SchedulerBlocked,
	} {
		if on {
			meta[k] = true
		}
	}
	return &mcp.Tool{
		Name: s.Name, Description: s.Description, Annotations: ann, Meta: meta,
		InputSchema: s.InputSchema, OutputSchema: s.OutputSchema,
	}
}

func (t *typed[In, Out]) Bind(s *mcp.Server, env *Env, who PrincipalFunc) {
	mcp.AddTool(s, MCPTool(t.spec), func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		out, err := t.run(ctx, env, who(ctx, req), in)
		if err != nil {
			return ErrorResult(err), nil, nil
		}
		res := &mcp.CallToolResult{}
		if t.def.Text != nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: t.def.Text(out)}}
		}
		return res, out, nil
	})
}

// ErrorResult is a failed call as MCP returns it: isError, the envelope as
// structuredContent, and the same JSON as text for text-only clients.
func ErrorResult(err error) *mcp.CallToolResult {
	b, _ := json.Marshal(baton.Envelope{Error: baton.AsError(err)})
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
}
