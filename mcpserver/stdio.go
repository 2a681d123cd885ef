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

// maxLine bounds one inbound JSON-RPC line, in bytes (newline excluded):
// the go-sdk's own frame limit. A longer line is refused with a JSON-RPC
// error and the session goes on.
const maxLine = int64(mcp.DefaultMaxLineLength)

// idWindow is how much of an oversized line is searched for its request
// id: clients write "id" before "params", so the start holds it.
const idWindow = 64 << 10

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
	// filterLines passes on only lines of at most maxLine bytes; the
	// transport's own cap, a little above, is never what ends a session.
	err := f.Server(p).Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}, MaxLineLength: int(maxLine) + 2})
	// Presence is recorded beside the session (sessionUp); its record and
	// its close land before the caller closes the store, or give up after
	// presenceWait (a database that never opened).
	done := make(chan struct{})
	go func() { f.presence.writes.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(presenceWait):
	}
	return err
}

// presenceWait bounds how long a stdio session's end waits for its
// presence to be written.
const presenceWait = 5 * time.Second

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
// every other line on reply. A line longer than maxLine is read to its end
// but never held whole: it is answered with an error and dropped.
func filterLines(r io.Reader, pass io.Writer, reply *lockedWriter) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		raw, size, rerr := readLine(br, maxLine)
		if size > maxLine {
			if _, err := reply.Write(append(tooLarge(raw, size), '\n')); err != nil {
				return err
			}
		} else if line := bytes.TrimSpace(raw); len(line) > 0 {
			if errResp := check(line); errResp != nil {
				if _, err := reply.Write(append(errResp, '\n')); err != nil {
					return err
				}
			} else {
				reply.expect(line)
				if _, err := pass.Write(append(line, '\n')); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// readLine reads the next line of br and returns it without its newline,
// with its length. A line longer than limit comes back cut to its first
// idWindow bytes (where its id is), the rest read and thrown away, so a
// client cannot make the server hold more than limit bytes at once. The
// error is io.EOF after the last line.
func readLine(br *bufio.Reader, limit int64) (line []byte, size int64, err error) {
	for {
		var chunk []byte
		chunk, err = br.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		prev := size
		size += int64(len(chunk))
		if size <= limit {
			line = append(line, chunk...)
		} else if prev <= limit {
			// Just went over: keep the start only, and let the rest of
			// the buffer go.
			line = line[:min(len(line), idWindow)]
			line = bytes.Clone(append(line, chunk[:min(idWindow-len(line), len(chunk))]...))
		}
		if err != bufio.ErrBufferFull {
			return line, size, err
		}
	}
}

// tooLarge is the JSON-RPC error for a line of size bytes, over maxLine.
// It carries the request's id when the line's first bytes show it, null
// otherwise.
func tooLarge(head []byte, size int64) []byte {
	e := baton.Errorf(baton.ErrInvalidInput, "request too large: the line is %d bytes, over the limit of %d bytes (%d MiB)", size, maxLine, maxLine>>20).
		WithType("too_large").WithDetails("size", size, "limit", maxLine).
		WithHint("send one JSON-RPC message per line, each at most %d bytes: split large content over several calls", maxLine)
	data, _ := json.Marshal(baton.Envelope{Error: e})
	return errorResponse(leadingID(head), jsonrpc.CodeInvalidRequest, e.Message+"; "+e.Hint, data)
}

// leadingID is the top-level "id" of a JSON object whose start is head,
// or null when the start does not show it.
func leadingID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return json.RawMessage("null")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		if key != "id" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			continue
		}
		var id json.RawMessage
		if dec.Decode(&id) != nil {
			break
		}
		switch id[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return id
		}
		break
	}
	return json.RawMessage("null")
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
	return errorResponse(id, code, msg, nil)
}

// errorResponse is a JSON-RPC error response line (without its newline).
func errorResponse(id json.RawMessage, code int64, msg string, data json.RawMessage) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg, Data: data}})
	return b
}
