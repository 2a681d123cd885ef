// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	internaljson "github.com/modelcontextprotocol/go-sdk/internal/json"
)

// erringMarshaler is a structuredContent whose MarshalJSON fails.
type erringMarshaler struct{}

func (erringMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

// marshalBoth encodes r as CallToolResult.MarshalJSON does and as
// encoding/json alone does (marshalSlowly).
func marshalBoth(t testing.TB, r *CallToolResult) (fast, slow []byte, fastErr, slowErr error) {
	fast, fastErr = r.MarshalJSON()
	marshalSlowly = true
	defer func() { marshalSlowly = false }()
	slow, slowErr = r.MarshalJSON()
	return fast, slow, fastErr, slowErr
}

func checkSameEncoding(t testing.TB, r *CallToolResult) {
	t.Helper()
	fast, slow, fastErr, slowErr := marshalBoth(t, r)
	if (fastErr == nil) != (slowErr == nil) || (fastErr != nil && fastErr.Error() != slowErr.Error()) {
		t.Fatalf("errors differ: %v, encoding/json: %v", fastErr, slowErr)
	}
	if string(fast) != string(slow) {
		t.Fatalf("encodings differ:\n%s\nencoding/json:\n%s", fast, slow)
	}
	// What MarshalsCompact records of CallToolResult in init.
	if c, err := internaljson.AppendCompact(nil, fast); fastErr == nil && (err != nil || string(c) != string(fast)) {
		t.Fatalf("the encoding is not compact, valid JSON (%v):\n%s", err, fast)
	}
}

// TestCallToolResultMarshalMatchesEncodingJSON holds the assembled
// encoding of a result to encoding/json's, byte for byte and error for
// error, across the cases the fast path takes and those it leaves.
func TestCallToolResultMarshalMatchesEncodingJSON(t *testing.T) {
	for name, r := range map[string]*CallToolResult{
		"empty":                  {},
		"empty content":          {Content: []Content{}},
		"text and raw":           {Content: []Content{&TextContent{Text: `{"a":1,"b":"x y"}`}}, StructuredContent: json.RawMessage(`{"a":1,"b":"x y"}`)},
		"html in text":           {Content: []Content{&TextContent{Text: `<a href="x">&</a>`}}},
		"html in raw":            {StructuredContent: json.RawMessage(`{"h":"<b>&amp;</b>"}`)},
		"separators in raw":      {StructuredContent: json.RawMessage("{\"s\":\"a\u2028b\u2029c\"}")},
		"separators in text":     {Content: []Content{&TextContent{Text: "a\u2028b\u2029c"}}},
		"raw with whitespace":    {StructuredContent: json.RawMessage("{ \"a\" : [1, 2] }\n")},
		"invalid raw":            {StructuredContent: json.RawMessage(`{"a":}`)},
		"invalid utf-8 in raw":   {StructuredContent: json.RawMessage("\"\xff\"")},
		"nil raw":                {StructuredContent: json.RawMessage(nil)},
		"raw scalar":             {StructuredContent: json.RawMessage(`42`)},
		"map structured":         {StructuredContent: map[string]any{"k": "<v>"}},
		"failing structured":     {StructuredContent: erringMarshaler{}},
		"nil content element":    {Content: []Content{nil}},
		"several contents":       {Content: []Content{&TextContent{Text: "one"}, &ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}, &TextContent{Text: ""}}},
		"error result":           {IsError: true, Content: []Content{&TextContent{Text: `{"error":{"code":"X"}}`}}, StructuredContent: json.RawMessage(`{"error":{"code":"X"}}`)},
		"request state":          {RequestState: "s<1>", Content: []Content{&TextContent{Text: "t"}}},
		"meta":                   {Meta: Meta{"content": nil, "k": "v"}, Content: []Content{&TextContent{Text: "t"}}},
		"meta and raw":           {Meta: Meta{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "s", "version": "1"}}, Content: []Content{&TextContent{Text: `{"a":1}`}}, StructuredContent: json.RawMessage(`{"a":1}`)},
		"failing meta":           {Meta: Meta{"f": erringMarshaler{}}, Content: []Content{&TextContent{Text: "t"}}},
		"input requests":         {InputRequests: InputRequestMap{"roots": &ListRootsParams{}}, Content: []Content{&TextContent{Text: "t"}}},
		"annotated text":         {Content: []Content{&TextContent{Text: "t", Annotations: &Annotations{Priority: 0.5}}}},
		"escapes in text":        {Content: []Content{&TextContent{Text: "tab\there \"q\" \\ \x01 é😀"}}},
		"structured nil pointer": {StructuredContent: (*erringPointer)(nil)},
	} {
		t.Run(name, func(t *testing.T) { checkSameEncoding(t, r) })
	}
}

