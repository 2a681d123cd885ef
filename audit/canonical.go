package audit

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Digests cover RFC 8785 canonical JSON (jcs.go). A tool call digests its
// input and output inside the store's write transaction, so the value is
// decoded once (Decode), which the caller also uses for other things (the
// output check, the subject lookup), and written from there.

// Decode reads one JSON value as the digests read a marshalled value:
// objects as map[string]any, arrays as []any, numbers as json.Number (so
// their text reaches the canonical writer), strings with invalid UTF-8
// turned into U+FFFD. Anything after the value other than white space is
// an error, as it is for json.Unmarshal.
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
	b, err := AppendJCS(make([]byte, 0, 256), v)
	if err != nil {
		return "", err
	}
	return Sum(b), nil
}

// appendLegacyString writes s as encoding/json does with HTML escaping
// off: the JSON.stringify escapes plus U+2028 and U+2029. It is the
// string form of the hashes before the action log moved to JCS, kept so
// an old chain can be checked before it is re-hashed (LegacyHash).
func appendLegacyString(b []byte, s string) []byte {
	return appendQuoted(b, s, true)
}
