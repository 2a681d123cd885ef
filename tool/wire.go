package tool

import "github.com/google/jsonschema-go/jsonschema"

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
