package tool

import (
	"context"
	"encoding/json"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/stack"
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
	in, out := s.wireSchemas()
	return &mcp.Tool{
		Name: s.Name, Description: s.Description, Annotations: ann, Meta: meta,
		InputSchema: in, OutputSchema: out,
	}
}

// Bind adds the tool through the server's raw AddTool: baton validates the
// arguments and the output itself, against the very schemas the client
// sees, so the SDK's typed path would only validate and re-encode
// everything a second time (and resolve every schema when a server is
// built, the larger part of a cold start).
func (t *typed) Bind(s *mcp.Server, env *Env, who PrincipalFunc) {
	s.AddTool(MCPTool(t.spec), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The SDK runs each call on a new goroutine; grow its stack
		// once, here, rather than step by step inside SQLite.
		stack.Grow()
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		p := who(ctx, req)
		// b is the output as the pipeline marshalled it (for its check,
		// the action's digest and the event): not marshalled again here.
		out, b, err := t.invoke(ctx, env, p, raw)
		if err != nil {
			return ErrorResult(err), nil
		}
		text := env.parkText(ctx, p, t.spec.Name, t.text(out, b))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}, nil
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
