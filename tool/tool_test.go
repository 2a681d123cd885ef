package tool_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

type sampleIn struct {
	Name    string            `json:"name" jsonschema:"A name."`
	Kind    string            `json:"kind,omitempty" jsonschema:"A kind."`
	Count   int               `json:"count,omitempty" jsonschema:"A count."`
	Ratio   *float64          `json:"ratio,omitempty" jsonschema:"A ratio."`
	Tags    []string          `json:"tags,omitempty" jsonschema:"Tags."`
	When    string            `json:"when,omitempty" jsonschema:"A time."`
	Code    string            `json:"code,omitempty" jsonschema:"A code."`
	Flag    bool              `json:"flag,omitempty" jsonschema:"A flag."`
	Meta    map[string]any    `json:"meta,omitempty" jsonschema:"Free metadata."`
	Labels  map[string]string `json:"labels,omitempty" jsonschema:"String labels."`
	Nothing any               `json:"nothing,omitempty" jsonschema:"Anything at all."`
}

type sampleOut struct {
	Name  string   `json:"name" jsonschema:"The name."`
	Kind  string   `json:"kind" jsonschema:"The kind."`
	Count int      `json:"count" jsonschema:"The count."`
	Tags  []string `json:"tags" jsonschema:"The tags."`
}

var sampleRules = tool.Rules{
	"name":  tool.Length(1, 5).NonBlank(),
	"kind":  tool.Enum("a", "b").WithDefault("a"),
	"count": tool.Range(0, 10).WithDefault(3),
	"ratio": tool.Range(0, 1),
	"tags":  tool.List(2, tool.Length(1, 3)),
	"when":  tool.DateTime(),
	"code":  tool.Field{Pattern: `^[A-Z]+$`},
}

func sample(exec func(ctx context.Context, c *tool.Call, in sampleIn) (sampleOut, error)) tool.Tool {
	return tool.New(tool.Definition[sampleIn, sampleOut]{
		Name: "sample", Toolset: "test", Description: "A sample tool.",
		Input: sampleRules, Output: tool.Rules{"kind": tool.Enum("a", "b")},
		Execute: exec,
	})
}

func echo(_ context.Context, _ *tool.Call, in sampleIn) (sampleOut, error) {
	tags := in.Tags
	if tags == nil {
		tags = []string{}
	}
	return sampleOut{Name: in.Name, Kind: in.Kind, Count: in.Count, Tags: tags}, nil
}

func TestValidateRules(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	cases := []struct {
		name, args, field, rule string
	}{
		{"missing required", `{}`, "name", "required"},
		{"empty", `{"name":""}`, "name", "minLength"},
		{"too long", `{"name":"abcdef"}`, "name", "maxLength"},
		{"blank", `{"name":"   "}`, "name", "pattern"},
		{"wrong type", `{"name":5}`, "name", "type"},
		{"enum", `{"name":"x","kind":"c"}`, "kind", "enum"},
		{"below minimum", `{"name":"x","count":-1}`, "count", "minimum"},
		{"above maximum", `{"name":"x","count":11}`, "count", "maximum"},
		{"not an integer", `{"name":"x","count":1.5}`, "count", "type"},
		{"number above maximum", `{"name":"x","ratio":1.01}`, "ratio", "maximum"},
		{"too many items", `{"name":"x","tags":["a","b","c"]}`, "tags", "maxItems"},
		{"bad item", `{"name":"x","tags":["abcd"]}`, "tags[0]", "maxLength"},
		{"date-time", `{"name":"x","when":"yesterday"}`, "when", "format"},
		{"pattern", `{"name":"x","code":"abc"}`, "code", "pattern"},
		{"unknown field", `{"name":"x","created_by":"mallory"}`, "created_by", "additionalProperties"},
		{"boolean type", `{"name":"x","flag":"yes"}`, "flag", "type"},
		{"null", `{"name":null}`, "name", "type"},
		{"map value type", `{"name":"x","labels":{"a":1}}`, "labels.a", "type"},
		{"not an object", `[1]`, "arguments", "type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tool.Validate(s, json.RawMessage(c.args))
			if err == nil {
				t.Fatalf("Validate(%s) accepted", c.args)
			}
			if err.Code != baton.ErrInvalidInput || err.Details["field"] != c.field || err.Details["constraint"] != c.rule {
				t.Fatalf("Validate(%s) = %s %v, want field %s rule %s", c.args, err.Code, err.Details, c.field, c.rule)
			}
			if !strings.Contains(err.Message, c.field) || err.Hint == "" {
				t.Fatalf("message %q does not name %s, or no hint", err.Message, c.field)
			}
		})
	}
}

func TestValidateReportsEveryViolation(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	_, err := tool.Validate(s, json.RawMessage(`{"name":"","kind":"z","count":99}`))
	vs, _ := err.Details["violations"].([]tool.Violation)
	if len(vs) != 3 {
		t.Fatalf("violations = %v, want 3", err.Details["violations"])
	}
}

