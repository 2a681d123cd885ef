package audit_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton/audit"
	"github.com/gowebpki/jcs"
)

// roundTrip is the rule the action log hashed by before it moved to
// RFC 8785: marshal, decode with UseNumber, encode without HTML escaping.
// The legacy hashes that re-chaining checks old logs with must give it.
func roundTrip(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

type shapeStruct struct {
	Z       string            `json:"z"`
	A       int64             `json:"a"`
	F       float64           `json:"f"`
	Omitted string            `json:"omitted,omitempty"`
	Nested  *shapeStruct      `json:"nested,omitempty"`
	List    []string          `json:"list"`
	Map     map[string]int    `json:"map"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Any     any               `json:"any"`
	When    time.Time         `json:"when"`
	Labels  map[string]string `json:"labels,omitempty"`
}

type marshaler struct{}

func (marshaler) MarshalJSON() ([]byte, error) {
	return []byte(` { "b" : 2, "a" : [ 1 , "<x>" ] } `), nil
}

// canonicalShapes are values of every kind a tool's input or output holds,
// and the awkward corners of JSON strings and numbers.
func canonicalShapes() []any {
	strs := []string{
		"", "plain", "<script>&amp;</script>", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff",
		"\x00\x01\x1f\x7f", "é ü 日本語 🎉", "line\u2028para\u2029end", "bad utf8 \xff\xfe here", "\xc3", "\ufffd",
		"emoji 👩‍💻 zwj", strings.Repeat("long ", 500),
	}
	var out []any
	for _, s := range strs {
		out = append(out, s, map[string]any{s: s}, []any{s, s})
	}
	nums := []any{0, -0.0, 1, -1, 42, int64(math.MaxInt64), int64(math.MinInt64), uint64(math.MaxUint64), 1.5, -2.25,
		1e21, 1e-7, 123456789.123456789, math.SmallestNonzeroFloat64, math.MaxFloat64, float32(0.1), json.Number("1e5"),
		json.Number("-0"), json.Number("12345678901234567890123456789"), json.Number("1.0E+2"), json.Number("")}
	out = append(out, nums...)
	out = append(out,
		nil, true, false, []any{}, map[string]any{}, []string(nil), map[string]any(nil), []int{1, 2, 3},
		map[string]any{"b": 1, "a": 2, "B": 3, "_": 4, "aa": 5, "": 6, "é": 7, "Z": 8},
		map[string]any{"nested": map[string]any{"deeper": []any{map[string]any{"x": nil, "w": []any{}}}}},
		shapeStruct{Z: "<z>", A: 7, F: 0.1, List: nil, Map: map[string]int{"k": 1, "a": 2}, Raw: json.RawMessage(` {"r" : [1, 2.50]} `),
			Any: map[string]any{"q": "\u2028"}, When: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
		&shapeStruct{Nested: &shapeStruct{Z: "inner", Labels: map[string]string{"x": "y"}}, List: []string{}},
		marshaler{}, []any{marshaler{}, json.RawMessage(`"<&>"`)},
		json.RawMessage(`{"task_id":"COL-1","n":1.10,"s":"\u003c\u0026\u003e"}`),
		map[string]any{"task_id": "COL-42", "status": "backlog", "sequence": 42, "created_at": "2026-01-02T03:04:05.006Z"},
		[]byte("bytes are base64"), [2]bool{true, false}, map[int]string{2: "b", 10: "a"},
	)
	return out
}

// reference is RFC 8785's bytes for v by the maintained implementation
// (github.com/gowebpki/jcs, after the RFC's author's Go code), from what
// json.Marshal writes.
func reference(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(raw)
}

// TestCanonicalIsJCS: Canonical, Digest, DigestJSON and DigestValue give
// the reference implementation's RFC 8785 bytes for every shape a tool's
// input or output takes, and for the awkward corners of strings and
// numbers.
func TestCanonicalIsJCS(t *testing.T) {
	for i, v := range canonicalShapes() {
		want, werr := reference(v)
		got, gerr := audit.Canonical(v)
		if werr != nil {
			if gerr == nil {
				t.Errorf("shape %d (%#v): canonical %s, but the reference refuses it: %v", i, v, got, werr)
			}
			continue
		}
		if gerr != nil || !bytes.Equal(got, want) {
			t.Errorf("shape %d (%#v):\n got %s (%v)\nwant %s", i, v, got, gerr, want)
			continue
		}
		wantDigest := audit.Sum(want)
		if d, err := audit.Digest(v); err != nil || d != wantDigest {
			t.Errorf("shape %d: Digest %s, %v; want %s", i, d, err, wantDigest)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := audit.DigestJSON(raw); err != nil || d != wantDigest {
			t.Errorf("shape %d: DigestJSON %s, %v; want %s", i, d, err, wantDigest)
		}
		dec, err := audit.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := audit.DigestValue(dec); err != nil || d != wantDigest {
			t.Errorf("shape %d: DigestValue of the decoded value %s, %v; want %s", i, d, err, wantDigest)
		}
		if d, err := audit.DigestValue(v); err != nil || d != wantDigest {
			t.Errorf("shape %d: DigestValue %s, %v; want %s", i, d, err, wantDigest)
		}
	}
}

// TestCanonicalRFC8785Examples: the RFC's own examples, written out by
// hand: number forms (3.2.2.3) and member order by UTF-16 code units,
// where an emoji (a surrogate pair, D83D DE00) sorts before U+FB33 though
// its code point is larger (3.2.3).
func TestCanonicalRFC8785Examples(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		{`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
		{`[-0, 1e21, 1e-7, 123e-2, 9007199254740993, 1.7976931348623157e308, 5e-324]`,
			`[0,1e+21,1e-7,1.23,9007199254740992,1.7976931348623157e+308,5e-324]`},
		{`"line\u2028para\u2029<&>"`, "\"line\u2028para\u2029<&>\""},
	} {
		dec, err := audit.Decode([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := audit.Canonical(dec)
		if err != nil || string(got) != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.in, got, err, c.want)
		}
	}
}

