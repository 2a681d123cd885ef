package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// bin is the baton binary built once for all tests.
var bin string

// builtFrom is the git commit bin was built from ("" outside a checkout).
var builtFrom string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "baton-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "baton")
	// -buildvcs=auto: stamp the commit (baton version) even where GOFLAGS
	// turns stamping off, and build without it outside a checkout.
	args := []string{"build", "-buildvcs=auto", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	// The commit the binary is built from, for TestVersionNamesCommit
	// (HEAD may move while the suite runs).
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		builtFrom = strings.TrimSpace(string(out))
	}
	build := exec.Command("go", append(args, "../cmd/baton")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building baton:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newDB initialises a database with the project colibri (prefix COL).
func newDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "baton.db")
	out, err := exec.Command(bin, "--db", db, "init", "--project", "colibri", "--prefix", "COL").CombinedOutput()
	if err != nil {
		t.Fatalf("baton init: %v\n%s", err, out)
	}
	return db
}

// cliRun runs the binary and returns stdout and the exit code.
func cliRun(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return stdout.String(), code
}

// stdioServer is `baton mcp` spoken to line by line.
type stdioServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	nextID int
}

func startStdio(t *testing.T, args ...string) *stdioServer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, withPreset(args)...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stdioServer{t: t, cmd: cmd, in: in, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("baton mcp did not exit when stdin closed")
		}
	})
	return s
}

// send writes one raw line.
func (s *stdioServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// read returns the next message with the given id (raw JSON null for
// id-less error replies), skipping notifications.
func (s *stdioServer) read(id string) map[string]any {
	s.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatal("baton mcp closed stdout")
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				s.t.Fatalf("server wrote a line that is not JSON: %q", line)
			}
			if got, _ := json.Marshal(m["id"]); string(got) == id {
				return m
			}
		case <-timeout:
			s.t.Fatalf("no response with id %s", id)
		}
	}
}

// call sends a request and returns its response.
func (s *stdioServer) call(method string, params any) map[string]any {
	s.t.Helper()
	s.nextID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	s.send(string(b))
	return s.read(fmt.Sprint(s.nextID))
}

func initParams() map[string]any {
	return map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "1"}}
}

func (s *stdioServer) initialize() {
	s.t.Helper()
	if r := s.call("initialize", initParams()); r["result"] == nil {
		s.t.Fatalf("initialize: %v", r)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// httpServer is `baton serve` on a free loopback port.
type httpServer struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT
	stderr *syncBuffer
	done   chan struct{}
	exit   int
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var listening = regexp.MustCompile(`serving MCP at (http://[^/\s]+)/mcp`)

// startHTTP starts `baton serve` as it was before tokens and rate limits:
// --insecure-local (every request runs as --agent, no token needed) and
// --rate-limit 0, since load tests drive one agent far past the default
// (a later --rate-limit in args wins). startHTTPAuth is the real thing.
func startHTTP(t *testing.T, db string, args ...string) *httpServer {
	t.Helper()
	return startServe(t, db, append([]string{"--insecure-local", "--rate-limit", "0"}, withPreset(args)...)...)
}

// withPreset gives a session that names no preset every vocabulary
// (--preset full), as the suite was written for: a session naming nothing
// gets the small core preset (TestPresets checks that).
func withPreset(args []string) []string {
	if slices.Contains(args, "--preset") {
		return args
	}
	return append([]string{"--preset", "full"}, args...)
}

// startHTTPAuth starts `baton serve` requiring bearer tokens.
func startHTTPAuth(t *testing.T, db string, args ...string) *httpServer {
	t.Helper()
	return startServe(t, db, args...)
}

func startServe(t *testing.T, db string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--db", db, "serve", "--addr", "127.0.0.1:0"}, args...)...)
	s := &httpServer{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			s.exit = ee.ExitCode()
		}
		close(s.done)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for s.url == "" {
		if m := listening.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
			break
		}
		select {
		case <-s.done:
			t.Fatalf("baton serve exited: %s", s.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("baton serve did not start: %s", s.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Error("baton serve did not stop on SIGINT")
		}
	})
	return s
}

// rawHTTP is a JSON-RPC client over Streamable HTTP without the SDK, to
// see status codes and headers.
type rawHTTP struct {
	t       *testing.T
	url     string
	session string
	token   string // sent as Authorization: Bearer when set
	nextID  int
}

type httpReply struct {
	status int
	header http.Header
	body   []byte
	msg    map[string]any // the JSON-RPC response, from JSON or SSE
}

func (c *rawHTTP) post(body string, headers map[string]string) httpReply {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, c.url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := httpReply{status: resp.StatusCode, header: resp.Header, body: b}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(b), "\n") {
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				var m map[string]any
				if json.Unmarshal([]byte(strings.TrimSpace(data)), &m) == nil && m["id"] != nil {
					r.msg = m
				}
			}
		}
	} else {
		_ = json.Unmarshal(b, &r.msg)
	}
	return r
}

func (c *rawHTTP) call(method string, params any) httpReply {
	c.t.Helper()
	c.nextID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	return c.post(string(b), nil)
}

func (c *rawHTTP) initialize() {
	c.t.Helper()
	r := c.call("initialize", initParams())
	if r.status != http.StatusOK || r.msg["result"] == nil {
		c.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	c.session = r.header.Get("Mcp-Session-Id")
	if c.session == "" {
		c.t.Fatal("no Mcp-Session-Id")
	}
	if r := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); r.status != http.StatusAccepted {
		c.t.Fatalf("initialized notification: %d %s", r.status, r.body)
	}
}

// toolResult digs the CallToolResult out of a JSON-RPC response.
func toolResult(t *testing.T, msg map[string]any) (structured map[string]any, isError bool) {
	t.Helper()
	res, ok := msg["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", msg)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	isErr, _ := res["isError"].(bool)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("result without content: %v", res)
	}
	return sc, isErr
}
