package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is `baton serve` on a free loopback port, with bearer tokens and
// the dashboard's login as a person runs it.
type server struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT
	stderr *syncBuffer
	done   chan struct{}

	mu   sync.Mutex
	used int // login URLs handed out, in the order serve printed them
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

var (
	listening = regexp.MustCompile(`serving MCP at (http://[^/\s]+)/mcp`)
	loginLine = regexp.MustCompile(`baton: dashboard login \(one use, valid 1h\): (http://\S+/login\?token=\S+)`)
)

func startServer(db string) (*server, error) {
	cmd := exec.Command(bin, "--db", db, "serve", "--addr", "127.0.0.1:0")
	s := &server{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := listening.FindStringSubmatch(s.stderr.String()); m != nil && len(s.logins()) > 0 {
			s.url = m[1]
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("baton serve exited: %s", s.stderr)
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("baton serve did not start: %s", s.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop interrupts the server, as Ctrl-C does, and waits for it.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// logins returns every login URL serve printed, oldest first.
func (s *server) logins() []string {
	var out []string
	for _, m := range loginLine.FindAllStringSubmatch(s.stderr.String(), -1) {
		out = append(out, m[1])
	}
	return out
}

// waitLogins waits until serve has printed more than n login URLs and
// returns them all.
func (s *server) waitLogins(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if l := s.logins(); len(l) > n {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("baton serve printed no login URL after the %dth: %s", n, s.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nextLogin hands out the oldest login URL no test has used yet. Each is
// valid until used (serve prints the next one then), so tests take them
// in turn.
func (s *server) nextLogin(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.waitLogins(t, s.used)
	s.used++
	return l[s.used-1]
}

// issueToken runs `baton agent create NAME --profile worker` and returns
// the token it prints once.
func (fx *fixture) issueToken(t *testing.T, agent string) string {
	t.Helper()
	out, err := exec.Command(bin, "--db", fx.db, "agent", "create", agent, "--profile", "worker",
		"--project", "colibri", "--json").Output()
	if err != nil {
		t.Fatalf("baton agent create %s: %v: %s", agent, err, out)
	}
	var got struct{ Token struct{ Token string } }
	if err := json.Unmarshal(out, &got); err != nil || !strings.HasPrefix(got.Token.Token, "baton_") {
		t.Fatalf("no token in %s", out)
	}
	return got.Token.Token
}

// bearer adds a token to an MCP client's requests.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// agent is an MCP client session of a worker agent over Streamable HTTP.
type agent struct {
	t    *testing.T
	name string
	cs   *mcp.ClientSession
}

// newAgent issues a token for name and connects with it.
func (fx *fixture) newAgent(t *testing.T, name string) *agent {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: fx.srv.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{fx.issueToken(t, name)}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "browsertest", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect as %s: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return &agent{t: t, name: name, cs: cs}
}

// call runs a tool and returns its structured result, failing the test
// on an error (use try to see one).
func (a *agent) call(tool string, args map[string]any) map[string]any {
	a.t.Helper()
	out, err := a.try(context.Background(), tool, args)
	if err != nil {
		a.t.Fatal(err)
	}
	return out
}

// try runs a tool; it may run on another goroutine than the test's.
func (a *agent) try(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", a.name, tool, err)
	}
	out, _ := res.StructuredContent.(map[string]any)
	if res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		return out, fmt.Errorf("%s %s failed: %s", a.name, tool, b)
	}
	return out, nil
}