// erringPointer is a Marshaler with a pointer receiver, given nil.
type erringPointer struct{}

func (*erringPointer) MarshalJSON() ([]byte, error) { return []byte(`"called"`), nil }

// FuzzCallToolResultMarshal compares the two encodings for any text, any
// raw structuredContent and any _meta value.
func FuzzCallToolResultMarshal(f *testing.F) {
	f.Add("plain", []byte(`{"a":1}`), false, "")
	f.Add("<&>", []byte(`[1, 2]`), true, "content")
	f.Add("\u2028", []byte("\"\u2029\""), false, `"content":null`)
	f.Add("", []byte(`{"a":"\u003c"}`), true, "<")
	f.Fuzz(func(t *testing.T, text string, raw []byte, isError bool, meta string) {
		r := &CallToolResult{
			Content:           []Content{&TextContent{Text: text}},
			StructuredContent: json.RawMessage(raw),
			IsError:           isError,
		}
		if meta != "" {
			r.Meta = Meta{meta: meta}
		}
		checkSameEncoding(t, r)
	})
}

// BenchmarkCallToolResultMarshal encodes a result of a few kilobytes, its
// output as text and as structuredContent, as a tool returns it.
func BenchmarkCallToolResultMarshal(b *testing.B) {
	out := []byte(`{"messages":[`)
	for i := range 12 {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"id":"M-1234","from":"agent-7","to":"agent-3","body":"The migration of the claims table finished; please re-run the suite.","thread_id":"T-99","created_at":"2026-12-07T19:00:00Z","read":false}`...)
	}
	out = append(out, "]}"...)
	r := &CallToolResult{Content: []Content{&TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}
	for _, slow := range []bool{false, true} {
		name := "assembled"
		if slow {
			name = "encoding-json"
		}
		b.Run(name, func(b *testing.B) {
			marshalSlowly = slow
			defer func() { marshalSlowly = false }()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCallToolResultAssembled shows which results the fast path takes:
// a tool's usual one, and not those encoding/json would write otherwise.
func TestCallToolResultAssembled(t *testing.T) {
	rest := []byte(`{"content":null,"isError":true}`)
	got, ok := spliceResult(rest, nil, []Content{&TextContent{Text: `{"a":1}`}}, json.RawMessage(`{"a":1}`))
	want := `{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1},"isError":true}`
	if !ok || string(got) != want {
		t.Errorf("spliceResult = %s, %v; want %s", got, ok, want)
	}
	for _, structured := range []any{json.RawMessage(`{ }`), json.RawMessage(`"<"`), json.RawMessage(`{`), map[string]any{}, erringMarshaler{}} {
		if got, ok := spliceResult(rest, nil, nil, structured); ok {
			t.Errorf("spliceResult took %#v: %s", structured, got)
		}
	}
	if got, ok := spliceResult(rest, nil, []Content{nil}, nil); ok {
		t.Errorf("spliceResult took a nil content: %s", got)
	}
	// With _meta (the SDK's serverInfo, in 2026-07-28 sessions), the
	// content follows it.
	meta := Meta{"k": "<v>"}
	got, ok = spliceResult([]byte(`{"content":null}`), meta, []Content{&TextContent{Text: "t"}}, nil)
	if want := `{"_meta":{"k":"\u003cv\u003e"},"content":[{"type":"text","text":"t"}]}`; !ok || string(got) != want {
		t.Errorf("spliceResult with _meta = %s, %v; want %s", got, ok, want)
	}
	// A rest that does not begin with the content is not spliced into.
	if got, ok := spliceResult([]byte(`{"_meta":{"content":null},"content":null}`), Meta{"other": 1}, nil, nil); ok {
		t.Errorf("spliceResult took a rest holding _meta: %s", got)
	}
}