func TestValidateAppliesDefaults(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	for _, raw := range []string{`{"name":"x"}`, ` {"name":"x"} `} {
		norm, err := tool.Validate(s, json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		_ = json.Unmarshal(norm, &got)
		if got["kind"] != "a" || got["count"] != float64(3) {
			t.Fatalf("defaults not applied: %s", norm)
		}
	}
	// Whole numbers are integers, however they are written.
	for _, raw := range []string{`{"name":"x","count":5.0}`, `{"name":"x","count":5e0}`, `{"name":"x","count":0.5e1}`} {
		norm, err := tool.Validate(s, json.RawMessage(raw))
		if err != nil || !strings.Contains(string(norm), `"count":5`) || strings.Contains(string(norm), `"count":5.`) {
			t.Fatalf("Validate(%s) = %s, %v", raw, norm, err)
		}
	}
	if _, err := tool.Validate(s, nil); err == nil || err.Details["field"] != "name" {
		t.Fatalf("empty arguments should miss name, got %v", err)
	}
	for _, bad := range []string{`{`, `{"name":"x"} {}`, `nope`} {
		if _, err := tool.Validate(s, json.RawMessage(bad)); err == nil || err.Details["constraint"] != "json" {
			t.Fatalf("Validate(%q) = %v, want a json error", bad, err)
		}
	}
}

func TestValidateAcceptsBoundaries(t *testing.T) {
	s := sample(echo).Spec().InputSchema()
	for _, ok := range []string{
		`{"name":"a"}`, `{"name":"abcde"}`, `{"name":"ééééé"}`, `{"name":"x","count":0}`, `{"name":"x","count":10}`,
		`{"name":"x","count":10.0}`, `{"name":"x","ratio":0.5}`, `{"name":"x","tags":["abc","d"]}`,
		`{"name":"x","when":"2026-04-08T22:15:30Z"}`, `{"name":"x","when":"2026-04-08T22:15:30.5+02:00"}`,
		`{"name":"x","meta":{"a":[1,{"b":null}]}}`, `{"name":"x","nothing":[1,"two"]}`,
	} {
		if _, err := tool.Validate(s, json.RawMessage(ok)); err != nil {
			t.Errorf("Validate(%s) rejected: %v", ok, err)
		}
	}
}

// TestSchemaShape checks what inference is turned into: no nullable unions,
// no bare boolean property schemas, constraints in place, and an output
// schema that admits the error envelope.
func TestSchemaShape(t *testing.T) {
	spec := sample(echo).Spec()
	in, _ := json.Marshal(spec.InputSchema())
	for _, bad := range []string{`"null"`, `:true`} {
		if strings.Contains(string(in), bad) {
			t.Errorf("input schema contains %s: %s", bad, in)
		}
	}
	var m map[string]any
	_ = json.Unmarshal(in, &m)
	props := m["properties"].(map[string]any)
	name := props["name"].(map[string]any)
	if name["minLength"] != 1.0 || name["maxLength"] != 5.0 || name["type"] != "string" {
		t.Errorf("name schema = %v", name)
	}
	if props["kind"].(map[string]any)["default"] != "a" {
		t.Errorf("kind default missing: %v", props["kind"])
	}
	if tags := props["tags"].(map[string]any); tags["type"] != "array" || tags["maxItems"] != 2.0 {
		t.Errorf("tags = %v", tags)
	}
	out, _ := json.Marshal(spec.OutputSchema())
	var o map[string]any
	_ = json.Unmarshal(out, &o)
	if _, ok := o["properties"].(map[string]any)["error"]; !ok {
		t.Errorf("output schema lacks the error property: %s", out)
	}
	if _, ok := o["required"]; ok || o["anyOf"] == nil {
		t.Errorf("output schema must put required inside anyOf: %s", out)
	}
	env := []byte(`{"error":{"code":"ERR_INTERNAL","type":"internal","message":"x"}}`)
	var ev any
	_ = json.Unmarshal(env, &ev)
	if _, err := tool.Validate(spec.OutputSchema(), env); err != nil {
		t.Errorf("output schema rejects the error envelope: %v", err)
	}
	if _, err := tool.Validate(spec.OutputSchema(), json.RawMessage(`{"name":"x"}`)); err == nil {
		t.Error("output schema accepts a partial output")
	}
}

func TestBadDefinitionsPanic(t *testing.T) {
	cases := map[string]tool.Rules{
		"unknown field":      {"nope": tool.MaxLen(3)},
		"string rule on int": {"count": tool.MaxLen(3)},
		"number rule on str": {"name": tool.Range(0, 1)},
		"default breaks":     {"kind": tool.Enum("a").WithDefault("z")},
		"array rule on str":  {"name": tool.List(2, tool.Field{})},
	}
	for name, rules := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			// New defers the schemas to their first use, which panics.
			tool.New(tool.Definition[sampleIn, sampleOut]{Name: "bad", Toolset: "t", Description: "d", Input: rules, Execute: echo}).
				Spec().InputSchema()
		})
	}
}

