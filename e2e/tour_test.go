package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeTour returns the lines of the README's tour: the first ```sh block
// after "## The CLI", with blank and comment-only lines left out and
// backslash-continued lines joined.
func readmeTour(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	at := strings.Index(s, "\n## The CLI\n")
	if at < 0 {
		t.Fatal(`README.md has no "## The CLI" section`)
	}
	s = s[at:]
	open := strings.Index(s, "\n```sh\n")
	if open < 0 {
		t.Fatal("README.md has no ```sh block under \"## The CLI\"")
	}
	s = s[open+len("\n```sh\n"):]
	end := strings.Index(s, "\n```")
	if end < 0 {
		t.Fatal("the tour's ```sh block in README.md is not closed")
	}
	var lines []string
	pending := ""
	for l := range strings.SplitSeq(s[:end], "\n") {
		l = strings.TrimSpace(l)
		if pending != "" {
			l = pending + " " + l
			pending = ""
		}
		if cut, ok := strings.CutSuffix(l, `\`); ok {
			pending = cut
			continue
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
	}
	if pending != "" {
		lines = append(lines, pending)
	}
	return lines
}

// TestPoint2ReadmeTourRuns: the tour in the README works exactly as
// written, in order, in a fresh git repository: each line runs through
// bash (so pipes, && and $(...) work, and bash drops the # comments) with
// `baton` on PATH being the binary under test, and must exit 0 within a
// minute (a line that never ends, like a bare `baton watch`, fails too).
// A README edit that breaks the tour fails here.
func TestPoint2ReadmeTourRuns(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"git", "bash"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed; .ci/run installs it", prog)
		}
	}
	tour := readmeTour(t)
	if len(tour) < 10 {
		t.Fatalf("the README's tour has %d commands; it was cut short?\n%s", len(tour), strings.Join(tour, "\n"))
	}

	root := t.TempDir()
	binDir, home, repo := filepath.Join(root, "bin"), filepath.Join(root, "home"), filepath.Join(root, "shop")
	for _, d := range []string{binDir, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(binDir, "baton")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	// A fresh user's shell: nothing of the test's own baton settings, a
	// home of its own (so no client configuration of this machine leaks in).
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BATON_") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home)

	// Key outputs: each names a command the tour must have and what it
	// prints, so the tour keeps showing the loop from init to a verified
	// audit trail.
	checks := []struct{ command, want string }{
		{"baton init --project shop --prefix SHOP", "project shop (prefix SHOP)"},
		{"baton init --project shop --prefix SHOP", "AGENTS.md"},
		{"baton beads list_beads", "[open] SHOP-1 (task, P1): Add checkout"},
		{"claims claim_next", "item_id: SHOP-1"},
		{"baton inbox", "Keep carts in SQLite?"},
		{"baton memory show --profile worker", "Carts live in SQLite"},
		{"baton proposals accept", "created SHOP-2: Cache carts"},
		{"baton audit verify --bundle", "every link verifies"},
	}
	seen := make([]bool, len(checks))

	for i, line := range tour {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", line)
		cmd.Dir, cmd.Env = repo, env
		cmd.WaitDelay = 5 * time.Second
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Fatalf("tour line %d did not end within a minute (the tour must use commands that complete on their own):\n%s", i+1, line)
		}
		if err != nil {
			t.Fatalf("tour line %d failed (%v):\n%s\nstdout:\n%s\nstderr:\n%s", i+1, err, line, stdout.String(), stderr.String())
		}
		for j, c := range checks {
			if !strings.Contains(line, c.command) {
				continue
			}
			seen[j] = true
			if !strings.Contains(stdout.String(), c.want) {
				t.Errorf("tour line %d printed no %q:\n%s\nstdout:\n%s", i+1, c.want, line, stdout.String())
			}
		}
	}
	for j, c := range checks {
		if !seen[j] {
			t.Errorf("the README's tour has no line running %q", c.command)
		}
	}

	// What the tour set up is there: the agents' loop in AGENTS.md and the
	// client configuration, next to the database.
	agents, err := os.ReadFile(filepath.Join(repo, "AGENTS.md"))
	if err != nil || !bytes.Contains(agents, []byte("<!-- baton:begin -->")) || !bytes.Contains(agents, []byte("`claim_next`")) {
		t.Errorf("AGENTS.md after the tour (%v):\n%s", err, agents)
	}
	for _, f := range []string{".mcp.json", filepath.Join(".baton", "baton.db")} {
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Errorf("the tour left no %s: %v", f, err)
		}
	}
}
