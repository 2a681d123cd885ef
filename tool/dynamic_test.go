package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// schema parses a JSON Schema written out in a test.
func schema(t *testing.T, s string) *jsonschema.Schema {
	t.Helper()
	var out jsonschema.Schema
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

const remoteIn = `{"type":"object","properties":{"title":{"type":"string","minLength":1},
	"size":{"type":"integer","maximum":3,"default":1}},"required":["title"],"additionalProperties":false}`

const remoteOut = `{"type":"object","properties":{"task_id":{"type":"string"}},"required":["task_id"]}`

// remote is a dynamic tool that counts its calls and answers with answer.
func remote(t *testing.T, name string, ann tool.Annotations, answer func(in json.RawMessage) (json.RawMessage, error)) (tool.Tool, *atomic.Int32) {
	t.Helper()
	calls := &atomic.Int32{}
	d, err := tool.NewDynamic(tool.Spec{
		Name: name, Toolset: "plugin:peer", Description: "[peer] Make a task.", Annotations: ann,
		Profiles: []string{"worker"},
	}.WithSchemas(schema(t, remoteIn), schema(t, remoteOut)), func(_ context.Context, _ *tool.Call, in json.RawMessage) (json.RawMessage, error) {
		calls.Add(1)
		return answer(in)
	})
	if err != nil {
		t.Fatal(err)
	}
	return d, calls
}

func created(json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"task_id":"COL-1"}`), nil
}

// actions are the audit log's actions of the named tool.
func actions(t *testing.T, k *testkit.Kit, name string) []*baton.Action {
	t.Helper()
	var out []*baton.Action
	err := k.Store.View(context.Background(), func(tx baton.Tx) error {
		all, err := tx.Actions(context.Background(), 0, 1000)
		for _, a := range all {
			if a.Tool == name {
				out = append(out, a)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNewDynamicRefusesBadSpecs(t *testing.T) {
	call := func(context.Context, *tool.Call, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	for name, c := range map[string]struct {
		spec tool.Spec
		call tool.DynamicFunc
	}{
		"no name":           {tool.Spec{Toolset: "x"}.WithSchemas(&jsonschema.Schema{Type: "object"}, nil), call},
		"no toolset":        {tool.Spec{Name: "x"}.WithSchemas(&jsonschema.Schema{Type: "object"}, nil), call},
		"no call":           {tool.Spec{Name: "x", Toolset: "x"}.WithSchemas(&jsonschema.Schema{Type: "object"}, nil), nil},
		"no input schema":   {tool.Spec{Name: "x", Toolset: "x"}, call},
		"non-object schema": {tool.Spec{Name: "x", Toolset: "x"}.WithSchemas(&jsonschema.Schema{Type: "string"}, nil), call},
	} {
		if _, err := tool.NewDynamic(c.spec, c.call); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestDynamicPipeline: each stage of the pipeline, as typed tools have it.
func TestDynamicPipeline(t *testing.T) {
	boom := func(json.RawMessage) (json.RawMessage, error) { panic("boom") }
	refused := func(json.RawMessage) (json.RawMessage, error) {
		return nil, baton.Errorf(baton.ErrTaskNotFound, "no task COL-9")
	}
	broken := func(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{"task_id":7}`), nil }
	notJSON := func(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{`), nil }
	for _, c := range []struct {
		name    string
		ann     tool.Annotations
		answer  func(json.RawMessage) (json.RawMessage, error)
		args    string
		profile string
		code    string // "" = success
		rule    string // the violated rule of an ERR_INVALID_INPUT
		calls   int32
		logged  int
	}{
		{"success is logged", tool.Annotations{}, created, `{"title":"x"}`, "", "", "", 1, 1},
		{"read-only is not logged", tool.Annotations{ReadOnly: true}, created, `{"title":"x"}`, "", "", "", 1, 0},
		{"missing field never reaches the remote", tool.Annotations{}, created, `{}`, "", baton.ErrInvalidInput, "required", 0, 0},
		{"over maximum", tool.Annotations{}, created, `{"title":"x","size":4}`, "", baton.ErrInvalidInput, "maximum", 0, 0},
		{"unknown field", tool.Annotations{}, created, `{"title":"x","agent":"mallory"}`, "", baton.ErrInvalidInput, "additionalProperties", 0, 0},
		{"out of scope", tool.Annotations{}, created, `{"title":"x"}`, "judge", baton.ErrPermissionDenied, "", 0, 0},
		{"privileged without a grant", tool.Annotations{Privileged: true}, created, `{"title":"x"}`, "worker", baton.ErrPermissionDenied, "", 0, 0},
		{"in the profile", tool.Annotations{}, created, `{"title":"x"}`, "worker", "", "", 1, 1},
		{"remote error kept", tool.Annotations{}, refused, `{"title":"x"}`, "", baton.ErrTaskNotFound, "", 1, 0},
		{"panic", tool.Annotations{}, boom, `{"title":"x"}`, "", baton.ErrInternal, "", 1, 0},
		{"output breaks its schema", tool.Annotations{}, broken, `{"title":"x"}`, "", baton.ErrInternal, "", 1, 0},
		{"output not JSON", tool.Annotations{}, notJSON, `{"title":"x"}`, "", baton.ErrInternal, "", 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := testkit.New(t)
			d, calls := remote(t, "peer_task_create", c.ann, c.answer)
			k.Registry.Add(d)
			p := k.Principal
			p.Profile = c.profile
			res := k.Registry.Call(context.Background(), k.Env, p, "peer_task_create", json.RawMessage(c.args))
			switch {
			case c.code == "" && res.Err != nil:
				t.Fatalf("failed: %s", res.Text)
			case c.code != "" && (res.Err == nil || res.Err.Code != c.code):
				t.Fatalf("got %s, want %s", res.Text, c.code)
			case c.rule != "" && !strings.Contains(res.Text, `"rule":"`+c.rule+`"`):
				t.Fatalf("the envelope does not name rule %s: %s", c.rule, res.Text)
			}
			if got := calls.Load(); got != c.calls {
				t.Errorf("the remote was called %d times, want %d", got, c.calls)
			}
			if got := len(actions(t, k, "peer_task_create")); got != c.logged {
				t.Errorf("%d actions logged, want %d", got, c.logged)
			}
		})
	}
}

// TestDynamicRecord: the action and the event of a call, with the remote
// item qualified by the toolset and the defaults the remote received.
func TestDynamicRecord(t *testing.T) {
	k := testkit.New(t)
	var got json.RawMessage
	d, _ := remote(t, "peer_task_create", tool.Annotations{}, func(in json.RawMessage) (json.RawMessage, error) {
		got = in
		return created(in)
	})
	k.Registry.Add(d)
	res := k.Call("peer_task_create", `{"title":"x"}`)
	if res.Err != nil {
		t.Fatal(res.Text)
	}
	if string(got) != `{"size":1,"title":"x"}` {
		t.Errorf("the remote received %s, want the defaults applied", got)
	}
	as := actions(t, k, "peer_task_create")
	if len(as) != 1 || as[0].Subject != "plugin:peer:COL-1" || as[0].Agent != "agent-alice" {
		t.Fatalf("actions = %+v", as)
	}
	ctx := context.Background()
	var evs []*baton.Event
	_ = k.Store.View(ctx, func(tx baton.Tx) (err error) {
		evs, err = tx.Events(ctx, testkit.Project, 0, 100)
		return err
	})
	if len(evs) != 1 || evs[0].Type != "tool.peer_task_create" || string(evs[0].Data) != `{"task_id":"COL-1"}` {
		t.Fatalf("events = %+v", evs)
	}
}

// TestDynamicSchedulerCap: a dynamic tool counts against its cap, and a
// failed call gives its place back.
func TestDynamicSchedulerCap(t *testing.T) {
	k := testkit.New(t)
	fail := false
	d, err := tool.NewDynamic(tool.Spec{Name: "peer_open_pr", Toolset: "plugin:peer", Description: "[peer] PR.",
		SchedulerCap: tool.CapPRs}.WithSchemas(&jsonschema.Schema{Type: "object"}, nil),
		func(context.Context, *tool.Call, json.RawMessage) (json.RawMessage, error) {
			if fail {
				return nil, baton.Errorf(baton.ErrConflict, "no")
			}
			return json.RawMessage(`{"ok":true}`), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	k.Registry.Add(d)
	p := k.Principal
	p.SchedulerMode = true
	ctx := tool.WithSession(context.Background(), &tool.Session{})
	call := func() *baton.Error {
		return k.Registry.Call(ctx, k.Env, p, "peer_open_pr", nil).Err
	}
	fail = true
	if e := call(); e == nil || e.Code != baton.ErrConflict {
		t.Fatalf("failing call: %v", e)
	}
	fail = false
	for i := range tool.SchedulerCaps[tool.CapPRs] {
		if e := call(); e != nil {
			t.Fatalf("call %d: %v", i+1, e)
		}
	}
	if e := call(); e == nil || e.Type != "scheduler_cap" {
		t.Fatalf("call over the cap: %v", e)
	}
}

// TestDynamicBind: over MCP the tool lists its run-time schemas and answers
// like a typed tool, success and failure.
func TestDynamicBind(t *testing.T) {
	k := testkit.New(t)
	d, _ := remote(t, "peer_task_create", tool.Annotations{Idempotent: true}, func(in json.RawMessage) (json.RawMessage, error) {
		if strings.Contains(string(in), "missing") {
			return nil, baton.Errorf(baton.ErrTaskNotFound, "no such task").WithHint("list tasks")
		}
		return created(in)
	})
	text, _ := tool.NewDynamic(tool.Spec{Name: "peer_hello", Toolset: "plugin:peer", Description: "[peer] Hi.",
		Annotations: tool.Annotations{ReadOnly: true}}.WithSchemas(&jsonschema.Schema{Type: "object"}, nil),
		func(context.Context, *tool.Call, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`"hello"`), nil
		})
	k.Registry.Add(d, text)
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	who := func(context.Context, *mcp.CallToolRequest) baton.Principal { return k.Principal }
	d.Bind(s, k.Env, who)
	text.Bind(s, k.Env, who)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	tl := byName["peer_task_create"]
	if tl == nil || tl.Description != "[peer] Make a task." || tl.Annotations.ReadOnlyHint || !tl.Annotations.IdempotentHint ||
		tl.Meta["baton/toolset"] != "plugin:peer" {
		t.Fatalf("listed as %+v", tl)
	}
	if in, _ := json.Marshal(tl.InputSchema); !strings.Contains(string(in), `"maximum":3`) {
		t.Errorf("input schema = %s", in)
	}
	if byName["peer_hello"] == nil || byName["peer_hello"].OutputSchema != nil {
		t.Errorf("a tool without an output schema lists one: %+v", byName["peer_hello"])
	}
	for _, c := range []struct {
		tool, args, text string
		isError          bool
		code             string
	}{
		{"peer_task_create", `{"title":"x"}`, `{"task_id":"COL-1"}`, false, ""},
		{"peer_task_create", `{"title":"missing"}`, "", true, baton.ErrTaskNotFound},
		{"peer_task_create", `{"title":""}`, "", true, baton.ErrInvalidInput},
		{"peer_hello", `{}`, "hello", false, ""},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatal(err)
		}
		txt := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != c.isError {
			t.Fatalf("%s %s: isError %v: %s", c.tool, c.args, res.IsError, txt)
		}
		if c.isError {
			var env baton.Envelope
			b, _ := json.Marshal(res.StructuredContent)
			if json.Unmarshal(b, &env) != nil || env.Error == nil || env.Error.Code != c.code {
				t.Errorf("%s: envelope %s, want %s", c.args, b, c.code)
			}
			continue
		}
		if txt != c.text {
			t.Errorf("%s: text %q, want %q", c.tool, txt, c.text)
		}
		if (res.StructuredContent != nil) != strings.HasPrefix(c.text, "{") {
			t.Errorf("%s: structured content %v", c.tool, res.StructuredContent)
		}
	}
}
