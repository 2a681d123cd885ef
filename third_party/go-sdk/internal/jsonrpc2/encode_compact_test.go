// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package jsonrpc2

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	internaljson "github.com/modelcontextprotocol/go-sdk/internal/json"
)

// spaced is a Marshaler whose output is valid but not compact.
type spaced struct{}

func (*spaced) MarshalJSON() ([]byte, error) { return []byte("{ \"a\" :\n[1, 2] }"), nil }

// broken is a Marshaler whose output is no JSON.
type broken struct{}

func (broken) MarshalJSON() ([]byte, error) { return []byte(`{"a":`), nil }

// failing is a Marshaler that fails.
type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("cannot") }

// valueMarshaler has a value receiver, so a nil pointer to it is a
// Marshaler too.
type valueMarshaler struct{ N int }

func (v valueMarshaler) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprint(v.N)), nil }

// TestEncodeMatchesEncodingJSON holds NewResponse, NewCall and
// EncodeMessage, which compact raw JSON through AppendCompact, to what
// encoding/json alone gave (the wire struct and the result marshalled
// whole): the same bytes, and errors where it erred, with its messages.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	var nilSpaced *spaced
	var nilValue *valueMarshaler
	results := []any{
		map[string]any{"a": "b <c>", "n": 1.5}, []int{1, 2}, "text", json.RawMessage("{ \"x\" : 1 }"),
		&spaced{}, nilSpaced, broken{}, failing{}, valueMarshaler{3}, &valueMarshaler{4}, nilValue,
		json.RawMessage(`{"a":`), struct{ S string }{"x\ny"},
	}
	for i, r := range results {
		for _, id := range []ID{Int64ID(7), StringID("s-1"), {}} {
			got, gerr := NewResponse(id, r, nil)
			want, werr := oldNewResponse(id, r)
			if !sameError(gerr, werr) {
				t.Errorf("result %d: NewResponse error %v, encoding/json's %v", i, gerr, werr)
				continue
			}
			if gerr != nil {
				continue
			}
			checkEncode(t, fmt.Sprintf("response %d", i), got, want)
			call, cerr := NewCall(id, "tools/call", r)
			if !sameError(cerr, werr) {
				t.Errorf("params %d: NewCall error %v, encoding/json's %v", i, cerr, werr)
				continue
			}
			checkEncode(t, fmt.Sprintf("call %d", i), call, &Request{ID: id, Method: "tools/call", Params: want.Result})
		}
	}
	// Raw fields set directly, valid or not, and responses carrying an error.
	for i, m := range []Message{
		&Response{ID: Int64ID(1), Result: json.RawMessage("[1,\n 2]")},
		&Response{ID: Int64ID(1), Result: json.RawMessage("[1,")},
		&Response{ID: Int64ID(1), Result: json.RawMessage(`{"a":1}`), Error: errors.New("boom")},
		&Response{ID: Int64ID(1), Error: &WireError{Code: -32602, Message: "bad <params>"}},
		&Request{Method: "notifications/progress", Params: json.RawMessage(" {\"p\":1} ")},
		&Request{ID: StringID("x"), Method: "ping"},
		&Request{Method: "m", Params: json.RawMessage("\"a\x01\"")},
	} {
		checkEncode(t, fmt.Sprintf("message %d", i), m, m)
	}
}

func checkEncode(t *testing.T, what string, got, want Message) {
	t.Helper()
	g, gerr := EncodeMessage(got)
	w, werr := oldEncodeMessage(want)
	if !sameError(gerr, werr) || string(g) != string(w) {
		t.Errorf("%s: EncodeMessage gave %q, %v; encoding/json %q, %v", what, g, gerr, w, werr)
	}
}

func sameError(a, b error) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
}

// oldNewResponse and oldEncodeMessage are NewResponse and EncodeMessage
// as they were, with encoding/json doing all the work.
func oldNewResponse(id ID, result any) (*Response, error) {
	if result == nil {
		return &Response{ID: id}, nil
	}
	data, err := jsonMarshal(result)
	if err != nil {
		return nil, err
	}
	return &Response{ID: id, Result: data}, nil
}

func oldEncodeMessage(msg Message) ([]byte, error) {
	wire := wireCombined{VersionTag: wireVersion}
	msg.marshal(&wire)
	data, err := jsonMarshal(&wire)
	if err != nil {
		return nil, fmt.Errorf("marshaling jsonrpc message: %w", err)
	}
	return data, nil
}

// claimsCompact is a Marshaler recorded as writing compact JSON
// (MarshalsCompact) whose output is not: it shows which layer checks.
type claimsCompact struct{}

func (*claimsCompact) MarshalJSON() ([]byte, error) { return []byte("[1, 2]"), nil }

func init() { internaljson.MarshalsCompact(reflect.TypeFor[*claimsCompact]()) }

// TestCompactMarshalerCheckedOnce: the result of a type recorded by
// MarshalsCompact is taken as its MarshalJSON wrote it when the response
// is made, and compacted when the message is encoded, as every raw field
// is: on the wire it is what encoding/json writes.
func TestCompactMarshalerCheckedOnce(t *testing.T) {
	r, err := NewResponse(Int64ID(1), &claimsCompact{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Result) != "[1, 2]" {
		t.Errorf("NewResponse's result = %q, want the Marshaler's output as it is", r.Result)
	}
	checkEncode(t, "recorded compact", r, &Response{ID: Int64ID(1), Result: json.RawMessage("[1,2]")})
}
