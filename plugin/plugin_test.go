package plugin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/plugin"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type thingIn struct {
	ID string `json:"id" jsonschema:"The thing."`
}

type thingOut struct {
	ID    string `json:"id"`
	Owner string `json:"owner"`
}

// remoteServer is a small MCP server over Streamable HTTP, standing in for
// a third-party plugin: baton-to-baton runs in e2e/plugin_test.go. It
// answers only requests with the bearer token, and down makes it fail
// every request.
func remoteServer(t *testing.T) (url string, down *atomic.Bool) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_thing", Description: "Read a thing.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in thingIn) (*mcp.CallToolResult, thingOut, error) {
			return nil, thingOut{ID: in.ID, Owner: "ann"}, nil
		})
	no := false
	mcp.AddTool(s, &mcp.Tool{Name: "tag_thing", Description: "Tag a thing.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in thingIn) (*mcp.CallToolResult, thingOut, error) {
			return nil, thingOut{ID: in.ID, Owner: "tagged"}, nil
		})
	s.AddTool(&mcp.Tool{Name: "wipe", Description: "Wipe everything.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail_plain", Description: "Fail in text.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "quota exceeded"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail_baton", Description: "Fail in baton's envelope.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tool.ErrorResult(baton.Errorf(baton.ErrTaskNotFound, "no task COL-9").WithHint("list tasks")), nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	down = &atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case down.Load():
			http.Error(w, "down", http.StatusServiceUnavailable)
		case r.Header.Get("Authorization") != "Bearer s3cret":
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", down
}

func connect(t *testing.T, p plugin.Plugin) (*plugin.Set, error) {
	t.Helper()
	set, err := plugin.Connect(context.Background(), &plugin.Config{Path: "baton.toml", Plugins: []plugin.Plugin{p}}, plugin.Options{Version: "test"})
	if err == nil {
		t.Cleanup(func() { set.Close() })
	}
	return set, err
}

func TestConnectProxiesTools(t *testing.T) {
	url, _ := remoteServer(t)
	set, err := connect(t, plugin.Plugin{Name: "ext", URL: url, Headers: map[string]string{"Authorization": "Bearer s3cret"},
		Profiles: []string{"worker", "judge"}})
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]*tool.Spec{}
	for _, tl := range set.Tools() {
		specs[tl.Spec().Name] = tl.Spec()
	}
	for name, want := range map[string]tool.Annotations{
		"ext_get_thing":  {ReadOnly: true},
		"ext_tag_thing":  {Idempotent: true},
		"ext_wipe":       {Destructive: true}, // MCP's default when the server says nothing
		"ext_fail_plain": {Destructive: true},
		"ext_fail_baton": {Destructive: true},
	} {
		s := specs[name]
		if s == nil {
			t.Fatalf("%s not proxied: %v", name, specs)
		}
		if s.Annotations != want {
			t.Errorf("%s annotations = %+v, want %+v", name, s.Annotations, want)
		}
		if s.Toolset != "plugin:ext" || !strings.HasPrefix(s.Description, "[ext] ") || strings.Join(s.Profiles, ",") != "worker,judge" {
			t.Errorf("%s spec = %+v", name, s)
		}
	}
	if specs["ext_get_thing"].OutputSchema() == nil || specs["ext_wipe"].OutputSchema() != nil {
		t.Error("output schemas are not the remote's")
	}
}

func TestConnectAllowlistAndPrivilege(t *testing.T) {
	url, _ := remoteServer(t)
	auth := map[string]string{"Authorization": "Bearer s3cret"}
	set, err := connect(t, plugin.Plugin{Name: "ext", URL: url, Headers: auth, Tools: []string{"get_thing"}, Privileged: true,
		SchedulerBlocked: true, SchedulerCap: tool.CapPRs})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tools()) != 1 {
		t.Fatalf("tools = %d, want only the allowlisted one", len(set.Tools()))
	}
	s := set.Tools()[0].Spec()
	if !s.Annotations.Privileged || !s.Annotations.SchedulerBlocked || s.SchedulerCap != tool.CapPRs ||
		strings.Join(s.Profiles, ",") != strings.Join(baton.BuiltinProfiles, ",") {
		t.Errorf("spec = %+v", s)
	}
	_, err = connect(t, plugin.Plugin{Name: "ext", URL: url, Headers: auth, Tools: []string{"get_thing", "nope"}})
	if e := baton.AsError(err); err == nil || e.Code != baton.ErrConfigInvalid || e.Details["plugin"] != "ext" || e.Details["tool"] != "nope" {
		t.Fatalf("allowlist naming a missing tool: %v", err)
	}
}

func TestConnectFailures(t *testing.T) {
	url, _ := remoteServer(t)
	for name, p := range map[string]plugin.Plugin{
		"missing program":  {Name: "gone", Command: []string{"/nonexistent/baton-plugin"}},
		"refused headers":  {Name: "gone", URL: url},
		"nobody listening": {Name: "gone", URL: "http://127.0.0.1:1/mcp"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := connect(t, p)
			e := baton.AsError(err)
			if err == nil || e.Code != baton.ErrInitFailed || e.Details["plugin"] != "gone" || !strings.Contains(e.Message, "plugin gone") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// TestProxiedCalls: calls through the pipeline, remote failures, a lost
// connection and the reconnect after it.
func TestProxiedCalls(t *testing.T) {
	url, down := remoteServer(t)
	set, err := connect(t, plugin.Plugin{Name: "ext", URL: url, Headers: map[string]string{"Authorization": "Bearer s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	k := testkit.New(t)
	k.Registry.Add(set.Tools()...)
	if got := k.OK("ext_get_thing", `{"id":"t1"}`); got["owner"] != "ann" {
		t.Fatalf("get_thing = %v", got)
	}
	if res := k.Call("ext_wipe", `{}`); res.Err != nil || res.Text != "wiped" {
		t.Fatalf("wipe = %+v", res)
	}
	if e := k.Fail("ext_get_thing", `{}`, baton.ErrInvalidInput); e.Details["field"] != "id" {
		t.Fatalf("missing id: %+v", e)
	}
	if e := k.Fail("ext_fail_baton", `{}`, baton.ErrTaskNotFound); e.Hint != "list tasks" {
		t.Fatalf("the remote's envelope is not kept: %+v", e)
	}
	if e := k.Fail("ext_fail_plain", `{}`, baton.ErrInternal); e.Type != "plugin_error" || !strings.Contains(e.Message, "quota exceeded") {
		t.Fatalf("plain remote failure: %+v", e)
	}
	down.Store(true)
	e := k.Fail("ext_get_thing", `{"id":"t1"}`, baton.ErrInternal)
	if e.Type != "plugin_unavailable" || !strings.Contains(e.Hint, "plugin ext") {
		t.Fatalf("lost connection: %+v", e)
	}
	down.Store(false)
	if got := k.OK("ext_get_thing", `{"id":"t2"}`); got["id"] != "t2" {
		t.Fatalf("after reconnecting: %v", got)
	}
	// Only wipe changed something and succeeded: one action.
	n := k.Count(`SELECT COUNT(*) FROM actions WHERE tool LIKE 'ext_%'`)
	if n != 1 {
		t.Fatalf("%d actions, want 1 (ext_wipe)", n)
	}
}
