package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

func described(name, desc string) tool.Tool {
	return tool.New(tool.Definition[sampleIn, sampleOut]{
		Name: name, Toolset: "test", Description: desc, Profiles: []string{"worker"},
		Input: sampleRules, Output: tool.Rules{"kind": tool.Enum("a", "b")},
		Execute: func(context.Context, *tool.Call, sampleIn) (sampleOut, error) { return sampleOut{}, nil },
	})
}

// TestSchemaTokens: the cost is the characters of the tool as tools/list
// carries it, over four, rounded up; characters, not bytes.
func TestSchemaTokens(t *testing.T) {
	base := described("sample", "A sample tool.").Spec()
	b, _ := json.Marshal(tool.MCPTool(base))
	if got, want := tool.SchemaChars(base), utf8.RuneCount(b); got != want {
		t.Fatalf("SchemaChars = %d, want the length of MCPTool's JSON %d", got, want)
	}
	// cli's TestSchemaTokensMatchTheWire checks every real tool against
	// what tools/list sends.
	for _, key := range []string{`"inputSchema"`, `"outputSchema"`, `"annotations"`, `"description"`, `"baton/toolset"`} {
		if !strings.Contains(string(b), key) {
			t.Fatalf("the measured JSON lacks %s: %s", key, b)
		}
	}
	chars := tool.SchemaChars(base)
	cases := []struct {
		name  string
		extra string // appended to the description
		chars int    // how many more characters the JSON has
	}{
		{"same", "", 0},
		{"one char", "x", 1},
		{"four chars", "xxxx", 4},
		{"five chars", "xxxxx", 5},
		{"accents count as characters", "éééé", 4},
		{"no HTML escaping, as on the wire", "<&>", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := described("sample", "A sample tool."+c.extra).Spec()
			if got := tool.SchemaChars(s); got != chars+c.chars {
				t.Fatalf("SchemaChars = %d, want %d", got, chars+c.chars)
			}
			if got, want := tool.SchemaTokens(s), (chars+c.chars+3)/4; got != want {
				t.Fatalf("SchemaTokens = %d, want ceil(%d/4) = %d", got, chars+c.chars, want)
			}
		})
	}
}

func TestScopeTokens(t *testing.T) {
	a, b := described("a_tool", "First."), described("b_tool", "Second, longer than the first.")
	reg := tool.NewRegistry(a, b)
	all := tool.ComputeScope(reg, baton.Principal{Source: baton.SourceCLI}, tool.ScopeInput{})
	if got, want := tool.ScopeTokens(reg, all), tool.SchemaTokens(a.Spec())+tool.SchemaTokens(b.Spec()); got != want {
		t.Fatalf("ScopeTokens(all) = %d, want %d", got, want)
	}
	one := tool.ComputeScope(reg, baton.Principal{Source: baton.SourceCLI}, tool.ScopeInput{File: []string{"a_tool"}})
	if got, want := tool.ScopeTokens(reg, one), tool.SchemaTokens(a.Spec()); got != want {
		t.Fatalf("ScopeTokens(a_tool) = %d, want %d", got, want)
	}
}
