package tool_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// New builds no schema: a definition that contradicts itself is accepted
// until its schemas are first used, and then panics on every use with the
// same message (never a half-built schema).
func TestNewDefersSchemas(t *testing.T) {
	bad := tool.New(tool.Definition[sampleIn, sampleOut]{Name: "bad", Toolset: "t", Description: "d",
		Input: tool.Rules{"nope": tool.MaxLen(3)}, Execute: echo})
	if s := bad.Spec(); s.Name != "bad" || s.Toolset != "t" || s.Description != "d" {
		t.Fatalf("spec %+v", s)
	}
	for _, use := range []func(*tool.Spec){
		func(s *tool.Spec) { s.InputSchema() },
		func(s *tool.Spec) { s.OutputSchema() },
		func(s *tool.Spec) { tool.MCPTool(s) },
	} {
		func() {
			defer func() {
				if r := fmt.Sprint(recover()); !strings.Contains(r, `tool bad: input: rule for "nope": no property "nope"`) {
					t.Errorf("panic %q", r)
				}
			}()
			use(bad.Spec())
		}()
	}
	// A positional argument that is no property is found at build time too.
	args := tool.New(tool.Definition[sampleIn, sampleOut]{Name: "args", Toolset: "t", Description: "d",
		Args: []string{"tags", "name"}, Execute: echo})
	defer func() {
		if r := fmt.Sprint(recover()); !strings.Contains(r, `positional argument "tags"`) {
			t.Errorf("panic %q", r)
		}
	}()
	args.Spec().InputSchema()
}

// OnSchemas changes the schema baton validates with, after tools/list's
// copy was taken, and only before the schemas are built.
func TestOnSchemas(t *testing.T) {
	tl := tool.OnSchemas(sample(echo), func(in, out *jsonschema.Schema) {
		out.Properties["name"].Types, out.Properties["name"].Type = []string{"null", "string"}, ""
	})
	if got := tl.Spec().OutputSchema().Properties["name"].Types; len(got) != 2 {
		t.Errorf("patched output: %v", got)
	}
	if _, err := tool.Validate(tl.Spec().OutputSchema(), json.RawMessage(`{"name":null,"kind":"a","count":1,"tags":[]}`)); err != nil {
		t.Errorf("null name refused: %v", err)
	}
	_, out, err := tool.WireJSON(tl.Spec())
	if err != nil || !bytes.Contains(out, []byte(`"name":{"type":"string"}`)) {
		t.Errorf("wire output %s (%v)", out, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("OnSchemas after the schemas were built did not panic")
		}
	}()
	tool.OnSchemas(tl, func(in, out *jsonschema.Schema) {})
}

// A tool given its schemas' JSON (UseWire) lists exactly as one whose
// schemas the SDK marshals, over a real MCP session.
func TestUseWireListsTheSame(t *testing.T) {
	// list is the raw tools/list response line, as a stdio client reads it.
	list := func(tl tool.Tool) []byte {
		t.Helper()
		s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		tl.Bind(s, &tool.Env{}, nil)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = s.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
		go func() {
			for _, line := range []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			} {
				_, _ = io.WriteString(inW, line+"\n")
			}
		}()
		lines := bufio.NewReader(outR)
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(line, []byte(`"id":2,`)) {
				inW.Close()
				return line
			}
		}
	}
	marshalled := sample(echo)
	if _, ok := tool.MCPTool(marshalled.Spec()).InputSchema.(*jsonschema.Schema); !ok {
		t.Fatal("without UseWire the SDK should get the schema")
	}
	precomputed := sample(echo)
	in, out, err := tool.WireJSON(precomputed.Spec())
	if err != nil {
		t.Fatal(err)
	}
	tool.UseWire(precomputed, tool.Wire{Input: string(in), Output: string(out)})
	if got, ok := tool.MCPTool(precomputed.Spec()).InputSchema.(json.RawMessage); !ok || !bytes.Equal(got, in) {
		t.Fatalf("with UseWire the input schema is %v", tool.MCPTool(precomputed.Spec()).InputSchema)
	}
	if a, b := list(marshalled), list(precomputed); !bytes.Equal(a, b) {
		t.Errorf("tools/list differs:\nmarshalled  %s\nprecomputed %s", a, b)
	}
}
