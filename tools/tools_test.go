package tools_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

const snapDir = "testdata/toolsnaps"

// TestToolSnapshots pins what every tool shows a client in tools/list. A
// schema change fails here until the snapshot is updated on purpose:
//
//	UPDATE_TOOLSNAPS=1 go test ./tools/
func TestToolSnapshots(t *testing.T) {
	update := os.Getenv("UPDATE_TOOLSNAPS") != ""
	seen := map[string]bool{}
	for _, tl := range tools.All() {
		name := tl.Spec().Name
		seen[name+".json"] = true
		got, err := json.MarshalIndent(tool.MCPTool(tl.Spec()), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(snapDir, name+".json")
		if update {
			if err := os.MkdirAll(snapDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s has no snapshot (%v); create it with UPDATE_TOOLSNAPS=1 go test ./tools/", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the schema of %s changed; if that is intended, run UPDATE_TOOLSNAPS=1 go test ./tools/ and commit %s.\ngot:\n%s", name, path, got)
		}
	}
	entries, _ := os.ReadDir(snapDir)
	for _, e := range entries {
		if !seen[e.Name()] && !update {
			t.Errorf("snapshot %s belongs to no registered tool; delete it", e.Name())
		}
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
	for _, key := range []string{"items", "additionalProperties"} {
		walk(path+"."+key, s[key], visit)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for i, a := range alts {
			walk(fmt.Sprintf("%s.anyOf[%d]", path, i), a, visit)
		}
	}
}

func schemas(t *testing.T) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, tl := range tools.All() {
		for kind, s := range map[string]any{"input": tl.Spec().InputSchema(), "output": tl.Spec().OutputSchema()} {
			b, _ := json.Marshal(s)
			var v any
			_ = json.Unmarshal(b, &v)
			out[tl.Spec().Name+"."+kind] = v
		}
	}
	return out
}

// TestNoBareBooleanSchemas: the reference TypeScript client rejects a
// property schema that is a bare true or false.
func TestNoBareBooleanSchemas(t *testing.T) {
	all := schemas(t)
	// And as tools/list sends them (wireOutput drops descriptions).
	for _, tl := range tools.All() {
		wire := tool.MCPTool(tl.Spec())
		for kind, s := range map[string]any{"wire input": wire.InputSchema, "wire output": wire.OutputSchema} {
			b, _ := json.Marshal(s)
			var v any
			_ = json.Unmarshal(b, &v)
			all[tl.Spec().Name+"."+kind] = v
		}
	}
	for name, s := range all {
		walk(name, s, func(path string, s map[string]any) {
			if props, ok := s["properties"].(map[string]any); ok {
				for k, p := range props {
					if _, isBool := p.(bool); isBool {
						t.Errorf("%s.properties.%s is a bare boolean schema", path, k)
					}
				}
			}
			if _, isBool := s["items"].(bool); isBool {
				t.Errorf("%s.items is a bare boolean schema", path)
			}
			if ap, isBool := s["additionalProperties"].(bool); isBool && ap {
				t.Errorf("%s.additionalProperties is true; omit it instead", path)
			}
		})
	}
}

// TestSchemasUseKnownKeywords keeps schemas within what tool.Validate
// checks, so the CLI and MCP can never disagree about an input.
func TestSchemasUseKnownKeywords(t *testing.T) {
	known := []string{"type", "description", "properties", "required", "additionalProperties", "items", "enum",
		"minimum", "maximum", "minLength", "maxLength", "pattern", "format", "default", "minItems", "maxItems", "anyOf"}
	for name, s := range schemas(t) {
		walk(name, s, func(path string, s map[string]any) {
			for k := range s {
				if !slices.Contains(known, k) {
					t.Errorf("%s uses keyword %q, which the validator does not check", path, k)
				}
			}
		})
	}
}

func TestEveryPropertyDescribed(t *testing.T) {
	for name, s := range schemas(t) {
		walk(name, s, func(path string, s map[string]any) {
			if strings.Contains(path, ".properties.") && !strings.HasSuffix(path, ".items") && s["description"] == nil &&
				!strings.Contains(path[strings.LastIndex(path, ".properties."):], ".items") {
				t.Errorf("%s has no description", path)
			}
		})
	}
}

func TestDefinitionsComplete(t *testing.T) {
	for _, tl := range tools.All() {
		s := tl.Spec()
		if s.Toolset == "" || len(s.Profiles) == 0 || s.Description == "" || !strings.HasSuffix(s.Description, ".") {
			t.Errorf("%s: toolset %q, profiles %v, description %q", s.Name, s.Toolset, s.Profiles, s.Description)
		}
		for _, p := range s.Profiles {
			if !slices.Contains(tool.Profiles, p) {
				t.Errorf("%s: unknown default profile %q", s.Name, p)
			}
		}
	}
}
