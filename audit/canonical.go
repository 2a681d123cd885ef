package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Canonical JSON used to be written by round-tripping a value through
// encoding/json three times (marshal, decode, encode). A tool call digests
// its input and output inside the store's write transaction, so those
// round trips were paid by every writer waiting behind it. The code here
// writes the same bytes from a value decoded once (Decode), which the
// caller can also use for other things (the output check, the subject
// lookup), and from JSON already marshalled (DigestJSON). The tests hold
// it to the old round trip byte for byte.

// Decode reads one JSON value as Canonical reads a marshalled value:
// objects as map[string]any, arrays as []any, numbers as json.Number (so
// they keep every digit), strings with invalid UTF-8 turned into U+FFFD.
// Anything after the value other than white space is an error, as it is
// for json.Unmarshal.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, errors.New("audit: invalid JSON: data after the value")
	}
	return v, nil
}

// DigestJSON is Digest of the value whose json.Marshal gave raw.
func DigestJSON(raw []byte) (string, error) {
	v, err := Decode(raw)
	if err != nil {
		return "", err
	}
	return DigestValue(v)
}

// DigestValue is Digest of a value Decode returned (or anything else,
// which is marshalled and decoded first, as Digest does).
func DigestValue(v any) (string, error) {
	b, err := AppendCanonical(make([]byte, 0, 256), v)
	if err != nil {
		return "", err
	}
	return Sum(b), nil
}

// AppendCanonical appends v's canonical JSON (see Canonical) to b. A value
// Decode returned is written directly; any other value goes through
// json.Marshal and Decode first, so the bytes are Canonical's whatever v is.
func AppendCanonical(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case json.Number:
		if v == "" || !isNumber(string(v)) {
			// Let encoding/json decide (and word the error) as it did.
			return appendRoundTrip(b, v)
		}
		return append(b, v...), nil
	case string:
		return appendCanonicalString(b, v), nil
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
			if b, err = AppendCanonical(b, e); err != nil {
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
		// encoding/json sorts map keys by their bytes.
		slices.SortFunc(keys, strings.Compare)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonicalString(b, k)
			b = append(b, ':')
			var err error
			if b, err = AppendCanonical(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	default:
		return appendRoundTrip(b, v)
	}
}

// appendRoundTrip writes a value that is not one Decode returns (a
// struct, a float64, a json.RawMessage) as Canonical does: marshalled,
// decoded, then written.
func appendRoundTrip(b []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	return AppendCanonical(b, d)
}

// appendCanonicalString writes s as encoding/json does with HTML escaping
// off: the JSON.stringify escapes (AppendJSString) plus U+2028 and U+2029,
// which encoding/json always escapes. Bytes that are not UTF-8 are written
// as U+FFFD itself, the character the round trip's decode turns them into
// (encoding/json would write the escape \ufffd, which the decode reads back
// as that character).
func appendCanonicalString(b []byte, s string) []byte {
	return appendQuoted(b, s, true)
}

// isNumber reports whether s is a JSON number, the check encoding/json
// makes before writing a json.Number.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
