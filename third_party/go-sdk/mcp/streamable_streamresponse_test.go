// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// streamResponseServer serves two tools through a handler with
// JSONResponse and a StreamResponse that streams calls of "wait": "quick"
// reports progress and answers, "wait" reports progress and answers once
// release is closed. Both report progress on the request's context, so the
// notification relates to the call. Each call of closeStream is asked to
// close its SSE stream (RequestExtra.CloseSSEStream) before answering.
type streamResponseServer struct {
	url     string
	store   *MemoryEventStore
	release chan struct{}

	mu        sync.Mutex
	consulted []string // the methods StreamResponse was asked about
}

func newStreamResponseServer(t *testing.T, jsonResponse bool) *streamResponseServer {
	t.Helper()
	s := &streamResponseServer{store: NewMemoryEventStore(nil), release: make(chan struct{})}
	server := NewServer(testImpl, nil)
	progress := func(ctx context.Context, req *CallToolRequest, msg string) {
		if err := req.Session.NotifyProgress(ctx, &ProgressNotificationParams{
			ProgressToken: req.Params.GetProgressToken(), Message: msg, Progress: 1}); err != nil {
			t.Errorf("NotifyProgress(%q): %v", msg, err)
		}
	}
	text := func(s string) *CallToolResult { return &CallToolResult{Content: []Content{&TextContent{Text: s}}} }
	object := &jsonschema.Schema{Type: "object"}
	server.AddTool(&Tool{Name: "quick", InputSchema: object}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		progress(ctx, req, "quick working")
		return text("quick done"), nil
	})
	server.AddTool(&Tool{Name: "wait", InputSchema: object}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		progress(ctx, req, "wait working")
		select {
		case <-s.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return text("wait done"), nil
	})
	server.AddTool(&Tool{Name: "closeStream", InputSchema: object}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		req.Extra.CloseSSEStream(CloseSSEStreamArgs{RetryAfter: time.Millisecond})
		return text("closeStream done"), nil
	})
	handler := NewStreamableHTTPHandler(func(*http.Request) *Server { return server }, &StreamableHTTPOptions{
		JSONResponse: jsonResponse,
		EventStore:   s.store,
		StreamResponse: func(req *jsonrpc.Request) bool {
			s.mu.Lock()
			s.consulted = append(s.consulted, req.Method)
			s.mu.Unlock()
			var params CallToolParamsRaw
			return req.Method == methodCallTool && json.Unmarshal(req.Params, &params) == nil && params.Name == "wait"
		},
	})
	hs := httptest.NewServer(mustNotPanic(t, handler))
	t.Cleanup(hs.Close)
	s.url = hs.URL
	return s
}

// do sends an HTTP request of the session sid (none if empty); for a POST,
// body is the JSON-RPC message.
func (s *streamResponseServer) do(t *testing.T, ctx context.Context, method, sid, body string, header map[string]string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set(sessionIDHeader, sid)
		req.Header.Set(protocolVersionHeader, protocolVersion20251125)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// initialize opens a session speaking 2025-11-25, whose SSE streams start
// with a priming event, and returns its ID.
func (s *streamResponseServer) initialize(t *testing.T, ctx context.Context) string {
	t.Helper()
	resp := s.do(t, ctx, http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	// Read the answer, so that the session is initialized before it is told so.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get(sessionIDHeader)
	if err != nil || resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(string(body), `"protocolVersion"`) {
		t.Fatalf("initialize: %d %v, session %q, body %s", resp.StatusCode, err, sid, body)
	}
	resp = s.do(t, ctx, http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return sid
}

// sseEvents sends the SSE events of resp's body to the returned channel,
// which is closed when the body ends.
func sseEvents(t *testing.T, resp *http.Response) <-chan Event {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("want an event stream, got %d %q", resp.StatusCode, ct)
	}
	ch := make(chan Event, 10)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		for e, err := range scanEventsLimited(resp.Body, 1<<20) {
			if err != nil {
				return
			}
			ch <- e
		}
	}()
	return ch
}

// nextMessage returns the next "message" event of ch (skipping priming events)
// and its message.
func nextMessage(t *testing.T, ctx context.Context, ch <-chan Event, what string) (Event, jsonrpc.Message) {
	t.Helper()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the stream ended", what)
			}
			if e.Name != "message" {
				continue
			}
			msg, err := jsonrpc.DecodeMessage(e.Data)
			if err != nil {
				t.Fatalf("%s: %v in %s", what, err, e.Data)
			}
			return e, msg
		case <-ctx.Done():
			t.Fatalf("%s: no event", what)
		}
	}
}

