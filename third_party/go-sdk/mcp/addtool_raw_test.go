// Copyright 2026 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestAddToolRawSchemas: a tool whose schemas are JSON already is checked
// as before (input of type object, output valid JSON, x-mcp-header
// annotations well formed), and its parameter headers are read once, when
// it is added, and then required of every call.
func TestAddToolRawSchemas(t *testing.T) {
	noop := func(context.Context, *CallToolRequest) (*CallToolResult, error) { return &CallToolResult{}, nil }
	for _, tc := range []struct {
		name      string
		in, out   json.RawMessage
		wantPanic string
	}{
		{"input not an object", json.RawMessage(`{"type":"string"}`), nil, `must have type "object"`},
		{"input without a type", json.RawMessage(`{"properties":{}}`), nil, `must have type "object"`},
		{"input not JSON", json.RawMessage(`{"type":`), nil, "can't marshal input schema"},
		{"output not JSON", json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"type":}`), "can't marshal output schema"},
		{"header on an object", json.RawMessage(`{"type":"object","properties":{"r":{"type":"object","x-mcp-header":"R"}}}`), nil, "primitive types"},
		{"fine", json.RawMessage(`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`), json.RawMessage(`{"type":"object"}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				switch {
				case tc.wantPanic == "" && r != nil:
					t.Fatalf("AddTool panicked: %v", r)
				case tc.wantPanic != "" && (r == nil || !strings.Contains(fmtAny(r), tc.wantPanic)):
					t.Fatalf("AddTool: panic %v, want one containing %q", r, tc.wantPanic)
				}
			}()
			tool := &Tool{Name: "t", InputSchema: tc.in}
			if tc.out != nil {
				tool.OutputSchema = tc.out
			}
			NewServer(testImpl, nil).AddTool(tool, noop)
		})
	}

	s := NewServer(testImpl, nil)
	s.AddTool(&Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`)}, noop)
	st, ok := s.getServerTool("t")
	if !ok || len(st.paramHeaders) != 1 || st.paramHeaders[0].Header != "Region" {
		t.Fatalf("bindings read at AddTool: %+v", st)
	}
	call := &jsonrpc.Request{Method: "tools/call", Params: json.RawMessage(`{"name":"t","arguments":{"r":"eu"}}`)}
	header := http.Header{}
	header.Set(protocolVersionHeader, minVersionForStandardHeaders)
	header.Set(methodHeader, "tools/call")
	header.Set(nameHeader, "t")
	if err := validateMcpHeaders(header, call, s.getServerTool); err == nil {
		t.Error("a call without its Mcp-Param-Region header was accepted")
	}
	header.Set(paramHeaderPrefix+"Region", "eu")
	if err := validateMcpHeaders(header, call, s.getServerTool); err != nil {
		t.Errorf("a call with its parameter header: %v", err)
	}
}

func fmtAny(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	s, _ := v.(string)
	return s
}
