package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// The action log hashes RFC 8785 canonical JSON (JCS), so anyone can
// rebuild its bytes with a JCS library in any language: object members
// sorted by the UTF-16 code units of their names, strings escaped as
// ECMAScript's JSON.stringify escapes them (AppendJSString), numbers in
// ECMAScript's shortest round-trip form, no white space.
//
// AppendJCS writes from a value Decode returned, which a tool call has at
// hand already, instead of parsing the bytes again as jcs.Transform does;
// the tests hold it to jcs.Transform byte for byte (and fuzz it), and the
// numbers are formatted by that library's NumberToJSON.

// AppendJCS appends v's RFC 8785 canonical JSON to b. A value Decode
// returned is written directly; any other value is marshalled and decoded
// first. A number outside IEEE 754 double range is an error: JCS cannot
// represent it.
func AppendJCS(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case json.Number:
		if v == "" {
			v = "0" // as encoding/json writes an empty Number
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("audit: number %.40q has no IEEE 754 double value, so no canonical JSON", string(v))
		}
		return appendJCSNumber(b, f)
	case float64:
		return appendJCSNumber(b, v)
	case string:
		return AppendJSString(b, v), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendJCS(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSString(b, k)
			b = append(b, ':')
			var err error
			if b, err = AppendJCS(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		d, err := Decode(raw)
		if err != nil {
			return nil, err
		}
		return AppendJCS(b, d)
	}
}

// JCS is v's RFC 8785 canonical JSON; see AppendJCS.
func JCS(v any) ([]byte, error) { return AppendJCS(nil, v) }

func appendJCSNumber(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errors.New("audit: NaN and infinities have no canonical JSON")
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		// The common case, integers, written without the library's
		// general path; it gives the same digits ("-0" is "0").
		if f == 0 {
			return append(b, '0'), nil
		}
		return strconv.AppendInt(b, int64(f), 10), nil
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return nil, err
	}
	return append(b, s...), nil
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785
// sorts member names. It differs from byte (code point) order only when
// a character above U+FFFF meets one in U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	for i, j := 0, 0; ; {
		if i == len(a) || j == len(b) {
			return (len(a) - i) - (len(b) - j) // only the signs matter
		}
		if a[i] < 0x80 && b[j] < 0x80 {
			if a[i] != b[j] {
				return int(a[i]) - int(b[j])
			}
			i, j = i+1, j+1
			continue
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if ra != rb {
			return utf16Key(ra) - utf16Key(rb)
		}
		i, j = i+na, j+nb
	}
}

// utf16Key orders two different characters as their UTF-16 code units
// do: a character above U+FFFF by its surrogate pair (high, then low), any
// other by itself. A decoded Go string holds no lone surrogates, so a
// character of the BMP never ties with a high surrogate.
func utf16Key(r rune) int {
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return int(hi)<<16 | int(lo)
	}
	return int(r) << 16
}
