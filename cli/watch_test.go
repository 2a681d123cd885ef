package cli_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tools"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWatch: baton watch prints the project's events as they happen,
// including the CLI's own changes, and stops when interrupted.
func TestWatch(t *testing.T) {
	env := newDB(t)
	baton(t, env, "tasks", "task_create", "--title", "first", "--project", "colibri")
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(""), Stdout: out, Stderr: &bytes.Buffer{},
			Getenv: func(k string) string { return env[k] }}
		done <- app.Run(ctx, []string{"watch", "--every", "10ms"})
	}()
	baton(t, env, "tasks", "task_update", "--task-id", "COL-1", "--status", "todo")
	baton(t, env, "--agent", "builder", "proposals", "create_proposal", "--title", "T", "--description", "D", "--type", "product")
	deadline := time.Now().Add(20 * time.Second)
	for !(strings.Contains(out.String(), "task.updated") && strings.Contains(out.String(), "proposal.created")) {
		if time.Now().After(deadline) {
			t.Fatalf("watch printed:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "1\t") || !strings.Contains(out.String(), "task.created") {
		t.Fatalf("watch did not start from the kept history:\n%s", out.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("watch exited %d", code)
	}
}

// TestWatchShowsReservations: baton watch prints file reservations as
// they are taken and released, with the globs, their mode and expiry.
func TestWatchShowsReservations(t *testing.T) {
	env := newDB(t)
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(""), Stdout: out, Stderr: &bytes.Buffer{},
			Getenv: func(k string) string { return env[k] }}
		done <- app.Run(ctx, []string{"watch", "--every", "10ms"})
	}()
	if r := baton(t, env, "--agent", "alice", "--project", "colibri", "reservations", "file_reservation_paths", "--paths", "src/**"); r.code != 0 {
		t.Fatalf("reserve: %s", r.stderr)
	}
	if r := baton(t, env, "--agent", "alice", "--project", "colibri", "reservations", "release_file_reservations"); r.code != 0 {
		t.Fatalf("release: %s", r.stderr)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "reservation.released") {
		if time.Now().After(deadline) {
			t.Fatalf("watch printed:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	got := out.String()
	if !strings.Contains(got, "reservation.granted") || !strings.Contains(got, "alice\tsrc/** (exclusive until ") ||
		!strings.Contains(got, "reservations 1") {
		t.Errorf("watch printed:\n%s", got)
	}
}
