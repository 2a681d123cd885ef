// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

package json

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"sync"

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
func isCompact(src []byte) bool { return isPlain(src, false) }

// Classes of the bytes isPlain looks at; every other byte is 0, and one
// load and test pass it.
const (
	ctrl      = 1 << iota // below 0x20: '\t', '\n' and '\r' among them
	space                 // ' '
	quote                 // '"'
	backslash             // '\\'
	htmlByte              // '<', '>', '&'
	e2                    // 0xE2: the first byte of U+2028 and U+2029
)

var byteClass = [256]uint8{
	0x00: ctrl, 0x01: ctrl, 0x02: ctrl, 0x03: ctrl, 0x04: ctrl, 0x05: ctrl, 0x06: ctrl, 0x07: ctrl, 0x08: ctrl, 0x09: ctrl, 0x0A: ctrl, 0x0B: ctrl, 0x0C: ctrl, 0x0D: ctrl, 0x0E: ctrl, 0x0F: ctrl, 0x10: ctrl, 0x11: ctrl, 0x12: ctrl, 0x13: ctrl, 0x14: ctrl, 0x15: ctrl, 0x16: ctrl, 0x17: ctrl, 0x18: ctrl, 0x19: ctrl, 0x1A: ctrl, 0x1B: ctrl, 0x1C: ctrl, 0x1D: ctrl, 0x1E: ctrl, 0x1F: ctrl,
	' ': space, '"': quote, '\\': backslash, '<': htmlByte, '>': htmlByte, '&': htmlByte, 0xE2: e2,
}

// isPlain is isCompact, and with html also reports false for the bytes
// and characters encoding/json escapes in a Marshaler's output: '<', '>',
// '&', U+2028 and U+2029.
func isPlain(src []byte, html bool) bool {
	inString := false
	for i := 0; i < len(src); i++ {
		k := byteClass[src[i]]
		if k == 0 {
			continue
		}
		switch k {
		case ctrl:
			return false
		case space:
			if !inString {
				return false
			}
		case quote:
			inString = !inString
		case backslash:
			// The escaped byte is no quote; it must still be no
			// control character.
			if i++; i < len(src) && src[i] < 0x20 {
				return false
			}
		case htmlByte:
			if html {
				return false
			}
		case e2:
			if html && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9) {
				return false
			}
		}
	}
	return true
}

// AppendMarshaled appends src, the output of a [stdjson.Marshaler], as
// [stdjson.Marshal] writes it inside a larger value, when that is src
// itself: compact, valid, and holding nothing Marshal escapes there ('<',
// '>' and '&', U+2028 and U+2029). Otherwise it appends nothing and
// reports false; only encoding/json then knows the bytes, or the error.
//
// A value holding such outputs (a tool result's content and
// structuredContent) can so be assembled around them without
// encoding/json compacting each through its scanner, one state-function
// call per byte.
func AppendMarshaled(dst, src []byte) ([]byte, bool) {
	if !isPlain(src, true) || !json.Valid(src) {
		return dst, false
	}
	return append(dst, src...), true
}

// compactMarshalers holds the types recorded by MarshalsCompact.
var compactMarshalers sync.Map // reflect.Type -> struct{}

// MarshalsCompact records that the MarshalJSON method of t's values, when
// it succeeds, returns one compact, valid JSON value: what
// [stdjson.Marshal] writes, say. AppendCompact would only copy such
// output after checking it, and the JSON-RPC layer checks a result once
// more when it writes the message, so a response's result need not be
// checked when it is made (see [IsCompactMarshaler]).
func MarshalsCompact(t reflect.Type) { compactMarshalers.Store(t, struct{}{}) }

// IsCompactMarshaler reports whether v's type was recorded by
// MarshalsCompact.
func IsCompactMarshaler(v any) bool {
	_, ok := compactMarshalers.Load(reflect.TypeOf(v))
	return ok
}
