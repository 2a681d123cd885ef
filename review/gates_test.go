package review_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
)

func needShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the gate commands below are POSIX shell")
	}
}

// TestRunGatesRecordsExitCodeAndOutput: each gate runs in the directory,
// through the shell, and its exit code, output (stdout and stderr), the
// commit tested and its required flag are recorded.
func TestRunGatesRecordsExitCodeAndOutput(t *testing.T) {
	needShell(t)
	r := newRepo(t)
	head := r.git("rev-parse", "HEAD")
	gates := []baton.Gate{
		{Command: "test -f README.md && echo tests passed", Label: "Tests", Required: true},
		{Command: "echo to stderr >&2; exit 3", Label: "Lint", Required: false},
		{Command: "pwd", Label: "Where"},
		{Command: "no-such-command-baton-test", Label: "Missing", Required: true},
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	res := review.RunGates(context.Background(), r.dir, gates, time.Minute, func() time.Time { return at })
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	want := []struct {
		code   int
		output string
	}{{0, "tests passed"}, {3, "to stderr"}, {0, ""}, {127, "not found"}}
	for i, w := range want {
		g := res[i]
		if g.ExitCode != w.code || !strings.Contains(g.Output, w.output) {
			t.Errorf("%s: exit %d output %q; want %d containing %q", g.Label, g.ExitCode, g.Output, w.code, w.output)
		}
		if g.Source != "run" || g.HeadSHA != head || g.RanAt != "2026-05-01T12:00:00.000Z" || g.Required != gates[i].Required ||
			g.Command != gates[i].Command {
			t.Errorf("%s: recorded %+v", g.Label, g)
		}
	}
	if where, _ := filepath.EvalSymlinks(res[2].Output); where != mustEval(t, r.dir) {
		t.Errorf("the gate ran in %q, not in %q", res[2].Output, r.dir)
	}
	if !res[0].Passed() || res[1].Passed() || res[3].Passed() {
		t.Error("Passed disagrees with the exit codes")
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunGatesTimeLimit: a gate past its time limit is stopped, with its
// children, and recorded as timed out with exit code 124; the next gate
// still runs.
func TestRunGatesTimeLimit(t *testing.T) {
	needShell(t)
	r := newRepo(t)
	marker := filepath.Join(t.TempDir(), "child-survived")
	gates := []baton.Gate{
		// The child sleeps, then writes: if it outlived the kill, the file appears.
		{Command: "echo started; (sleep 2; touch " + marker + ") & sleep 30", Label: "Slow", Required: true},
		{Command: "echo after", Label: "Next"},
	}
	res := review.RunGates(context.Background(), r.dir, gates, 300*time.Millisecond, nil)
	slow := res[0]
	if !slow.TimedOut || slow.ExitCode != review.TimeoutExitCode || slow.Passed() {
		t.Fatalf("slow gate %+v, want timed out with exit 124", slow)
	}
	if !strings.Contains(slow.Output, "started") || !strings.Contains(slow.Output, "stopped at the time limit of 300ms") {
		t.Fatalf("output %q", slow.Output)
	}
	if res[1].ExitCode != 0 || res[1].Output != "after" {
		t.Fatalf("the gate after a timeout: %+v", res[1])
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the timed-out gate's child kept running")
	}
}

// TestRunGatesCancelled: a cancelled run records the gates it did not run.
func TestRunGatesCancelled(t *testing.T) {
	needShell(t)
	r := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := review.RunGates(ctx, r.dir, []baton.Gate{{Command: "true", Label: "T"}}, time.Minute, nil)
	if res[0].ExitCode != -1 || !strings.HasPrefix(res[0].Output, "not run") {
		t.Fatalf("%+v, want not run", res[0])
	}
}

// TestTrimKeepsTheEnd: long output keeps its last MaxGateOutput
// characters and says how much was cut; text is made storable.
func TestTrimKeepsTheEnd(t *testing.T) {
	long := strings.Repeat("é", 10000) + "FAIL: TestX"
	got := review.Trim("  \n" + long + "\n\n")
	if !strings.HasPrefix(got, "[… 6011 characters trimmed]\n") || !strings.HasSuffix(got, "FAIL: TestX") {
		t.Fatalf("trimmed to %q…%q", got[:40], got[len(got)-20:])
	}
	if n := len([]rune(got[strings.Index(got, "\n")+1:])); n != review.MaxGateOutput {
		t.Fatalf("kept %d characters, want %d", n, review.MaxGateOutput)
	}
	if got := review.Trim("a\x00b\xff"); got != "a\uFFFDb\uFFFD" {
		t.Fatalf("Trim kept NUL or invalid UTF-8: %q", got)
	}
	if got := review.Trim(" ok \n"); got != "ok" {
		t.Fatalf("short output %q, want ok", got)
	}
}

// TestPoint3GatesRunOnTheCommitNotTheDisk: RunGatesAt runs the gates in a
// clean checkout of the commit asked for: an uncommitted edit in the
// worktree, or another commit checked out there, changes nothing; the
// commit tested is recorded; the temporary checkout is gone afterwards,
// also after a gate's time limit; a commit the repository lacks is
// refused with nothing run.
func TestPoint3GatesRunOnTheCommitNotTheDisk(t *testing.T) {
	needShell(t)
	r := newRepo(t)
	r.write("value.txt", "good\n")
	good := r.commit("good")
	r.write("value.txt", "bad\n")
	r.commit("bad") // checked out: HEAD is not the PR's commit
	r.write("value.txt", "bad, uncommitted\n")
	gates := []baton.Gate{{Command: "grep -qx good value.txt", Label: "Value", Required: true},
		{Command: "git status --porcelain | grep . && exit 1 || true", Label: "Clean"},
		{Command: "sleep 5", Label: "Slow"}}
	res, err := review.RunGatesAt(context.Background(), r.dir, good, gates, 500*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].ExitCode != 0 || res[1].ExitCode != 0 || !res[2].TimedOut {
		t.Fatalf("results %+v, want Value and Clean passed on the clean checkout and Slow timed out", res)
	}
	for _, g := range res {
		if g.HeadSHA != good {
			t.Errorf("%s records head %s, want %s", g.Label, g.HeadSHA, good)
		}
	}
	if wts := r.git("worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
		t.Errorf("the temporary checkout is still registered:\n%s", wts)
	}
	if b, _ := os.ReadFile(filepath.Join(r.dir, "value.txt")); string(b) != "bad, uncommitted\n" {
		t.Errorf("the worktree's file was touched: %q", b)
	}
	_, err = review.RunGatesAt(context.Background(), r.dir, strings.Repeat("ab", 20), gates[:1], time.Minute, nil)
	if be := baton.AsError(err); err == nil || be.Type != "gate_checkout_failed" || strings.Contains(be.Message, r.dir) {
		t.Fatalf("missing commit: %v", err)
	}
}
