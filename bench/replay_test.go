package bench

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReplayAnswersRecordedResults: the replay server answers each
// recorded tool with its recorded text and structuredContent, and knows
// no other tool.
func TestReplayAnswersRecordedResults(t *testing.T) {
	recorded := map[string]*mcp.CallToolResult{
		"get_issue": {Content: []mcp.Content{&mcp.TextContent{Text: `{"id":"B-1","title":"work <item> 1"}`}},
			StructuredContent: map[string]any{"id": "B-1", "title": "work <item> 1", "comments": []any{}}},
		"list_agents": {Content: []mcp.Content{&mcp.TextContent{Text: "2 agents"}},
			StructuredContent: map[string]any{"agents": []any{map[string]any{"agent_id": "a"}, map[string]any{"agent_id": "b"}}, "count": 2.0}},
	}
	path, err := writeReplay(filepath.Join(t.TempDir(), "results.json"), []string{"get_issue", "list_agents", "list_threads"}, recorded)
	if err != nil {
		t.Fatal(err)
	}
	h, err := replayHandler(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	cs, err := client().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for name, want := range recorded {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"any": "thing"}})
		if err != nil || got.IsError {
			t.Fatalf("%s: %v %v", name, err, got)
		}
		g, _ := json.Marshal(got.StructuredContent)
		w, _ := json.Marshal(want.StructuredContent)
		if string(g) != string(w) || len(got.Content) != 1 || got.Content[0].(*mcp.TextContent).Text != want.Content[0].(*mcp.TextContent).Text {
			t.Errorf("%s answered %s %v, recorded %s %v", name, g, got.Content, w, want.Content)
		}
	}
	// A tool of the mix the run has no result of answers an empty object;
	// a tool outside the mix is unknown.
	if got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_threads"}); err != nil || got.IsError {
		t.Errorf("list_threads, never recorded: %v %v", err, got)
	} else if g, _ := json.Marshal(got.StructuredContent); string(g) != "{}" {
		t.Errorf("list_threads, never recorded, answered %s", g)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "claim_next"}); err == nil {
		t.Error("a tool outside the mix answered")
	}
	if _, err := writeReplay(filepath.Join(t.TempDir(), "none.json"), []string{"get_issue"}, nil); err == nil {
		t.Error("a run without results wrote a replay")
	}
}
