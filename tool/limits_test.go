package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// prop is the input schema of the sample tool's property name.
func prop(t *testing.T, s *jsonschema.Schema, name string) *jsonschema.Schema {
	t.Helper()
	p := s.Properties[name]
	if p == nil {
		t.Fatalf("no property %s", name)
	}
	return p
}

// metaOf returns a metadata object whose compact JSON is exactly n bytes.
func metaOf(t *testing.T, n int) map[string]any {
	t.Helper()
	const overhead = len(`{"k":""}`)
	m := map[string]any{"k": strings.Repeat("x", n-overhead)}
	if b, _ := json.Marshal(m); len(b) != n {
		t.Fatalf("metadata is %d bytes, want %d", len(b), n)
	}
	return m
}

func args(t *testing.T, v map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPoint2DefaultLimits: a field the tool leaves unbounded gets the
// framework's limit, in the schema the client sees; what the tool sets
// stays.
func TestPoint2DefaultLimits(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	for _, c := range []struct {
		field string
		max   int
	}{{"name", 5}, {"code", tool.DefaultMaxString}, {"when", tool.DefaultMaxDateTime}} {
		if p := prop(t, s, c.field); p.MaxLength == nil || *p.MaxLength != c.max {
			t.Errorf("%s maxLength = %v, want %d", c.field, p.MaxLength, c.max)
		}
	}
	if p := prop(t, s, "kind"); p.MaxLength != nil {
		t.Errorf("an enum needs no maxLength, got %d", *p.MaxLength)
	}
	if p := prop(t, s, "tags"); *p.MaxItems != 2 || *p.Items.MaxLength != 3 {
		t.Errorf("tags keep their own limits: %d, %d", *p.MaxItems, *p.Items.MaxLength)
	}
	if v := prop(t, s, "labels").AdditionalProperties; v.MaxLength == nil || *v.MaxLength != tool.DefaultMaxString {
		t.Errorf("map values are strings without a limit: %+v", v)
	}
	for _, f := range []string{"meta", "labels", "nothing"} {
		p := prop(t, s, f)
		if n, ok := tool.ObjectLimit(p); !ok || n != tool.DefaultMaxObjectBytes {
			t.Errorf("%s size limit = %d %v, want %d", f, n, ok, tool.DefaultMaxObjectBytes)
		}
		if !strings.HasSuffix(p.Description, " At most 16 KiB as JSON.") {
			t.Errorf("%s description %q does not state the limit", f, p.Description)
		}
	}
	type listIn struct {
		Items []string `json:"items,omitempty" jsonschema:"Items."`
	}
	tl := tool.New(tool.Definition[listIn, sampleOut]{Name: "l", Toolset: "t", Description: "d.",
		Execute: func(context.Context, *tool.Call, listIn) (sampleOut, error) { return sampleOut{}, nil }})
	if p := prop(t, tl.Spec().InputSchema(), "items"); p.MaxItems == nil || *p.MaxItems != tool.DefaultMaxItems ||
		*p.Items.MaxLength != tool.DefaultMaxString {
		t.Errorf("an array without limits = %+v", p)
	}
}

// TestPoint2FreeFormSize: a free-form object is held to its serialised
// size, the default or the tool's own, named in the error with its limit.
func TestPoint2FreeFormSize(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	for _, c := range []struct {
		name string
		meta map[string]any
		ok   bool
	}{
		{"at the limit", metaOf(t, tool.DefaultMaxObjectBytes), true},
		{"one byte over", metaOf(t, tool.DefaultMaxObjectBytes+1), false},
		{"4 MB", map[string]any{"blob": strings.Repeat("a", 4<<20)}, false},
		{"nested", map[string]any{"a": []any{map[string]any{"b": strings.Repeat("é", 9000)}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := args(t, map[string]any{"name": "x", "meta": c.meta})
			_, err := tool.Validate(s, raw)
			if c.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			want := "payload"
			if len(raw) <= tool.MaxArguments {
				want = "meta"
			}
			if want == "payload" {
				if err.Details["field"] != "arguments" || err.Details["constraint"] != "maxBytes" {
					t.Fatalf("payload over the limit: %v", err)
				}
				return
			}
			if err.Code != baton.ErrInvalidInput || err.Details["field"] != "meta" || err.Details["constraint"] != "maxBytes" ||
				!strings.Contains(err.Message, "meta must be at most 16 KiB as JSON") {
				t.Fatalf("got %s %q %v", err.Code, err.Message, err.Details)
			}
			if vs := err.Details["violations"].([]tool.Violation); vs[0].Limit != tool.DefaultMaxObjectBytes {
				t.Fatalf("limit %v", vs[0].Limit)
			}
		})
	}

	// A tool narrows the limit per field in its Rules.
	small := tool.New(tool.Definition[sampleIn, sampleOut]{Name: "small", Toolset: "t", Description: "d.",
		Input: tool.Rules{"meta": tool.Size(100)}, Execute: echo})
	p := prop(t, small.Spec().InputSchema(), "meta")
	if n, _ := tool.ObjectLimit(p); n != 100 || !strings.HasSuffix(p.Description, "At most 100 bytes as JSON.") {
		t.Fatalf("limit %d, description %q", n, p.Description)
	}
	if _, err := tool.Validate(small.Spec().InputSchema(), args(t, map[string]any{"name": "x", "meta": metaOf(t, 100)})); err != nil {
		t.Fatalf("100 bytes refused: %v", err)
	}
	_, err := tool.Validate(small.Spec().InputSchema(), args(t, map[string]any{"name": "x", "meta": metaOf(t, 101)}))
	if err == nil || err.Details["field"] != "meta" || !strings.Contains(err.Message, "at most 100 bytes") {
		t.Fatalf("101 bytes: %v", err)
	}
	// A size limit on what is not free-form is a definition error.
	defer func() {
		if recover() == nil {
			t.Fatal("a size limit on a string did not panic")
		}
	}()
	tool.New(tool.Definition[sampleIn, sampleOut]{Name: "bad", Toolset: "t", Description: "d.",
		Input: tool.Rules{"name": tool.Size(10)}, Execute: echo}).Spec().InputSchema()
}

// TestPoint2PayloadLimit: arguments past MaxArguments are refused before
// they are even decoded, naming the limit.
func TestPoint2PayloadLimit(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	huge := `{"name":"x","nothing":"` + strings.Repeat("a", tool.MaxArguments) + `"}`
	for _, raw := range []string{huge, strings.Repeat("[", tool.MaxArguments+1)} {
		_, err := tool.Validate(s, json.RawMessage(raw))
		if err == nil || err.Code != baton.ErrInvalidInput || err.Details["field"] != "arguments" ||
			err.Details["constraint"] != "maxBytes" || err.Details["limit"] != tool.MaxArguments || !strings.Contains(err.Message, "2 MiB") {
			t.Fatalf("%d bytes: %v", len(raw), err)
		}
	}
	// Just under the payload limit, the field's own limit answers.
	_, err := tool.Validate(s, json.RawMessage(`{"name":"x","nothing":"`+strings.Repeat("a", tool.MaxArguments-40)+`"}`))
	if err == nil || err.Details["field"] != "nothing" {
		t.Fatalf("field limit: %v", err)
	}
}

// TestPoint2ErrorsStaySmall: many violations, or a huge refused value,
// make a bounded error.
func TestPoint2ErrorsStaySmall(t *testing.T) {
	type manyIn struct {
		Codes []string `json:"codes" jsonschema:"Codes."`
	}
	tl := tool.New(tool.Definition[manyIn, sampleOut]{Name: "many", Toolset: "t", Description: "d.",
		Input:   tool.Rules{"codes": tool.List(1000, tool.Field{Pattern: `^[A-Z]+$`})},
		Execute: func(context.Context, *tool.Call, manyIn) (sampleOut, error) { return sampleOut{}, nil }})
	codes := make([]string, 1000)
	for i := range codes {
		codes[i] = strings.Repeat("a", 500)
	}
	_, err := tool.Validate(tl.Spec().InputSchema(), args(t, map[string]any{"codes": codes}))
	if err == nil {
		t.Fatal("accepted")
	}
	b, _ := json.Marshal(err)
	if vs := err.Details["violations"].([]tool.Violation); len(vs) != 100 || len(b) > 64<<10 ||
		!strings.Contains(err.Message, "and 990 more") {
		t.Fatalf("%d violations, %d bytes, message %.300s", len(vs), len(b), err.Message)
	}
	_, err = tool.Validate(sample(echo).Spec().InputSchema(), args(t, map[string]any{"name": "x", strings.Repeat("k", 10000): 1}))
	if err == nil || len(err.Message) > 1000 {
		t.Fatalf("unknown 10000-character key: %v", err)
	}
}

// TestPoint6NULRefused: U+0000 anywhere in the arguments, in a value or a
// key, however deep in free-form metadata, is ERR_INVALID_INPUT naming the
// field.
func TestPoint6NULRefused(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	for _, c := range []struct{ args, field string }{
		{`{"name":"a\u0000"}`, "name"},
		{`{"name":"x","tags":["a\u0000b"]}`, "tags[0]"},
		{`{"name":"x","meta":{"a":{"b":["ok","\u0000"]}}}`, "meta.a.b[1]"},
		{`{"name":"x","meta":{"k\u0000":1}}`, "meta"},
		{`{"name":"x","labels":{"\u0000":"v"}}`, "labels"},
		{`{"name":"x","labels":{"k":"v\u0000"}}`, "labels.k"},
		{`{"name":"x","nothing":"\u0000"}`, "nothing"},
	} {
		_, err := tool.Validate(s, json.RawMessage(c.args))
		if err == nil {
			t.Errorf("%s accepted", c.args)
			continue
		}
		if err.Code != baton.ErrInvalidInput || err.Details["field"] != c.field || err.Details["constraint"] != "nul" ||
			!strings.Contains(err.Message, "NUL") {
			t.Errorf("%s: %s %q %v, want field %s", c.args, err.Code, err.Message, err.Details, c.field)
		}
	}
	// Other control characters are text like any other.
	if _, err := tool.Validate(s, json.RawMessage(`{"name":"a\u0001\t"}`)); err != nil {
		t.Errorf("control characters refused: %v", err)
	}
}

// TestPoint6SameAnswerOnBothStores: a title with NUL gets the same answer
// from SQLite and PostgreSQL (run the suite with BATON_TEST_STORE=postgres
// too): ERR_INVALID_INPUT naming the field, and nothing written.
func TestPoint6SameAnswerOnBothStores(t *testing.T) {
	k := testkit.New(t)
	for _, c := range []struct {
		tool, args, field string
	}{
		{"task_create", `{"title":"a\u0000b","project":"colibri"}`, "title"},
		{"task_create", `{"title":"ok","description":"\u0000","project":"colibri"}`, "description"},
		{"task_create", `{"title":"ok","labels":["x\u0000"],"project":"colibri"}`, "labels[0]"},
	} {
		e := k.FailEnvelope(c.tool, c.args, baton.ErrInvalidInput)
		if e.Details["field"] != c.field || e.Details["constraint"] != "nul" {
			t.Errorf("%s %s on %s: %v", c.tool, c.args, k.Backend, e)
		}
	}
	if n := k.Count(`SELECT COUNT(*) FROM items`); n != 0 {
		t.Fatalf("refused calls wrote %d items on %s", n, k.Backend)
	}
	// The same text without NUL is stored and read back as sent.
	out := k.OK("task_create", `{"title":"a\u0001b ✓","project":"colibri"}`)
	got := k.OK("task_get", map[string]any{"task_id": out["task_id"]})
	if fmt.Sprint(got["title"]) != "a\u0001b ✓" {
		t.Fatalf("title read back as %q on %s", got["title"], k.Backend)
	}
}

type rangeIn struct {
	Offset int     `json:"offset,omitempty" jsonschema:"An offset."`
	Small  int32   `json:"small,omitempty" jsonschema:"An int32."`
	Tiny   uint8   `json:"tiny,omitempty" jsonschema:"A uint8."`
	Ratio  float64 `json:"ratio,omitempty" jsonschema:"A float."`
	Limit  int     `json:"limit,omitempty" jsonschema:"A bounded int."`
}

// TestPoint7NumbersOutOfRange: a number no Go field holds is refused with
// ERR_INVALID_INPUT naming the field, never wrapped around; what fits
// arrives exactly.
func TestPoint7NumbersOutOfRange(t *testing.T) {
	var seen rangeIn
	tl := tool.New(tool.Definition[rangeIn, sampleOut]{Name: "ranges", Toolset: "t", Description: "d.",
		Input: tool.Rules{"offset": tool.Min(0), "limit": tool.Range(1, 100)},
		Execute: func(_ context.Context, _ *tool.Call, in rangeIn) (sampleOut, error) {
			seen = in
			return sampleOut{Tags: []string{}}, nil
		}})
	s := tl.Spec().InputSchema()
	for _, c := range []struct {
		args, field, rule string
		limit             any
	}{
		{`{"offset":9223372036854775808}`, "offset", "maximum", int64(math.MaxInt64)},
		{`{"offset":18446744073709551616}`, "offset", "maximum", int64(math.MaxInt64)},
		{`{"offset":1e19}`, "offset", "maximum", int64(math.MaxInt64)},
		{`{"offset":9.3e18}`, "offset", "maximum", int64(math.MaxInt64)},
		{`{"offset":1e400}`, "offset", "maximum", int64(math.MaxInt64)},
		{`{"offset":-9223372036854775809}`, "offset", "minimum", 0.0},
		{`{"limit":9223372036854775808}`, "limit", "maximum", 100.0},
		{`{"small":2147483648}`, "small", "maximum", float64(math.MaxInt32)},
		{`{"small":-2147483649}`, "small", "minimum", float64(math.MinInt32)},
		{`{"tiny":256}`, "tiny", "maximum", 255.0},
		{`{"tiny":-1}`, "tiny", "minimum", 0.0},
		{`{"ratio":1e400}`, "ratio", "maximum", math.MaxFloat64},
		{`{"ratio":-1e400}`, "ratio", "minimum", -math.MaxFloat64},
	} {
		_, err := tool.Validate(s, json.RawMessage(c.args))
		if err == nil {
			t.Errorf("%s accepted", c.args)
			continue
		}
		vs := err.Details["violations"].([]tool.Violation)
		if err.Code != baton.ErrInvalidInput || err.Details["field"] != c.field || err.Details["constraint"] != c.rule ||
			vs[0].Limit != c.limit || !strings.Contains(err.Message, c.field) {
			t.Errorf("%s: %q %v, want %s %s %v", c.args, err.Message, err.Details, c.field, c.rule, c.limit)
		}
	}
	k := testkit.New(t)
	reg := tool.NewRegistry(tl)
	for _, c := range []struct {
		args string
		want rangeIn
	}{
		{`{"offset":9223372036854775807}`, rangeIn{Offset: math.MaxInt64}},
		{`{"offset":9.2e18}`, rangeIn{Offset: 9200000000000000000}},
		{`{"small":-2147483648,"tiny":255}`, rangeIn{Small: math.MinInt32, Tiny: 255}},
		{`{"ratio":1.7e308,"limit":1e2}`, rangeIn{Ratio: 1.7e308, Limit: 100}},
	} {
		seen = rangeIn{}
		if res := reg.Call(context.Background(), k.Env, k.Principal, "ranges", json.RawMessage(c.args)); res.Err != nil {
			t.Errorf("%s refused: %s", c.args, res.Text)
		} else if seen != c.want {
			t.Errorf("%s arrived as %+v, want %+v", c.args, seen, c.want)
		}
	}
	// A registered tool: the offset of task_list.
	e := k.FailEnvelope("task_list", `{"offset":9223372036854775808}`, baton.ErrInvalidInput)
	if e.Details["field"] != "offset" || e.Details["constraint"] != "maximum" {
		t.Fatalf("task_list offset 2^63: %v", e)
	}
	// A rule may narrow a Go type's range, never widen it.
	defer func() {
		if recover() == nil {
			t.Fatal("a rule wider than int32 did not panic")
		}
	}()
	tool.New(tool.Definition[rangeIn, sampleOut]{Name: "wide", Toolset: "t", Description: "d.",
		Input: tool.Rules{"small": tool.Range(0, 1e10)}, Execute: func(context.Context, *tool.Call, rangeIn) (sampleOut, error) {
			return sampleOut{}, nil
		}}).Spec().InputSchema()
}

// failing is a tool that fails the way fail says, with a real file system
// error where it needs one.
func failing(fail func(c *tool.Call) error) tool.Tool {
	return tool.New(tool.Definition[sampleIn, sampleOut]{Name: "failing", Toolset: "t", Description: "d.",
		Transaction: tool.TxNone,
		Execute: func(_ context.Context, c *tool.Call, _ sampleIn) (sampleOut, error) {
			return sampleOut{}, fail(c)
		}})
}

// TestPoint8NoServerPathsInErrors: whatever an internal failure says, no
// absolute path of the server reaches the client, directly or over MCP;
// paths under the data directory read relative to it.
func TestPoint8NoServerPathsInErrors(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret", "config.db")
	cases := []struct {
		name string
		fail func(c *tool.Call) error
		want string // what the client reads instead of the path
	}{
		{"os error in the data directory", func(c *tool.Call) error {
			_, err := os.ReadFile(filepath.Join(c.Env.DataDir, "memory", "gone.md"))
			return err
		}, "open memory/gone.md: no such file or directory"},
		{"os error elsewhere", func(*tool.Call) error {
			_, err := os.Open(outside)
			return err
		}, "open …/config.db: no such file or directory"},
		{"wrapped in ERR_INTERNAL", func(c *tool.Call) error {
			err := os.Mkdir(c.Env.DataDir, 0o755)
			return baton.Errorf(baton.ErrInternal, "preparing %q: %v", c.Env.DataDir, err).
				WithDetails("dir", c.Env.DataDir).WithHint("check %s", outside)
		}, `preparing ".": mkdir .: file exists`},
		{"panic", func(c *tool.Call) error { panic(errors.New("cannot read " + outside)) }, "cannot read …/config.db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := testkit.New(t)
			reg := tool.NewRegistry(failing(c.fail))
			res := reg.Call(context.Background(), k.Env, k.Principal, "failing", json.RawMessage(`{"name":"x"}`))
			texts := []string{res.Text}

			s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			reg.All()[0].Bind(s, k.Env, func(context.Context, *mcp.CallToolRequest) baton.Principal { return k.Principal })
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
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing", Arguments: json.RawMessage(`{"name":"x"}`)})
			if err != nil || !r.IsError {
				t.Fatalf("over MCP: %v %+v", err, r)
			}
			sc, _ := json.Marshal(r.StructuredContent)
			texts = append(texts, r.Content[0].(*mcp.TextContent).Text, string(sc))

			if res.Err == nil || res.Err.Code != baton.ErrInternal {
				t.Fatalf("got %s", res.Text)
			}
			for _, text := range texts {
				for _, dir := range []string{k.Env.DataDir, filepath.Dir(outside), os.TempDir()} {
					if strings.Contains(text, dir) {
						t.Errorf("the client reads the server path %s in %s", dir, text)
					}
				}
			}
			if !strings.Contains(res.Err.Message, c.want) {
				t.Errorf("message %q, want it to say %q", res.Err.Message, c.want)
			}
		})
	}
	// Errors a tool writes for the client (here one naming the caller's own
	// worktree) are not internal and pass untouched.
	k := testkit.New(t)
	res := tool.NewRegistry(failing(func(*tool.Call) error {
		return baton.Errorf(baton.ErrConflict, "you are in /home/agent/wt, not your worktree")
	})).Call(context.Background(), k.Env, k.Principal, "failing", json.RawMessage(`{"name":"x"}`))
	if res.Err == nil || res.Err.Message != "you are in /home/agent/wt, not your worktree" {
		t.Fatalf("a tool's own error changed: %s", res.Text)
	}
}
