package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The replay floor is the no-op floor with baton's answers: a bare go-sdk
// server that has each tool of the run's mix and answers it, at once,
// with the last result baton gave for it in the run (its text and
// structuredContent, byte for byte), while the same agents run the same
// mix against it. What it costs per call is what the SDK, HTTP and the
// agents' own client cost for results of baton's sizes (list_agents
// returns every agent; the client decodes each result into maps), with
// nothing of baton's work: the floor under baton's throughput on this
// machine, where the no-op floor, answering "ok", is only the floor under
// an empty call.

// replayed is one tool's recorded result.
type replayed struct {
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
}

// measureReplayFloor runs the replay floor with run's recorded results,
// as o (the floors' options: the run's agents and duration) and cpus say.
func measureReplayFloor(ctx context.Context, o Options, run *Report, cpus cpuPlan) (*NoOpFloor, error) {
	dir, err := os.MkdirTemp("", "baton-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if o.replay, err = writeReplay(filepath.Join(dir, "results.json"), mixOf(o).tools(), run.results); err != nil {
		return nil, err
	}
	rep, err := runHTTP(ctx, o, KindReplay, cpus)
	if err != nil {
		return nil, err
	}
	f := &NoOpFloor{Sessions: o.Agents, Elapsed: rep.Elapsed, Calls: rep.Calls, Errors: rep.Errors, CPU: rep.CPU}
	for _, name := range slices.Sorted(maps.Keys(rep.Tools)) {
		if e := rep.Tools[name].FirstError; e != "" && f.FirstError == "" {
			f.FirstError = name + ": " + e
		}
	}
	return f, nil
}

// writeReplay writes a result for each of the tools, as the replay server
// reads them, to path, and returns it. A tool the run has no result of
// (one too short to call it, or to succeed) answers an empty object: less
// than baton would, which only raises the floor.
func writeReplay(path string, tools []string, results map[string]*mcp.CallToolResult) (string, error) {
	if len(results) == 0 {
		return "", errors.New("the run has no result to replay")
	}
	out := make(map[string]replayed, len(tools))
	for _, name := range tools {
		res, ok := results[name]
		if !ok {
			out[name] = replayed{Text: "{}", Structured: json.RawMessage("{}")}
			continue
		}
		var r replayed
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				r.Text = t.Text
				break
			}
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return "", fmt.Errorf("%s's result: %w", name, err)
		}
		r.Structured = b
		out[name] = r
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, b, 0o600)
}

// replayHandler is the replay floor's server: the go-sdk's Streamable
// HTTP handler with the options of the no-op floor's, and each tool of
// the file, answering with its result there.
func replayHandler(path string) (http.Handler, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var results map[string]replayed
	if err := json.Unmarshal(b, &results); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "replay", Version: "1"}, nil)
	for name, r := range results {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Text}}, StructuredContent: r.Structured}, nil
			})
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, streamableOptions()), nil
}
