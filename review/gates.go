package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// Gate limits.
const (
	// DefaultGateTimeout bounds one gate command unless the caller says
	// otherwise.
	DefaultGateTimeout = 10 * time.Minute
	// MaxGateOutput is how much of a gate's output a result keeps, in
	// characters: the end, where test runners and compilers summarise.
	MaxGateOutput = 4000
	// captureLimit is how much output a running gate holds in memory.
	captureLimit = 256 << 10
	// TimeoutExitCode is the exit code recorded for a gate stopped at its
	// time limit, as timeout(1) reports it.
	TimeoutExitCode = 124
)

// RunGates runs gates one after another in dir, each through the shell
// with its own time limit, and returns their results (source "run"): exit
// code, trimmed output (standard output and error together), duration and
// the commit tested. A gate that cannot start records exit code 127 and
// why. Cancelling ctx stops the gate running and records the rest as not
// run (exit code -1).
func RunGates(ctx context.Context, dir string, gates []baton.Gate, timeout time.Duration, now func() time.Time) []baton.GateResult {
	if timeout <= 0 {
		timeout = DefaultGateTimeout
	}
	if now == nil {
		now = time.Now
	}
	head := ""
	if out, err := git(ctx, dir, "rev-parse", "HEAD"); err == nil {
		head = strings.TrimSpace(out)
	}
	out := make([]baton.GateResult, 0, len(gates))
	for _, g := range gates {
		r := baton.GateResult{Command: g.Command, Label: g.Label, Required: g.Required, Source: "run", HeadSHA: head,
			RanAt: baton.Timestamp(now())}
		if ctx.Err() != nil {
			r.ExitCode, r.Output = -1, "not run: "+ctx.Err().Error()
			out = append(out, r)
			continue
		}
		start := time.Now()
		r.ExitCode, r.Output, r.TimedOut = runGate(ctx, dir, g.Command, timeout)
		r.DurationMS = time.Since(start).Milliseconds()
		out = append(out, r)
	}
	return out
}

// RunGatesAt runs gates as RunGates does, in a clean checkout of commit
// sha of the repository at dir, not in dir itself: the results are those
// of the PR's commit, whatever is uncommitted or checked out in the
// worktree. The checkout is a detached `git worktree add` in a temporary
// folder, removed afterwards whatever happened (a gate's time limit, a
// cancelled ctx, a failure). When no such checkout can be made nothing
// runs and the error says why.
func RunGatesAt(ctx context.Context, dir, sha string, gates []baton.Gate, timeout time.Duration, now func() time.Time) ([]baton.GateResult, error) {
	if sha == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the PR records no head commit: its gates cannot run on a clean checkout").
			WithType("gate_checkout_failed").WithHint("open a new PR of the branch (create_pr), then run its gates")
	}
	tmp, err := os.MkdirTemp("", "baton-gates-")
	if err != nil {
		return nil, baton.Errorf(baton.ErrInternal, "no temporary folder for the gates' checkout: %v", err)
	}
	co := filepath.Join(tmp, "checkout")
	defer func() {
		// Not ctx: the checkout goes even when the run was cancelled.
		clean, cancel := context.WithTimeout(context.WithoutCancel(ctx), gitTimeout)
		defer cancel()
		_, _ = git(clean, dir, "worktree", "remove", "--force", co)
		_ = os.RemoveAll(tmp)
		_, _ = git(clean, dir, "worktree", "prune")
	}()
	if _, err := git(ctx, dir, "worktree", "add", "--detach", co, sha); err != nil {
		be := baton.AsError(err)
		return nil, baton.Errorf(baton.ErrConflict, "the gates need a clean checkout of %s and it cannot be made: %s", shortSHA(sha), be.Message).
			WithType("gate_checkout_failed").WithDetails("head_sha", sha).
			WithHint("check that the repository still has commit %s (git cat-file -e %s) and that git can add a worktree, then run the gates again", shortSHA(sha), shortSHA(sha))
	}
	res := RunGates(ctx, co, gates, timeout, now)
	for i := range res {
		res[i].HeadSHA = sha
	}
	return res, nil
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// runGate runs one command through the shell in dir. At the time limit
// the whole process group is killed, so a test runner's children stop too.
func runGate(ctx context.Context, dir, command string, timeout time.Duration) (code int, output string, timedOut bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	cmd.Dir = dir
	cmd.Env = gitEnv()
	buf := &tail{max: captureLimit}
	cmd.Stdout, cmd.Stderr = buf, buf
	killGroup(cmd)
	// Output pipes held open by a killed command's orphans must not keep
	// the gate waiting.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	text := buf.String()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return TimeoutExitCode, Trim(text + fmt.Sprintf("\n[baton: stopped at the time limit of %s]", timeout)), true
	case err == nil:
		return 0, Trim(text), false
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode(), Trim(text), false
	}
	if ctx.Err() != nil {
		return -1, Trim(text + "\n[baton: stopped: " + ctx.Err().Error() + "]"), false
	}
	return 127, Trim(text + "\n[baton: could not run the command: " + err.Error() + "]"), false
}

// Trim keeps the end of a gate's output, at most MaxGateOutput characters
// of valid UTF-8 without NUL, surrounding blank space removed; what was
// cut is said at the top.
func Trim(s string) string {
	s = strings.TrimSpace(Clean(s))
	r := []rune(s)
	if len(r) <= MaxGateOutput {
		return s
	}
	cut := len(r) - MaxGateOutput
	return fmt.Sprintf("[… %d characters trimmed]\n", cut) + string(r[cut:])
}

// tail is a writer that keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = bytes.Clone(t.buf[len(t.buf)-t.max:])
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.buf) }
