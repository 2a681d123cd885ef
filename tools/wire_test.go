package tools_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// regenerate is what brings wire_gen.go up to date.
const regenerate = "go generate ./tools"

// TestBuildEverySchema builds the schemas of every built-in tool: New
// defers them to their first use, so this is where a definition that
// contradicts itself (a rule for a missing field, a default that breaks
// its own rule, a bad positional argument) panics in every test run.
func TestBuildEverySchema(t *testing.T) {
	for _, tl := range tools.All() {
		s := tl.Spec()
		if in := s.InputSchema(); in == nil || in.Type != "object" {
			t.Errorf("%s: input schema %v", s.Name, in)
		}
		if out := s.OutputSchema(); out == nil || out.Properties["error"] == nil {
			t.Errorf("%s: output schema %v", s.Name, out)
		}
	}
}

// TestWireFresh holds the precomputed schema JSON of every tool (what
// tools/list sends instead of marshalling the schemas) byte-identical to
// what the live schemas marshal to, so that a stale one never reaches a
// client: both as the SDK sends it and as the whole tool marshals.
func TestWireFresh(t *testing.T) {
	var w bytes.Buffer
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false) // as the SDK's JSON-RPC layer
	listed := map[string]bool{}
	for _, tl := range tools.All() {
		s := tl.Spec()
		listed[s.Name] = true
		in, out, err := tool.WireJSON(s)
		if err != nil {
			t.Fatal(err)
		}
		sent := tool.MCPTool(s)
		gotIn, okIn := sent.InputSchema.(json.RawMessage)
		gotOut, okOut := sent.OutputSchema.(json.RawMessage)
		if !okIn || !okOut {
			t.Errorf("%s has no precomputed schema JSON; run %s", s.Name, regenerate)
			continue
		}
		if !bytes.Equal(gotIn, in) || !bytes.Equal(gotOut, out) {
			t.Errorf("the precomputed schema JSON of %s is stale; run %s\ninput now:  %s\noutput now: %s", s.Name, regenerate, in, out)
			continue
		}
		// The whole tool marshals the same with the precomputed input
		// schema as with the live one, both ways: with the SDK's encoder,
		// and with json.Marshal as the snapshots and SchemaChars do. (The
		// output's bytes are WireJSON's, compared above.)
		live := *sent
		live.InputSchema = s.InputSchema()
		for _, v := range []any{sent, &live} {
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
		}
		lines := bytes.Split(bytes.TrimSuffix(w.Bytes(), []byte("\n")), []byte("\n"))
		if len(lines) != 2 || !bytes.Equal(lines[0], lines[1]) {
			t.Errorf("%s: tools/list JSON differs from the live schemas':\n%s", s.Name, w.Bytes())
		}
		w.Reset()
		a, errA := json.Marshal(sent)
		b, errB := json.Marshal(&live)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: json.Marshal differs (%v, %v):\n%s\n%s", s.Name, errA, errB, a, b)
		}
	}
	if n := len(tools.All()); len(listed) != n {
		t.Errorf("%d names for %d tools", len(listed), n)
	}
}
