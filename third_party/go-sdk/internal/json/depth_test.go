// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

package json

import (
	"strings"
	"testing"
)

// checkMaxDepthByByte is checkMaxDepth as it was, a byte at a time: the
// reference the faster one is held to.
func checkMaxDepthByByte(data []byte, maxDepth int) error {
	var depth int
	var inString, escaped bool
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return errMaxDepthExceeded
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

var depthCases = []string{
	`[[[1]]]`, `[[[[`, `"[[[["`, `"\"[[[["`, `"\\"[[[[`, `"\\\"[[[["`, `"\\\\"[[`, `{"a\\":"[["}[[[`,
	`"unterminated [[[[`, `"ends in a backslash\`, `]]]][[[[`, `{"k":"v\"}"}[[[`, `""[[[[`, `"\""[[[`,
}

// TestCheckMaxDepthMatchesByByte and FuzzCheckMaxDepth hold checkMaxDepth
// to the byte-at-a-time scan at a limit of 3.
func TestCheckMaxDepthMatchesByByte(t *testing.T) {
	for _, c := range depthCases {
		if got, want := checkMaxDepth([]byte(c), 3), checkMaxDepthByByte([]byte(c), 3); got != want {
			t.Errorf("%q: %v, byte at a time %v", c, got, want)
		}
	}
}

func FuzzCheckMaxDepth(f *testing.F) {
	for _, c := range depthCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := checkMaxDepth(data, 3), checkMaxDepthByByte(data, 3); got != want {
			t.Errorf("%q: %v, byte at a time %v", data, got, want)
		}
	})
}

// BenchmarkCheckMaxDepth: a tool result, mostly strings.
// go test -run '^$' -bench CheckMaxDepth ./internal/json/
func BenchmarkCheckMaxDepth(b *testing.B) {
	item := `{"id":"agent-12","status":"active","note":"a \"quoted\" word and a path C:\\dir"},`
	inner := `{"agents":[` + strings.Repeat(item, 30) + `{}]}`
	data := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` +
		strings.ReplaceAll(strings.ReplaceAll(inner, `\`, `\\`), `"`, `\"`) + `"}],"structuredContent":` + inner + `}}`)
	b.SetBytes(int64(len(data)))
	b.Run("byte at a time", func(b *testing.B) {
		for b.Loop() {
			checkMaxDepthByByte(data, defaultMaxDepth)
		}
	})
	b.Run("checkMaxDepth", func(b *testing.B) {
		for b.Loop() {
			checkMaxDepth(data, defaultMaxDepth)
		}
	})
}
