package audit_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton/audit"
)

// roundTrip is how Canonical wrote values before it wrote them itself:
// marshal, decode with UseNumber, encode without HTML escaping. Every
// digest already stored in an action log was computed this way, so the
// new code must give these bytes exactly.
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

// TestCanonicalMatchesRoundTrip: Canonical, Digest, DigestJSON and
// DigestValue give the old round trip's bytes for every shape.
func TestCanonicalMatchesRoundTrip(t *testing.T) {
	for i, v := range canonicalShapes() {
		want, werr := roundTrip(v)
		got, gerr := audit.Canonical(v)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("shape %d (%#v): error %v, round trip %v", i, v, gerr, werr)
		}
		if werr != nil {
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("shape %d (%#v):\n got %s\nwant %s", i, v, got, want)
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
		// A value that is not a decoded one is marshalled first, as Digest does.
		if d, err := audit.DigestValue(v); err != nil || d != wantDigest {
			t.Errorf("shape %d: DigestValue %s, %v; want %s", i, d, err, wantDigest)
		}
	}
}

// TestCanonicalErrors: what cannot be marshalled fails as it did, and
// Decode refuses what is not one JSON value.
func TestCanonicalErrors(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), make(chan int), json.Number("abc"), map[string]any{"f": func() {}}} {
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

// FuzzCanonical holds the writer to the round trip for arbitrary JSON
// (go test -fuzz FuzzCanonical ./audit explores further; the seeds run
// with every go test).
func FuzzCanonical(f *testing.F) {
	for _, v := range canonicalShapes() {
		if raw, err := json.Marshal(v); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"a":"\ud800","b":"\u2028\u0000","c":[1e400]}`))
	f.Add([]byte(`[1.0000000000000000000000001, -0.0e-0, 9007199254740993]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		// The digested values are what json.Marshal writes; start from
		// there, keeping the input's numbers as they were written.
		dec, err := audit.Decode(raw)
		if err != nil {
			t.Fatalf("Decode refused %q, which json.Unmarshal reads: %v", raw, err)
		}
		want, werr := roundTrip(dec)
		got, gerr := audit.Canonical(dec)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s (%v)\nwant %s (%v)", raw, got, gerr, want, werr)
		}
		if werr != nil {
			return
		}
		marshalled, err := json.Marshal(dec)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := audit.DigestJSON(marshalled); err != nil || d != audit.Sum(want) {
			t.Fatalf("%q: DigestJSON %s, %v; want %s", raw, d, err, audit.Sum(want))
		}
	})
}
