package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
	"github.com/google/jsonschema-go/jsonschema"
)

// walkSchema visits every schema under s, with its path.
func walkSchema(path string, s *jsonschema.Schema, visit func(path string, s *jsonschema.Schema)) {
	if s == nil {
		return
	}
	visit(path, s)
	for _, k := range s.PropertyOrder {
		walkSchema(path+"."+k, s.Properties[k], visit)
	}
	walkSchema(path+"[]", s.Items, visit)
	if ap := s.AdditionalProperties; ap != nil && ap.Not == nil {
		walkSchema(path+".*", ap, visit)
	}
	for i, alt := range s.AnyOf {
		walkSchema(fmt.Sprintf("%s.anyOf[%d]", path, i), alt, visit)
	}
}

// TestPoint2EveryInputFieldBounded: in every registered tool's input
// schema, every string has a maxLength (or is an enum), every array a
// maxItems, and every free-form value a serialised-size limit that the
// validator holds it to and its description states.
func TestPoint2EveryInputFieldBounded(t *testing.T) {
	fields := 0
	for _, tl := range tools.All() {
		s := tl.Spec()
		walkSchema(s.Name, s.InputSchema(), func(path string, p *jsonschema.Schema) {
			fields++
			switch p.Type {
			case "string":
				if p.MaxLength == nil && len(p.Enum) == 0 {
					t.Errorf("%s: a string without maxLength", path)
				}
			case "array":
				if p.MaxItems == nil {
					t.Errorf("%s: an array without maxItems", path)
				}
			}
			if tool.FreeForm(p) {
				n, ok := tool.ObjectLimit(p)
				if !ok || n <= 0 || n > tool.DefaultMaxObjectBytes {
					t.Errorf("%s: free-form without a size limit (%d, %v)", path, n, ok)
				}
				if want := "At most " + tool.Bytes(n) + " as JSON."; !strings.Contains(p.Description, want) {
					t.Errorf("%s: description %q does not state %q", path, p.Description, want)
				}
			}
		})
	}
	if fields < 100 {
		t.Fatalf("walked only %d schemas", fields)
	}
}

// worstCase is the largest compact JSON a value valid against s can be:
// every string at its maxLength in six-byte escapes, every array full.
func worstCase(s *jsonschema.Schema) int {
	if s == nil {
		return 0
	}
	if n, ok := tool.ObjectLimit(s); ok {
		return n
	}
	switch s.Type {
	case "string":
		if len(s.Enum) > 0 {
			longest := 0
			for _, e := range s.Enum {
				longest = max(longest, len(fmt.Sprint(e)))
			}
			return longest + 2
		}
		return *s.MaxLength*6 + 2
	case "array":
		return 2 + *s.MaxItems*(worstCase(s.Items)+1)
	case "object":
		n := 2
		for name, p := range s.Properties {
			n += len(name) + 4 + worstCase(p)
		}
		return n
	case "boolean":
		return 5
	}
	return 24 // a number
}

// TestPoint2PayloadLimitAdmitsEveryValidCall: the bound on the whole
// arguments never refuses a call its fields' own limits admit, so a
// client that obeys the schema never meets it.
func TestPoint2PayloadLimitAdmitsEveryValidCall(t *testing.T) {
	for _, tl := range tools.All() {
		s := tl.Spec()
		if n := worstCase(s.InputSchema()); n > tool.MaxArguments {
			t.Errorf("%s: a valid call can be %d bytes, over the payload limit of %d", s.Name, n, tool.MaxArguments)
		}
	}
}
