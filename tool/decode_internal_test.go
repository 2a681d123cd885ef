package tool

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/baton-dev/baton/audit"
)

// marshalledCases are values as tools return them, and the corners of
// JSON that json.Marshal can write: escapes, HTML characters, U+2028,
// invalid UTF-8 (written as U+FFFD), numbers at the edges of float64 and
// int64, empty and nested containers.
func marshalledCases() []any {
	type item struct {
		ID       string         `json:"id"`
		Labels   []string       `json:"labels"`
		Estimate *float64       `json:"estimate,omitempty"`
		Meta     map[string]any `json:"meta,omitempty"`
		Count    int64          `json:"count"`
		OK       bool           `json:"ok"`
	}
	half := 0.5
	return []any{
		nil, true, 0, -1, int64(math.MaxInt64), int64(math.MinInt64), uint64(math.MaxUint64),
		0.1, 1e21, 1e-7, math.MaxFloat64, math.SmallestNonzeroFloat64, -0.0,
		"", "plain", "quote \" backslash \\ slash /", "<b>&amp;</b>", "line\nbreak\ttab\r\x00\x1f",
		"\u2028\u2029", "é日本語🎉", "bad \xff\xfe utf-8", "\xed\xa0\x80 surrogate bytes", strings.Repeat("long ", 2000),
		[]string{}, map[string]any{}, []any{nil, 1, "a", []any{}, map[string]any{"": ""}},
		map[string]any{"b": 1, "a": []int{3, 2, 1}, "\u00e9": "key", "<k>": map[string]any{"n": json.Number("12.50")}},
		item{ID: "ALP-1", Labels: []string{"x", "y"}, Estimate: &half, Meta: map[string]any{"k": 1.25}, Count: 3, OK: true},
		[]item{{ID: "a"}, {ID: "b", Labels: []string{}}},
		json.RawMessage(`{"raw" : [1, 2.50, "x"]}`),
	}
}

// TestDecodeMarshalledMatchesAuditDecode: for what json.Marshal writes,
// decodeMarshalled gives the value audit.Decode gives, numbers as
// json.Number with their text, so schema checks and digests see the same.
func TestDecodeMarshalledMatchesAuditDecode(t *testing.T) {
	for i, v := range marshalledCases() {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		checkDecodeMarshalled(t, raw)
	}
	// And what follows the value: whitespace passes, anything else fails.
	if _, err := decodeMarshalled([]byte("{\"a\":1} \n")); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
	for _, bad := range []string{`{"a":1}x`, `{"a":1} {}`, `{"a":`, ``} {
		if _, err := decodeMarshalled([]byte(bad)); err == nil {
			t.Errorf("decodeMarshalled(%q) succeeded, want an error as audit.Decode gives", bad)
		}
	}
}

func checkDecodeMarshalled(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := audit.Decode(raw)
	got, gerr := decodeMarshalled(raw)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%.80q: audit.Decode error %v, decodeMarshalled error %v", raw, werr, gerr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.80q: decodeMarshalled = %#v, audit.Decode = %#v", raw, got, want)
	}
	if werr == nil {
		wd, _ := audit.DigestValue(want)
		gd, _ := audit.DigestValue(got)
		if wd != gd {
			t.Fatalf("%.80q: digests differ: %s, %s", raw, gd, wd)
		}
	}
}

// FuzzDecodeMarshalled holds decodeMarshalled to audit.Decode over
// arbitrary strings and numbers, marshalled as a tool's output would be.
func FuzzDecodeMarshalled(f *testing.F) {
	f.Add("plain", 1.5, int64(3))
	f.Add("<\u2028\xff\"\\>", -1e300, int64(-9007199254740993))
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		v := map[string]any{"s": s, s: []any{x, n, s}, "n": json.Number("0")}
		raw, err := json.Marshal(v)
		if err != nil {
			return // NaN and infinities are no JSON
		}
		checkDecodeMarshalled(t, raw)
	})
}

// BenchmarkDecodeOutput decodes a list_agents-sized output (64 agents)
// both ways: `go test -run '^$' -bench DecodeOutput ./tool/`.
func BenchmarkDecodeOutput(b *testing.B) {
	type agent struct {
		AgentID, Status, CurrentTask, SessionID, ConnectedAt, LastSeen string
		Progress                                                       int
		Connected                                                      bool
	}
	var agents []agent
	for i := range 64 {
		agents = append(agents, agent{AgentID: "agent-" + strings.Repeat("x", i%7), Status: "working", CurrentTask: "ALP-12",
			SessionID: "0123456789abcdef", ConnectedAt: "2026-12-07T23:00:00.000Z", LastSeen: "2026-12-07T23:01:00.000Z", Progress: i, Connected: true})
	}
	raw, err := json.Marshal(map[string]any{"agents": agents, "count": len(agents)})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("audit.Decode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := audit.Decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeMarshalled", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := decodeMarshalled(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