// TestCanonicalErrors: what cannot be marshalled, or has no IEEE 754
// value, fails; Decode refuses what is not one JSON value.
func TestCanonicalErrors(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), make(chan int), json.Number("abc"), json.Number("1e400"),
		map[string]any{"f": func() {}}} {
		if _, err := audit.Canonical(v); err == nil {
			t.Errorf("Canonical(%#v) succeeded", v)
		}
		if _, err := audit.DigestValue(v); err == nil {
			t.Errorf("DigestValue(%#v) succeeded", v)
		}
	}
	for _, raw := range []string{"", "{", `{"a":1} x`, `1 2`, `"unterminated`, `{"a":}`} {
		if _, err := audit.DigestJSON([]byte(raw)); err == nil {
			t.Errorf("DigestJSON(%q) succeeded", raw)
		}
	}
	for _, raw := range []string{`{"a":1}`, " {\"a\":1} \n\t", `null`, ` "s" `} {
		if _, err := audit.DigestJSON([]byte(raw)); err != nil {
			t.Errorf("DigestJSON(%q): %v", raw, err)
		}
	}
}

// FuzzCanonical holds the writer to the reference implementation for
// arbitrary JSON (go test -fuzz FuzzCanonical ./audit explores further;
// the seeds run with every go test). Where the reference accepts a
// document, Canonical of its decoded value gives the same bytes. Escaped
// lone surrogates are left out: Go's decoder has already turned them into
// U+FFFD, which JCS (I-JSON) forbids anyway.
func FuzzCanonical(f *testing.F) {
	for _, v := range canonicalShapes() {
		if raw, err := json.Marshal(v); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"a":"\u2028\u0000","c":[1e300, -1.5e-300]}`))
	f.Add([]byte(`[1.0000000000000000000000001, -0.0e-0, 9007199254740993]`))
	f.Add([]byte(`{"\ud83d\ude00":1,"\ufb33":2,"\u20ac":3}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !utf8.Valid(raw) || bytes.Contains(bytes.ToLower(raw), []byte(`\ud`)) {
			return
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		want, err := jcs.Transform(raw)
		if err != nil {
			return // duplicate names, numbers beyond IEEE 754: not I-JSON
		}
		dec, err := audit.Decode(raw)
		if err != nil {
			t.Fatalf("Decode refused %q, which json.Unmarshal reads: %v", raw, err)
		}
		got, err := audit.Canonical(dec)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s (%v)\nwant %s", raw, got, err, want)
		}
		if d, err := audit.DigestJSON(raw); err != nil || d != audit.Sum(want) {
			t.Fatalf("%q: DigestJSON %s, %v; want %s", raw, d, err, audit.Sum(want))
		}
	})
}
