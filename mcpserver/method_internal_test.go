package mcpserver

import "testing"

// FuzzHasMethod holds hasMethod's shortcut (a body with neither the
// method's bytes nor a backslash is not decoded) to decoding every body:
// an escaped method name ("subscriptions\/listen", "\u0073...") is still
// found, so a listen request cannot dodge the stream cap by escaping it.
// go test -fuzz FuzzHasMethod ./mcpserver explores further.
func FuzzHasMethod(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions\/listen","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"\u0073ubscriptions/listen"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call"},{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"subscriptions/listen"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message","arguments":{"body":"a\nb"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"method":"initialize"`, `not json`, ``,
	} {
		f.Add([]byte(s), "subscriptions/listen")
		f.Add([]byte(s), "initialize")
	}
	f.Fuzz(func(t *testing.T, body []byte, method string) {
		if got, want := hasMethod(body, method), decodedHasMethod(body, method); got != want {
			t.Fatalf("hasMethod(%q, %q) = %v, decoding says %v", body, method, got, want)
		}
	})
}

// BenchmarkHasMethod: the check every sessionless POST makes, on a tool
// call's body.
func BenchmarkHasMethod(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"_meta":{"protocolVersion":"2026-07-28",` +
		`"clientCapabilities":{},"clientInfo":{"name":"bench","version":"1"}},"name":"add_finding","arguments":` +
		`{"issue_id":"B-12","category":"test_result","summary":"all tests pass","details":"go test ./... passed in 41 s"}}}`)
	for _, fn := range []struct {
		name string
		f    func([]byte, string) bool
	}{{"decoded", decodedHasMethod}, {"hasMethod", hasMethod}} {
		b.Run(fn.name, func(b *testing.B) {
			for b.Loop() {
				if fn.f(body, "subscriptions/listen") {
					b.Fatal("a tool call is not a listen request")
				}
			}
		})
	}
}
