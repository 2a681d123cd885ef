package tool

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// TokenEstimate names the estimate SchemaTokens makes, for output that
// shows its figures.
const TokenEstimate = "chars/4"

// SchemaChars is the length in characters of the tool as an MCP client
// receives it in tools/list: the JSON of MCPTool (name, description,
// annotations, _meta, input and output schemas).
func SchemaChars(s *Spec) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// The wire carries <, > and & as they are, not as \u003c escapes.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(MCPTool(s)); err != nil {
		// A schema that does not marshal never reaches a client either;
		// registration fails long before this.
		return 0
	}
	return utf8.RuneCount(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// SchemaTokens approximates what the tool's schema costs a model's
// context: its characters over four, rounded up. Real tokenizers differ
// by model; the figure is for comparing profiles and spotting growth.
func SchemaTokens(s *Spec) int { return (SchemaChars(s) + 3) / 4 }

// ScopeTokens is the summed SchemaTokens of the scope's tools among reg's.
func ScopeTokens(reg *Registry, s *Scope) int {
	total := 0
	for _, name := range s.Names(reg) {
		t, _ := reg.Get(name)
		total += SchemaTokens(t.Spec())
	}
	return total
}
