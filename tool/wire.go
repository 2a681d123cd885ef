package tool

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// wireOutput is the output schema as tools/list sends it: the same
// structure, types, enums and required fields that clients validate
// structuredContent against, without the descriptions of the output's
// fields. Those explain results a model reads anyway and were over a
// quarter of what the core preset's tools/list cost; docs/tools.md keeps
// them. Input descriptions, which tell a model what to send, stay.
func wireOutput(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	w := s.CloneSchemas()
	var strip func(*jsonschema.Schema)
	strip = func(x *jsonschema.Schema) {
		if x == nil {
			return
		}
		if d := x.Description; d != "" {
			x.Description = ""
			if isEmpty(x) {
				// A schema that takes any value would go out as a bare
				// `true`, which clients reject: its description keeps it
				// an object.
				x.Description = d
			}
		}
		for _, p := range x.Properties {
			strip(p)
		}
		strip(x.Items)
		strip(x.AdditionalProperties)
		for _, list := range [][]*jsonschema.Schema{x.AnyOf, x.OneOf, x.AllOf, x.PrefixItems} {
			for _, c := range list {
				strip(c)
			}
		}
	}
	strip(w)
	return w
}

// Wire is a tool's schemas as tools/list sends them: the JSON of the input
// schema and of the output schema (wireOutput), exactly as the SDK's
// encoder writes the live schemas (WireJSON). Computed ahead (package
// tools generates them), they spare every start of baton marshalling the
// schemas of every tool it offers, which jsonschema-go does slowly; a test
// holds them byte-identical to WireJSON, so a stale one fails the build's
// tests rather than reaching a client.
type Wire struct{ Input, Output string }

// UseWire makes tools/list send w for t's schemas instead of marshalling
// them. Call it before t is offered (a tools package's init); t must be a
// typed tool (New), whose schemas w was generated from.
func UseWire(t Tool, w Wire) {
	s := t.Spec().schemas
	if s == nil || s.build == nil && s.in == nil {
		panic(fmt.Sprintf("tool %s: UseWire on a tool without schemas", t.Spec().Name))
	}
	s.wire = &w
}

// WireJSON is the JSON tools/list sends for spec's input and output
// schemas, marshalled from the live schemas (never from UseWire's) as the
// SDK's encoder does: compact, without HTML escaping. It is what UseWire's
// JSON is generated from and checked against.
func WireJSON(spec *Spec) (in, out []byte, err error) {
	s := spec.schemas
	if s == nil {
		return nil, nil, fmt.Errorf("tool %s has no schemas", spec.Name)
	}
	s.get()
	if in, err = encodeWire(s.in); err != nil {
		return nil, nil, err
	}
	if out, err = encodeWire(spec.wireOutput()); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// encodeWire marshals v as the SDK's JSON-RPC layer does (jsonrpc2's
// jsonMarshal): an Encoder without HTML escaping, its newline trimmed.
func encodeWire(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// wireOutput is the output schema as tools/list sends it: a typed tool's
// without its descriptions (wireOutput), a dynamic tool's as given.
func (s *Spec) wireOutput() *jsonschema.Schema {
	if s.schemas == nil {
		return nil
	}
	if w := s.schemas.get().wireOut; w != nil {
		return w
	}
	return s.schemas.out
}

// wireSchemas are what MCPTool puts in the tool's inputSchema and
// outputSchema: the precomputed JSON when there is some (UseWire), else
// the schemas, which the SDK marshals.
func (s *Spec) wireSchemas() (in, out any) {
	if s.schemas != nil && s.schemas.wire != nil {
		return json.RawMessage(s.schemas.wire.Input), json.RawMessage(s.schemas.wire.Output)
	}
	return s.InputSchema(), s.wireOutput()
}
