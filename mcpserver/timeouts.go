package mcpserver

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/baton-dev/baton"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Timeouts bound how long an HTTP client may hold a connection without
// making progress. None of them limits how long a response may last: SSE
// streams and long polls (wait_for_messages, ask_owner) run as long as the
// client keeps reading. That is why there is no server-wide ReadTimeout or
// WriteTimeout: net/http would cut every stream at that age (a ReadTimeout
// even cancels the handler's context). The body and write deadlines are set
// per request instead, through http.ResponseController.
type Timeouts struct {
	// Header is the time a client has to send a request's headers
	// (default 10 s).
	Header time.Duration
	// Body is the time a client has to send a request's whole body once
	// its headers are in (default 30 s).
	Body time.Duration
	// Write is the time each write of a response may take to reach the
	// client (default 30 s): a client that stops reading is cut, one that
	// reads slowly but steadily is not.
	Write time.Duration
	// Idle is how long a keep-alive connection may wait for its next
	// request (default 2 minutes).
	Idle time.Duration
}

// Defaults of Timeouts.
const (
	DefaultHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout   = 30 * time.Second
	DefaultWriteTimeout  = 30 * time.Second
	DefaultIdleTimeout   = 2 * time.Minute
)

// withDefaults fills in the zero fields.
func (t Timeouts) withDefaults() Timeouts {
	if t.Header <= 0 {
		t.Header = DefaultHeaderTimeout
	}
	if t.Body <= 0 {
		t.Body = DefaultBodyTimeout
	}
	if t.Write <= 0 {
		t.Write = DefaultWriteTimeout
	}
	if t.Idle <= 0 {
		t.Idle = DefaultIdleTimeout
	}
	return t
}

// maxHeaderBytes bounds a request's headers: a bearer token and the MCP
// headers need a few hundred bytes, not net/http's default megabyte.
const maxHeaderBytes = 64 << 10

// NewHTTPServer returns the http.Server of `baton serve` for h (from
// Factory.Handler with the same Timeouts): the header and idle timeouts
// are the server's, the body and write deadlines h's own.
func NewHTTPServer(h http.Handler, t Timeouts) *http.Server {
	t = t.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: t.Header, IdleTimeout: t.Idle, MaxHeaderBytes: maxHeaderBytes}
}

// hasBody reports whether r comes with a body still to be read.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// deadlines gives a request with a body until t.Body to send it (the
// deadline is lifted by readBody once the body is in) and makes every write
// of the response complete within t.Write of its start.
func deadlines(t Timeouts, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if hasBody(r) {
			// Not for requests without a body: net/http is already reading
			// their connection in the background, and a deadline there
			// would cancel the request's context (and end its stream).
			_ = rc.SetReadDeadline(time.Now().Add(t.Body))
		}
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, d: t.Write}
		dw.extend()
		next.ServeHTTP(dw, r)
		// net/http flushes what is buffered after the handler returns.
		dw.extend()
	})
}

// deadlineWriter moves the connection's write deadline forward before each
// write, so a stream may last for ever but no single write may hang.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(b)
}

// Flush keeps streaming responses streaming.
func (w *deadlineWriter) Flush() {
	w.extend()
	_ = w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// readBody reads r's whole body (at most limit bytes) before anything acts
// on it, then lifts the body deadline so that the response may stream for
// as long as it needs. It answers 408 or 413 itself and returns false when
// the body is late or too large.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	if !hasBody(r) {
		return nil, true
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooLarge):
			refuse(w, r, http.StatusRequestEntityTooLarge, baton.Errorf(baton.ErrInvalidInput,
				"the request body is over %d bytes", limit).WithType("body_too_large").
				WithDetails("limit_bytes", limit).
				WithHint("send smaller requests: split large inputs over several calls"))
		case errors.As(err, &ne) && ne.Timeout():
			refuse(w, r, http.StatusRequestTimeout, baton.Errorf(baton.ErrInvalidInput,
				"the request body did not arrive in time").WithType("body_timeout").
				WithHint("send the whole body at once, right after the headers"))
		default:
			refuse(w, r, http.StatusBadRequest, baton.Errorf(baton.ErrInvalidInput,
				"the request body could not be read: %v", err).WithType("body_unreadable").
				WithHint("send the body again"))
		}
		return nil, false
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	r.Body = readBodyT{bytes.NewReader(b)}
	r.ContentLength = int64(len(b))
	return b, true
}

// readBodyT is a body readBody has already taken in.
type readBodyT struct{ *bytes.Reader }

func (readBodyT) Close() error { return nil }

// defaultMaxBody is the largest request body accepted: the SDK's own limit.
const defaultMaxBody = mcp.DefaultMaxRequestBodyBytes

// refuse answers r with status and e's envelope. When r's body has not
// been read, the connection is closed after the answer rather than kept
// for another request: otherwise net/http would first read and discard the
// rest of the body, at whatever pace the client sends it.
func refuse(w http.ResponseWriter, r *http.Request, status int, e *baton.Error) {
	if _, read := r.Body.(readBodyT); hasBody(r) && !read {
		w.Header().Set("Connection", "close")
	}
	writeEnvelope(w, status, e)
}
