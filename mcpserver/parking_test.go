package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks, want 1", len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestLargeResultsAreParked: a session that has read_large_result gets a
// stub instead of a text over 10,000 characters (the structured content
// stays whole), and reading the pages back gives the text exactly; a
// session without the tool gets the text inline, and ids are the
// session's own (membot-operations.md §9).
func TestLargeResultsAreParked(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	for i := range 60 {
		k.StoreItem(&baton.Item{Title: fmt.Sprintf("item %d %s", i, strings.Repeat("long title ", 20))})
	}
	ctx := context.Background()
	args := map[string]any{"project": testkit.Project, "status": "todo", "limit": 60}
	full := session(t, k, baton.Principal{Agent: "reader", Source: baton.SourceStdio, Preset: tool.PresetFull})
	res, err := full.CallTool(ctx, &mcp.CallToolParams{Name: "list_issues", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("list_issues: %v %v", err, res)
	}
	whole, _ := json.Marshal(res.StructuredContent)
	stub := textOf(t, res)
	m := regexp.MustCompile(`parked as (lr_\d+)\] list_issues returned (\d+) characters \((\d+) pages`).FindStringSubmatch(stub)
	if m == nil || len(stub) > 1500 {
		t.Fatalf("a %d-byte result was not parked; text (%d bytes) starts %.200q", len(whole), len(stub), stub)
	}
	id := m[1]
	var pages int
	fmt.Sscan(m[3], &pages)
	var b strings.Builder
	for p := 1; p <= pages; p++ {
		r, err := full.CallTool(ctx, &mcp.CallToolParams{Name: "read_large_result", Arguments: map[string]any{"id": id, "page": p}})
		if err != nil || r.IsError {
			t.Fatalf("read_large_result page %d: %v %v", p, err, r)
		}
		var out struct {
			Content    string `json:"content"`
			TotalPages int    `json:"total_pages"`
			TotalChars int    `json:"total_chars"`
		}
		raw, _ := json.Marshal(r.StructuredContent)
		if err := json.Unmarshal(raw, &out); err != nil || out.TotalPages != pages {
			t.Fatalf("page %d: %s", p, raw)
		}
		if p < pages && len([]rune(out.Content)) != tool.PageChars {
			t.Errorf("page %d has %d characters, want %d", p, len([]rune(out.Content)), tool.PageChars)
		}
		b.WriteString(out.Content)
	}
	var got, want any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("the pages do not join into the JSON result: %v", err)
	}
	json.Unmarshal(whole, &want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Error("the parked pages differ from the structured result")
	}
	// The stub previews the text's first 500 characters.
	if preview := string([]rune(b.String())[:500]); !strings.Contains(stub, "Preview:\n"+preview+"…") {
		t.Errorf("the stub does not preview the first 500 characters: %.700q", stub)
	}
	if code, typ := callErr(t, full, "read_large_result", map[string]any{"id": id, "page": pages + 1}); code != baton.ErrInvalidInput || typ != "page_out_of_range" {
		t.Errorf("page past the end: %s %s", code, typ)
	}
	// Another session of the same agent knows no lr_ ids of this one.
	other := session(t, k, baton.Principal{Agent: "reader", Source: baton.SourceStdio, Preset: tool.PresetFull})
	if code, typ := callErr(t, other, "read_large_result", map[string]any{"id": id}); code != baton.ErrNotFound || typ != "unknown_id" {
		t.Errorf("another session reads %s: %s %s, want unknown_id", id, code, typ)
	}
	// A session without read_large_result gets the whole text.
	symphony := session(t, k, baton.Principal{Agent: "s", Source: baton.SourceStdio, Preset: tool.PresetSymphony})
	res, err = symphony.CallTool(ctx, &mcp.CallToolParams{Name: "list_issues", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("list_issues: %v %v", err, res)
	}
	if text := textOf(t, res); len(text) <= tool.ParkAbove || strings.Contains(text, "parked as") {
		t.Errorf("a session without read_large_result got %d characters: %.100q", len(text), text)
	}
}
