package beads_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/beads"
)

// catalogue is the input of each tool as the Adjutant catalogue states it
// (spec/adjutant-mcp-tool-catalog.md, "Bead Tools"): property -> JSON
// type, required properties, and the enums it names.
var catalogue = []struct {
	tool     tool.Tool
	name     string
	readOnly bool
	props    map[string]string
	required []string
	enums    map[string][]string
}{
	{beads.CreateBead, "create_bead", false,
		map[string]string{"title": "string", "description": "string", "type": "string", "priority": "number", "id": "string"},
		[]string{"title", "description", "type", "priority"},
		map[string][]string{"type": {"epic", "task", "bug"}}},
	{beads.UpdateBead, "update_bead", false,
		map[string]string{"id": "string", "status": "string", "title": "string", "description": "string", "assignee": "string", "priority": "number"},
		[]string{"id"},
		map[string][]string{"status": {"open", "in_progress", "closed"}}},
	{beads.CloseBead, "close_bead", false,
		map[string]string{"id": "string", "reason": "string"},
		[]string{"id"}, nil},
	{beads.ListBeads, "list_beads", true,
		map[string]string{"status": "string", "assignee": "string", "type": "string"},
		nil,
		map[string][]string{"status": {"open", "in_progress", "closed", "all"}, "type": {"epic", "task", "bug"}}},
	{beads.ShowBead, "show_bead", true,
		map[string]string{"id": "string"},
		[]string{"id"}, nil},
}

func TestSchemasMatchCatalogue(t *testing.T) {
	for _, c := range catalogue {
		t.Run(c.name, func(t *testing.T) {
			s := c.tool.Spec()
			if s.Name != c.name || s.Toolset != "beads" {
				t.Errorf("name/toolset = %s/%s", s.Name, s.Toolset)
			}
			if !slices.Equal(s.Profiles, tool.Profiles) {
				t.Errorf("profiles = %v", s.Profiles)
			}
			if s.Annotations.ReadOnly != c.readOnly {
				t.Errorf("read-only = %v, want %v", s.Annotations.ReadOnly, c.readOnly)
			}
			if !s.PlainText {
				t.Errorf("no plain-text rendering")
			}
			if !strings.HasSuffix(s.Description, ".") {
				t.Errorf("description %q does not end with a period", s.Description)
			}
			in := s.InputSchema()
			var names []string
			for n, p := range in.Properties {
				names = append(names, n)
				if want, ok := c.props[n]; !ok || p.Type != want {
					t.Errorf("property %s: type %s, catalogue %q", n, p.Type, want)
				}
				var enum []string
				for _, e := range p.Enum {
					enum = append(enum, fmt.Sprint(e))
				}
				if !slices.Equal(enum, c.enums[n]) {
					t.Errorf("property %s: enum %v, catalogue %v", n, enum, c.enums[n])
				}
			}
			if len(names) != len(c.props) {
				t.Errorf("properties = %v, catalogue %v", names, c.props)
			}
			if !slices.Equal(in.Required, c.required) {
				t.Errorf("required = %v, catalogue %v", in.Required, c.required)
			}
		})
	}
}

// walk visits every schema object under v, with its JSON path.
func walk(path string, v any, visit func(path string, s map[string]any)) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	visit(path, s)
	if props, ok := s["properties"].(map[string]any); ok {
		for k, p := range props {
			walk(path+".properties."+k, p, visit)
		}
	}
	walk(path+".items", s["items"], visit)
	if alts, ok := s["anyOf"].([]any); ok {
		for i, a := range alts {
			walk(fmt.Sprintf("%s.anyOf[%d]", path, i), a, visit)
		}
	}
}

// TestSchemasKeepTheRules repeats, for these tools, what tools_test checks
// of every registered tool, so they hold before the tools are registered:
// known keywords only, every property described, no bare boolean schemas.
func TestSchemasKeepTheRules(t *testing.T) {
	known := []string{"type", "description", "properties", "required", "additionalProperties", "items", "enum",
		"minimum", "maximum", "minLength", "maxLength", "pattern", "format", "default", "minItems", "maxItems", "anyOf"}
	for _, c := range catalogue {
		for kind, schema := range map[string]any{"input": c.tool.Spec().InputSchema(), "output": c.tool.Spec().OutputSchema()} {
			b, err := json.Marshal(schema)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			walk(c.name+"."+kind, v, func(path string, s map[string]any) {
				for k := range s {
					if !slices.Contains(known, k) {
						t.Errorf("%s uses keyword %q", path, k)
					}
				}
				if props, ok := s["properties"].(map[string]any); ok {
					for k, p := range props {
						ps, isObj := p.(map[string]any)
						if !isObj {
							t.Errorf("%s.properties.%s is a bare schema", path, k)
							continue
						}
						if ps["description"] == nil {
							t.Errorf("%s.properties.%s has no description", path, k)
						}
					}
				}
			})
		}
	}
}
