package audit

import "unicode/utf8"

// Colibri's catalogue hashes a thought record as SHA-256 over
// JSON.stringify of an object literal, so a Colibri client that checks
// hashes itself rebuilds exactly those bytes in JavaScript. Go's
// encoding/json writes strings differently (it escapes <, > and & unless
// told not to, and always escapes U+2028 and U+2029), so the bytes are
// written here by hand, following ECMA-262's QuoteJSONString:
//
//   - '"' and '\' are escaped with a backslash;
//   - U+0008, U+0009, U+000A, U+000C, U+000D are \b \t \n \f \r;
//   - every other code point below U+0020 is \u00xx with lowercase hex;
//   - a lone UTF-16 surrogate would be \udxxx, but a Go string cannot hold
//     one: the JSON decoder turns "\ud800" into U+FFFD already;
//   - everything else, DEL, U+2028, U+2029 and emoji included, is written
//     as it is (UTF-8, the bytes Node's hash.update(string) sees).
//
// Bytes that are not UTF-8 are written as U+FFFD, which is what every
// client reading the record through baton's JSON output receives.

const lowerHex = "0123456789abcdef"

// AppendJSString appends s as JavaScript's JSON.stringify writes a string.
func AppendJSString(b []byte, s string) []byte { return appendQuoted(b, s, false) }

// appendQuoted writes s as a JSON string with the escapes listed above;
// lineSeps also escapes U+2028 and U+2029 (\u2028, \u2029), as Go's
// encoding/json does, for the action log's canonical JSON.
func appendQuoted(b []byte, s string, lineSeps bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\t':
				b = append(b, '\\', 't')
			case '\n':
				b = append(b, '\\', 'n')
			case '\f':
				b = append(b, '\\', 'f')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
		case lineSeps && (r == '\u2028' || r == '\u2029'):
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', lowerHex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
