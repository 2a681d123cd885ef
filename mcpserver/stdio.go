package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one inbound JSON-RPC line.
const maxLine = 32 << 20

// ServeStdio serves MCP over stdin/stdout as p until the client leaves or
// ctx ends.
func (f *Factory) ServeStdio(ctx context.Context, p baton.Principal) error {
	return f.ServeIO(ctx, p, os.Stdin, os.Stdout)
}

// ServeIO serves newline-delimited JSON-RPC from r to w as p. A line that
// is not JSON, or not a JSON-RPC message, is answered with a JSON-RPC error
// and the session goes on; the SDK's own transport would end it.
//
// When r ends, the session ends only after every request read has been
// answered (or drainTimeout passed), so a client may send its requests and
// close its end at once.
func (f *Factory) ServeIO(ctx context.Context, p baton.Principal, r io.Reader, w io.Writer) error {
	out := &lockedWriter{w: w, pending: map[string]bool{}}
	out.cond = sync.NewCond(&out.mu)
	pr, pw := io.Pipe()
	go func() {
		err := filterLines(r, pw, out)
		out.drain(drainTimeout)
		pw.CloseWithError(err)
	}()
	return f.Server(p).Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}})
}

// drainTimeout bounds how long a closed stdin waits for answers.
const drainTimeout = 30 * time.Second

// lockedWriter serialises writes to the client and tracks which requests
// still await an answer.
type lockedWriter struct {
	mu      sync.Mutex
	cond    *sync.Cond
	w       io.Writer
	pending map[string]bool // ids of requests not yet answered
}

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	var m envelope
	_ = json.Unmarshal(b, &m)
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Method == nil && len(m.ID) > 0 {
		delete(l.pending, string(m.ID))
		l.cond.Broadcast()
	}
	return l.w.Write(b)
}

// expect records a request that needs an answer.
func (l *lockedWriter) expect(line []byte) {
	var m envelope
	if json.Unmarshal(line, &m) != nil || m.Method == nil || len(m.ID) == 0 {
		return
	}
	l.mu.Lock()
	l.pending[string(m.ID)] = true
	l.mu.Unlock()
}

func (l *lockedWriter) drain(timeout time.Duration) {
	timer := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		clear(l.pending)
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer timer.Stop()
	l.mu.Lock()
	for len(l.pending) > 0 {
		l.cond.Wait()
	}
	l.mu.Unlock()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// filterLines copies well-formed JSON-RPC lines from r to pass and answers
// every other line on reply.
func filterLines(r io.Reader, pass io.Writer, reply *lockedWriter) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if errResp := check(line); errResp != nil {
			if _, err := reply.Write(append(errResp, '\n')); err != nil {
				return err
			}
			continue
		}
		reply.expect(line)
		if _, err := pass.Write(append(bytes.Clone(line), '\n')); err != nil {
			return err
		}
	}
	return sc.Err()
}

// check returns a JSON-RPC error response for a line the SDK cannot take.
func check(line []byte) []byte {
	code, msg := int64(0), ""
	switch {
	case !json.Valid(line):
		code, msg = jsonrpc.CodeParseError, "parse error: the line is not valid JSON; send one JSON-RPC message per line"
	default:
		var shape struct {
			Method *string          `json:"method"`
			Result json.RawMessage  `json:"result"`
			Error  *json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(line, &shape)
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			code, msg = jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error()+"; send a JSON-RPC 2.0 request or notification object"
		} else if shape.Method == nil && shape.Result == nil && shape.Error == nil {
			code, msg = jsonrpc.CodeInvalidRequest, "invalid request: no method; send a JSON-RPC 2.0 request or notification object"
		}
	}
	if code == 0 {
		return nil
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &probe)
	id := probe.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	return b
}
