package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	bt "github.com/baton-dev/baton"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tools"
)

// TestMCPAnswersWhileTheDatabaseOpens: `baton mcp` answers initialize and
// tools/list while its database is still opening (here: waiting for
// another process's write lock), and a call that needs the store waits
// for it and then succeeds.
func TestMCPAnswersWhileTheDatabaseOpens(t *testing.T) {
	env := newDB(t)
	ctx := context.Background()
	other, err := sqlite.Open(ctx, env["BATON_DB"], sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = other.Update(ctx, func(bt.Tx) error { close(held); <-release; return nil })
	}()
	<-held
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: inR, Stdout: outW, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }}
	code := make(chan int, 1)
	go func() { code <- app.Run(ctx, []string{"mcp", "--agent", "a"}); outW.Close() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	await := func(id string, within time.Duration) string {
		t.Helper()
		timeout := time.After(within)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("no answer to %s; stderr: %s", id, errb.String())
				}
				if strings.Contains(l, `"id":`+id+`,`) {
					return l
				}
			case <-timeout:
				return ""
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if await("1", 10*time.Second) == "" {
		t.Fatal("initialize waited for the database")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l := await("2", 10*time.Second); !strings.Contains(l, `"name":"list_issues"`) {
		t.Fatalf("tools/list while the database opens: %.300s", l)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_issues","arguments":{}}}`)
	if l := await("3", 200*time.Millisecond); l != "" {
		t.Fatalf("a call that needs the store ran before it opened: %.300s", l)
	}
	close(release)
	released = true
	if l := await("3", 30*time.Second); l == "" || strings.Contains(l, `"isError":true`) {
		t.Fatalf("list_issues once the database opened: %.500s", l)
	}
	inW.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
}

// TestMCPStopsItsBackgroundWork: `baton mcp` ends its presence heartbeat
// and event watch before it closes the database. Left running, they read
// the store after the close and open the database file again (its -wal
// and -shm appeared after the command had returned).
func TestMCPStopsItsBackgroundWork(t *testing.T) {
	env := newDB(t)
	running := func() int {
		buf := make([]byte, 1<<22)
		stacks := string(buf[:runtime.Stack(buf, true)])
		return strings.Count(stacks, "mcpserver.(*Factory).Heartbeat(") + strings.Count(stacks, "mcpserver.(*Factory).Watch(")
	}
	before := running()
	if r := baton(t, env, "mcp", "--agent", "a"); r.code != 0 {
		t.Fatalf("baton mcp: %+v", r)
	}
	if after := running(); after > before {
		t.Errorf("%d heartbeat and watch goroutines still run after baton mcp returned (%d before)", after, before)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(env["BATON_DB"] + suffix); err == nil {
			t.Errorf("%s%s exists after baton mcp returned: the database is still open", env["BATON_DB"], suffix)
		}
	}
}
