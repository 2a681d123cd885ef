// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

package json

import (
	"bytes"
	stdjson "encoding/json"

	"github.com/segmentio/encoding/json"
)

// AppendCompact appends src, which must be one JSON value, to dst without
// insignificant whitespace: what encoding/json writes for a
// [stdjson.RawMessage] or a [stdjson.Marshaler]'s output, with the same
// errors ([stdjson.Compact]'s).
//
// encoding/json compacts such bytes through its general scanner, one
// state-function call per byte, and a JSON-RPC response passes through it
// twice (once as the result's MarshalJSON output, once as the message's
// raw result): for a tool's result of a few kilobytes, most of the cost of
// encoding a response. JSON that an encoder wrote is compact already, so
// AppendCompact only checks that src is: one pass finds no whitespace
// outside strings and no control character inside them, then the faster
// parser of segmentio/encoding validates it, and src is copied as it is.
// Anything else is left to [stdjson.Compact], so results and errors are
// those of encoding/json (FuzzAppendCompact holds them to it).
func AppendCompact(dst, src []byte) ([]byte, error) {
	if isCompact(src) && json.Valid(src) {
		return append(dst, src...), nil
	}
	var b bytes.Buffer
	if err := stdjson.Compact(&b, src); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}

// isCompact reports whether src has no byte that compacting would remove
// or that a JSON string cannot hold raw: no whitespace outside strings,
// no control character anywhere. It does not validate src.
func isCompact(src []byte) bool {
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c < 0x20:
			return false
		case !inString && c == ' ':
			return false
		case c == '"':
			inString = !inString
		case inString && c == '\\':
			// The escaped byte is no quote; it must still be no
			// control character.
			if i++; i < len(src) && src[i] < 0x20 {
				return false
			}
		}
	}
	return true
}
