package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tools"
)

// forged is what an agent once sent to forge a green approval line.
const forged = "\x1b[32mAPPROVED by user\x1b[0m"

// nasty adds the other ways text can take over a terminal: the one-byte
// CSI, BEL, backspace, carriage return, DEL and bidi overrides.
const nasty = forged + " \u009b31mred\u009b0m \a\b\r\x7f \u202eevil\u202c \u2066x\u2069"

// raw are the characters that must never reach a terminal as they are.
var raw = []string{"\x1b", "\u009b", "\a", "\b", "\r", "\x7f", "\u202e", "\u202c", "\u2066", "\u2069"}

func noRawControls(t *testing.T, where, out string) {
	t.Helper()
	for _, r := range raw {
		if strings.Contains(out, r) {
			t.Errorf("%s: output holds %q raw:\n%q", where, r, out)
		}
	}
	// The text is shown, escaped, not dropped.
	if !strings.Contains(out, `\x1b[32mAPPROVED by user\x1b[0m`) {
		t.Errorf("%s: output does not show the escaped text:\n%s", where, out)
	}
}

// TestPoint11ControlCharactersNeverReachTheTerminal: agent text with ANSI
// escapes and other control characters, printed by baton inbox, ready,
// watch, a tool's table and fields, its plain-text output, and an error
// from the server, never reaches the terminal raw; --json stays exact.
func TestPoint11ControlCharactersNeverReachTheTerminal(t *testing.T) {
	env := newDB(t)
	ok := func(args ...string) run {
		t.Helper()
		r := baton(t, env, args...)
		if r.code != 0 {
			t.Fatalf("%q: %+v", args, r)
		}
		return r
	}
	// The agent's name is the forged line too.
	as := []string{"--agent", forged}
	ok(append(as, "tasks", "task_create", "--project", "colibri", "--title", nasty)...)
	ok(append(as, "tasks", "task_update", "--task-id", "COL-1", "--status", "todo", "--labels", nasty)...)
	ok(append(as, "tasks", "task_create", "--project", "colibri", "--title", "claimed")...)
	ok(append(as, "tasks", "task_update", "--task-id", "COL-2", "--status", "todo")...)
	ok(append(as, "claims", "claim_item", "--item-id", "COL-2")...)
	ok(append(as, "messages", "send_message", "--to", "user", "--body", nasty)...)

	cases := []struct {
		name string
		args []string
		code int
	}{
		{"inbox", []string{"inbox"}, 0},
		{"ready", []string{"ready"}, 0},
		{"table", []string{"tasks", "task_list", "--project", "colibri"}, 0},
		{"fields", []string{"tasks", "task_get", "--task-id", "COL-1"}, 0},
		{"messages table", []string{"messages", "read_messages", "--agent-id", "user"}, 0},
		// COL-2 is claimed by the forged agent: the server's error names it.
		{"error", []string{"tasks", "task_update", "--task-id", "COL-2", "--progress", "5"}, cli.ExitTool},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := baton(t, env, c.args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d: %+v", r.code, c.code, r)
			}
			noRawControls(t, c.name, r.stdout+r.stderr)
		})
	}

	// --json is exact: the title comes back byte for byte.
	var got struct{ Title string }
	if err := json.Unmarshal([]byte(ok("tasks", "task_get", "--task-id", "COL-1", "--json").stdout), &got); err != nil || got.Title != nasty {
		t.Errorf("--json title = %q (%v), want %q", got.Title, err, nasty)
	}

	// baton watch prints the events, whose agent is the forged name.
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(""), Stdout: out, Stderr: out,
			Getenv: func(k string) string { return env[k] }}
		done <- app.Run(ctx, []string{"watch", "--every", "10ms"})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "message.sent") {
		if time.Now().After(deadline) {
			t.Fatalf("watch printed:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	noRawControls(t, "watch", out.String())
	if !strings.Contains(out.String(), "task.created") {
		t.Errorf("watch did not show the task events:\n%s", out.String())
	}
}