func TestInvoke(t *testing.T) {
	k := testkit.New(t)
	ctx := context.Background()
	reg := tool.NewRegistry(sample(echo))
	res := reg.Call(ctx, k.Env, k.Principal, "sample", json.RawMessage(`{"name":"abc"}`))
	if res.Err != nil {
		t.Fatal(res.Text)
	}
	if got := testkit.Decode(t, res.Output); got["kind"] != "a" || got["count"] != 3.0 {
		t.Fatalf("defaults not seen by Execute: %v", got)
	}
	if res := reg.Call(ctx, k.Env, k.Principal, "nope", nil); res.Err == nil || res.Err.Code != baton.ErrNotFound ||
		!strings.Contains(res.Err.Hint, "sample") {
		t.Fatalf("unknown tool: %+v", res)
	}
}

// createThen makes a tool that writes a task and a file (registering its
// removal with OnRollback, as move_issue does) and then fails in the given
// way; neither write may survive.
func createThen(fail func() (sampleOut, error)) tool.Tool {
	return sample(func(ctx context.Context, c *tool.Call, in sampleIn) (sampleOut, error) {
		it := &baton.Item{Project: testkit.Project, Title: in.Name, Status: baton.StatusBacklog, CreatedBy: c.Principal.Agent}
		if err := c.Tx.CreateItem(ctx, it); err != nil {
			return sampleOut{}, err
		}
		file := filepath.Join(c.Env.DataDir, "side-effect")
		if err := os.WriteFile(file, []byte(in.Name), 0o644); err != nil {
			return sampleOut{}, err
		}
		c.OnRollback(func() { os.Remove(file) })
		return fail()
	})
}

func TestFailedCallChangesNothing(t *testing.T) {
	cases := map[string]struct {
		tool tool.Tool
		code string
	}{
		"error": {createThen(func() (sampleOut, error) {
			return sampleOut{}, baton.Errorf(baton.ErrConflict, "no")
		}), baton.ErrConflict},
		"panic": {createThen(func() (sampleOut, error) { panic("boom") }), baton.ErrInternal},
		"output breaks its schema": {createThen(func() (sampleOut, error) {
			return sampleOut{Name: "x", Kind: "not-an-enum", Tags: []string{}}, nil
		}), baton.ErrInternal},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			k := testkit.New(t)
			ctx := context.Background()
			res := tool.NewRegistry(c.tool).Call(ctx, k.Env, k.Principal, "sample", json.RawMessage(`{"name":"abc"}`))
			if res.Err == nil || res.Err.Code != c.code {
				t.Fatalf("got %s, want %s", res.Text, c.code)
			}
			var page baton.ItemPage
			_ = k.Store.View(ctx, func(tx baton.Tx) (err error) {
				page, err = tx.ListItems(ctx, baton.ItemFilter{})
				return err
			})
			if page.Total != 0 {
				t.Fatalf("the failed call left %d items behind", page.Total)
			}
			if _, err := os.Stat(filepath.Join(k.Env.DataDir, "side-effect")); !os.IsNotExist(err) {
				t.Fatalf("the failed call left its file behind (%v)", err)
			}
			// The store is still usable after a panic inside a transaction.
			k.OK("task_create", `{"title":"after","project":"colibri"}`)
		})
	}
}

func TestRegistry(t *testing.T) {
	a := sample(echo)
	reg := tool.NewRegistry(a)
	if reg.Len() != 1 || reg.Toolsets()[0] != "test" {
		t.Fatalf("registry = %d %v", reg.Len(), reg.Toolsets())
	}
	if got := reg.Filter(func(s *tool.Spec) bool { return s.Annotations.ReadOnly }); got.Len() != 0 {
		t.Fatalf("filter kept %d", got.Len())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate registration did not panic")
		}
	}()
	reg.Add(a)
}

// TestLargeOutputEventIsSummarised: the event of a call whose output is
// over MaxEventData carries its size, not the output.
func TestLargeOutputEventIsSummarised(t *testing.T) {
	k := testkit.New(t)
	ctx := context.Background()
	big := tool.New(tool.Definition[sampleIn, sampleOut]{
		Name: "big", Toolset: "test", Description: "A tool with a large output.", Event: "test.big",
		Execute: func(context.Context, *tool.Call, sampleIn) (sampleOut, error) {
			return sampleOut{Name: strings.Repeat("x", tool.MaxEventData), Tags: []string{}}, nil
		},
	})
	reg := tool.NewRegistry(sample(echo), big)
	for _, name := range []string{"sample", "big"} {
		if res := reg.Call(ctx, k.Env, k.Principal, name, json.RawMessage(`{"name":"abc"}`)); res.Err != nil {
			t.Fatal(res.Text)
		}
	}
	var small, large string
	if err := k.DB().QueryRowContext(ctx, k.Rebind(`SELECT data FROM events WHERE type = 'tool.sample'`)).Scan(&small); err != nil {
		t.Fatal(err)
	}
	if err := k.DB().QueryRowContext(ctx, k.Rebind(`SELECT data FROM events WHERE type = 'test.big'`)).Scan(&large); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(small, `"name":"abc"`) {
		t.Errorf("a small output's event = %s", small)
	}
	if len(large) > 200 || !strings.Contains(large, `"truncated":true`) {
		t.Errorf("a large output's event is %d bytes: %.100s", len(large), large)
	}
}