// wantProgress fails unless msg is a progress notification saying text.
func wantProgress(t *testing.T, msg jsonrpc.Message, text string) {
	t.Helper()
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != notificationProgress || !strings.Contains(string(req.Params), fmt.Sprintf("%q", text)) {
		t.Fatalf("got %+v, want a progress notification %q", msg, text)
	}
}

// wantResult fails unless msg is the response to id whose text is text.
func wantResult(t *testing.T, msg jsonrpc.Message, id int64, text string) {
	t.Helper()
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.ID.Raw() != id || resp.Error != nil || !strings.Contains(string(resp.Result), fmt.Sprintf("%q", text)) {
		t.Fatalf("got %+v, want the response %d saying %q", msg, id, text)
	}
}

func callBody(id int64, tool, progressToken string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"progressToken":%q}}}`,
		id, tool, progressToken)
}

// TestStreamResponse checks StreamableHTTPOptions.StreamResponse on one
// session with JSONResponse: a call it does not pick is answered as
// application/json holding the response alone, its progress notification
// going to the standalone SSE stream, and leaves nothing in the event
// store; a call it picks is answered as text/event-stream carrying its own
// notification, and stays resumable: after its connection drops, a GET with
// Last-Event-ID gets the response.
func TestStreamResponse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newStreamResponseServer(t, true)
	sid := s.initialize(t, ctx)
	standalone := sseEvents(t, s.do(t, ctx, http.MethodGet, sid, "", nil))

	// A plain call: application/json.
	resp := s.do(t, ctx, http.MethodPost, sid, callBody(2, "quick", "q"), nil)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/json" {
		t.Fatalf("quick: %d %q, want 200 application/json; body %s", resp.StatusCode, ct, body)
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		t.Fatalf("quick: %v in %s", err, body)
	}
	wantResult(t, msg, 2, "quick done")
	e, msg := nextMessage(t, ctx, standalone, "quick's progress on the standalone stream")
	wantProgress(t, msg, "quick working")
	if e.ID == "" {
		t.Error("the standalone stream's event has no ID")
	}

	// A call StreamResponse picks: text/event-stream, notification included.
	waitCtx, drop := context.WithCancel(ctx)
	defer drop()
	stream := sseEvents(t, s.do(t, waitCtx, http.MethodPost, sid, callBody(3, "wait", "w"), nil))
	e, msg = nextMessage(t, ctx, stream, "wait's progress on its stream")
	wantProgress(t, msg, "wait working")
	streamID, _, ok := parseEventID(e.ID)
	if !ok || streamID == "" {
		t.Fatalf("wait's progress has event ID %q, want one of its stream", e.ID)
	}
	// The connection drops before the answer; the answer comes meanwhile.
	drop()
	for range stream {
	}
	close(s.release)
	resumed := sseEvents(t, s.do(t, ctx, http.MethodGet, sid, "", map[string]string{lastEventIDHeader: e.ID}))
	_, msg = nextMessage(t, ctx, resumed, "wait's response after resuming")
	wantResult(t, msg, 3, "wait done")

	// Nothing of the streamed call went to the standalone stream, which it
	// would have reached before the response did.
	select {
	case e := <-standalone:
		t.Errorf("unexpected event on the standalone stream: %s", e.Data)
	default:
	}
	// The event store keeps the SSE streams only: the standalone one and the
	// streamed call's, not the call answered as application/json.
	s.store.mu.Lock()
	stored := slices.Sorted(func(yield func(string) bool) {
		for id := range s.store.store[sid] {
			if !yield(id) {
				return
			}
		}
	})
	s.store.mu.Unlock()
	if want := []string{"", streamID}; !slices.Equal(stored, want) {
		t.Errorf("event store holds streams %q, want %q", stored, want)
	}
	// StreamResponse is asked about requests, not notifications.
	s.mu.Lock()
	consulted := slices.Clone(s.consulted)
	s.mu.Unlock()
	if want := []string{methodInitialize, methodCallTool, methodCallTool}; !slices.Equal(consulted, want) {
		t.Errorf("StreamResponse consulted for %q, want %q", consulted, want)
	}
}

// TestStreamResponseWithoutJSONResponse checks that StreamResponse changes
// nothing without JSONResponse: every call is answered as a stream carrying
// its own notifications.
func TestStreamResponseWithoutJSONResponse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newStreamResponseServer(t, false)
	sid := s.initialize(t, ctx)
	stream := sseEvents(t, s.do(t, ctx, http.MethodPost, sid, callBody(2, "quick", "q"), nil))
	_, msg := nextMessage(t, ctx, stream, "quick's progress")
	wantProgress(t, msg, "quick working")
	_, msg = nextMessage(t, ctx, stream, "quick's response")
	wantResult(t, msg, 2, "quick done")
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.consulted) != 0 {
		t.Errorf("StreamResponse consulted for %q without JSONResponse", s.consulted)
	}
}

// TestStreamResponseCloseJSONStream checks that CloseSSEStream leaves a call
// answered as application/json alone: there is no SSE stream to close, and
// closing the POST would lose the response.
func TestStreamResponseCloseJSONStream(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newStreamResponseServer(t, true)
	sid := s.initialize(t, ctx)
	resp := s.do(t, ctx, http.MethodPost, sid, callBody(2, "closeStream", "c"), nil)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if ct := resp.Header.Get("Content-Type"); err != nil || ct != "application/json" {
		t.Fatalf("closeStream: %q %v, body %q", ct, err, body)
	}
	wantResult(t, msg, 2, "closeStream done")
}

// TestStreamResponseClient runs the SDK's client against a server with
// JSONResponse and StreamResponse: both kinds of call succeed on one
// session, and the client gets both calls' progress notifications, the
// plain call's through the standalone stream.
func TestStreamResponseClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newStreamResponseServer(t, true)
	close(s.release)
	progress := make(chan string, 2)
	client := NewClient(testImpl, &ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *ProgressNotificationClientRequest) {
			progress <- req.Params.Message
		},
	})
	var mu sync.Mutex
	contentTypes := map[string]string{} // by tool called
	spy := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		var tool string
		if req.Method == http.MethodPost && req.Body != nil {
			body, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(strings.NewReader(string(body)))
			var call struct {
				Params struct{ Name string } `json:"params"`
			}
			_ = json.Unmarshal(body, &call)
			tool = call.Params.Name
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil && tool != "" {
			mu.Lock()
			contentTypes[tool] = resp.Header.Get("Content-Type")
			mu.Unlock()
		}
		return resp, err
	})
	cs, err := client.Connect(ctx, &StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: spy}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tool := range []string{"quick", "wait"} {
		params := &CallToolParams{Name: tool, Arguments: map[string]any{}}
		params.SetProgressToken(tool)
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		if got, want := res.Content[0].(*TextContent).Text, tool+" done"; got != want {
			t.Errorf("%s: %q, want %q", tool, got, want)
		}
		select {
		case got := <-progress:
			if want := tool + " working"; got != want {
				t.Errorf("%s: progress %q, want %q", tool, got, want)
			}
		case <-ctx.Done():
			t.Fatalf("%s: no progress notification", tool)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := map[string]string{"quick": "application/json", "wait": "text/event-stream"}; fmt.Sprint(contentTypes) != fmt.Sprint(want) {
		t.Errorf("content types %v, want %v", contentTypes, want)
	}
}
