// Command noopmcp is the cold-start floor of `baton bench --cold-start
// --floor-bin`: the smallest stdio MCP server the go-sdk makes, one tool
// that does nothing. What it costs to start and answer tools/list is the
// process, the Go runtime and the SDK, below which no work of baton's can
// go on the same machine. Build it with the module's SDK (the patched copy
// baton uses): go build -o noopmcp ./bench/testdata/noopmcp
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
