package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/internal/gittest"
)

// guardRepo is a git repository with a baton database at its top and the
// guard's hooks installed by the built binary.
func guardRepo(t *testing.T) string {
	t.Helper()
	gittest.Need(t, "the git guard runs as git hooks")
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Write(t, dir, "README.md", "hello\n")
	gittest.Git(t, dir, "add", "README.md")
	gittest.Git(t, dir, "commit", "-q", "-m", "first")
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "BATON_DB=", "BATON_AGENT=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("baton %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "--project", "colibri", "--prefix", "COL", "--no-instructions")
	run("hooks", "install")
	run("--agent", "alice", "reservations", "file_reservation_paths", "--paths", "src/**", "--reason", "refactoring the parser")
	run("--agent", "carol", "reservations", "file_reservation_paths", "--paths", "docs/*.md", "--exclusive=false")
	return dir
}

// gitAs runs git in dir as agent (BATON_AGENT), with the guard's hooks
// live, and returns its combined output and whether it succeeded.
func gitAs(t *testing.T, dir, agent string, env []string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=dev@example.com", "-c", "user.name=Dev",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "BATON_AGENT="+agent, "BATON_DB=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestGuardRefusesCommitOnReservedPath: with the hooks installed, bob's
// commit touching src/ (which alice reserved exclusively) is refused with
// alice's name, the pattern and the reason; alice's own commit goes
// through; a shared reservation blocks nobody; the bypass works.
func TestGuardRefusesCommitOnReservedPath(t *testing.T) {
	t.Parallel()
	dir := guardRepo(t)
	gittest.Write(t, dir, "src/parser.go", "package src\n")
	gittest.Git(t, dir, "add", "src/parser.go")
	out, ok := gitAs(t, dir, "bob", nil, "commit", "-q", "-m", "bob edits the parser")
	if ok || !strings.Contains(out, "src/parser.go: reserved by alice") || !strings.Contains(out, "src/**") ||
		!strings.Contains(out, "refactoring the parser") || !strings.Contains(out, "BATON_SKIP_GUARD") {
		t.Fatalf("bob's commit: ok=%v\n%s", ok, out)
	}
	if log := gittest.Git(t, dir, "log", "--oneline"); strings.Contains(log, "bob edits") {
		t.Fatalf("the refused commit is in the log:\n%s", log)
	}
	if out, ok := gitAs(t, dir, "alice", nil, "commit", "-q", "-m", "alice edits the parser"); !ok {
		t.Fatalf("alice's own commit was refused:\n%s", out)
	}
	gittest.Write(t, dir, "docs/guide.md", "guide\n")
	gittest.Git(t, dir, "add", "docs/guide.md")
	if out, ok := gitAs(t, dir, "bob", nil, "commit", "-q", "-m", "bob writes docs"); !ok {
		t.Fatalf("a shared reservation blocked bob:\n%s", out)
	}
	gittest.Write(t, dir, "src/lexer.go", "package src\n")
	gittest.Git(t, dir, "add", "src/lexer.go")
	if out, ok := gitAs(t, dir, "bob", []string{"BATON_SKIP_GUARD=1"}, "commit", "-q", "-m", "bob bypasses"); !ok {
		t.Fatalf("the bypass did not let bob through:\n%s", out)
	}
}

// TestGuardRefusesPush: commits that reached the branch another way (the
// bypass) are caught again by pre-push, which checks every commit the
// remote does not have yet.
func TestGuardRefusesPush(t *testing.T) {
	t.Parallel()
	dir := guardRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, dir, "init", "-q", "--bare", remote)
	gittest.Git(t, dir, "remote", "add", "origin", remote)
	if out, ok := gitAs(t, dir, "bob", nil, "push", "-q", "origin", "main"); !ok {
		t.Fatalf("pushing nothing reserved: %s", out)
	}
	gittest.Write(t, dir, "src/parser.go", "package src\n")
	gittest.Git(t, dir, "add", "src/parser.go")
	if out, ok := gitAs(t, dir, "bob", []string{"BATON_SKIP_GUARD=1"}, "commit", "-q", "-m", "bob bypasses"); !ok {
		t.Fatalf("bypassed commit: %s", out)
	}
	out, ok := gitAs(t, dir, "bob", nil, "push", "-q", "origin", "main")
	if ok || !strings.Contains(out, "pre-push refused") || !strings.Contains(out, "src/parser.go: reserved by alice") {
		t.Fatalf("bob's push: ok=%v\n%s", ok, out)
	}
	if out, ok := gitAs(t, dir, "alice", nil, "push", "-q", "origin", "main"); !ok {
		t.Fatalf("alice's push of the same commits: %s", out)
	}
}

// TestGuardKeepsForeignHook: a pre-commit hook already in the repository
// is kept and still runs (first) once baton's guard is installed.
func TestGuardKeepsForeignHook(t *testing.T) {
	t.Parallel()
	gittest.Need(t, "the git guard runs as git hooks")
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho foreign hook ran >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "hooks", "install")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "pre-baton") {
		t.Fatalf("install: %v\n%s", err, out)
	}
	gittest.Write(t, dir, "a.txt", "a\n")
	gittest.Git(t, dir, "add", "a.txt")
	out, ok := gitAs(t, dir, "bob", nil, "commit", "-q", "-m", "x")
	if ok || !strings.Contains(out, "foreign hook ran") {
		t.Fatalf("the kept hook did not run first: ok=%v\n%s", ok, out)
	}
}
