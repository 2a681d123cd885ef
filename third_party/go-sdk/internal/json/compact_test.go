// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

package json

import (
	"bytes"
	stdjson "encoding/json"
	"strings"
	"testing"
)

var compactCases = []string{
	`{}`, `[]`, `null`, `true`, `0`, `-1.5e+10`, `"a b"`, `"\"quoted\" \\"`,
	`{"a":1,"b":[1,2,{"c":"d e"}],"t":"x\ny"}`,
	`{"a": 1}`, " {\"a\":1}\n", "[1,\n2]", "{\"a\":\"b\"}\t",
	`{"a":"é€😀"}`, "\"\xff\xfe\"", "\"\x01\"", "\"a\\\x01\"", "\"a\\\n\"",
	`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `+1`, `NaN`, `{"a"}`, `{a:1}`, `'a'`,
	`"\u00e9\ud83d\ude00"`, `"\x"`, `"\u12"`, `{"a":1}{"b":2}`, `[1] [2]`, ``, ` `,
	`{"a":"` + strings.Repeat("long ", 2000) + `"}`,
}

// TestAppendCompactMatchesEncodingJSON checks AppendCompact against
// encoding/json's Compact: the same bytes, or an error exactly when it
// errs, with its message.
func TestAppendCompactMatchesEncodingJSON(t *testing.T) {
	for _, c := range compactCases {
		checkCompact(t, []byte(c))
	}
}

func FuzzAppendCompact(f *testing.F) {
	for _, c := range compactCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkCompact(t, src) })
}

func checkCompact(t *testing.T, src []byte) {
	t.Helper()
	var want bytes.Buffer
	werr := stdjson.Compact(&want, src)
	got, err := AppendCompact([]byte("prefix"), src)
	switch {
	case (err == nil) != (werr == nil):
		t.Errorf("%q: error %v, encoding/json's %v", src, err, werr)
	case err != nil && err.Error() != werr.Error():
		t.Errorf("%q: error %q, encoding/json's %q", src, err, werr)
	case err != nil && string(got) != "prefix":
		t.Errorf("%q: failed, yet appended %q", src, got)
	case err == nil && string(got) != "prefix"+want.String():
		t.Errorf("%q: got %q, encoding/json's %q", src, got, "prefix"+want.String())
	}
}

// BenchmarkAppendCompact: go test -run '^$' -bench AppendCompact ./internal/json/
func BenchmarkAppendCompact(b *testing.B) {
	item := `{"id":"agent-12","status":"active","issue":"BAT-123","last_seen":"2026-12-02T05:00:00Z","note":"a \"quoted\" word"},`
	inner := `{"agents":[` + strings.Repeat(item, 15) + `{"id":"x"}]}`
	text, _ := stdjson.Marshal(inner)
	src := []byte(`{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + inner + `}`)
	b.SetBytes(int64(len(src)))
	b.Run("encoding/json", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			stdjson.Compact(&buf, src)
		}
	})
	b.Run("AppendCompact", func(b *testing.B) {
		buf := make([]byte, 0, 2*len(src))
		for b.Loop() {
			buf, _ = AppendCompact(buf[:0], src)
		}
	})
}
