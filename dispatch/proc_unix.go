//go:build unix

package dispatch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// setGroup starts the agent in a process group of its own, so stopping it
// reaches everything it started (its MCP server, its tools' processes).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup sends SIGTERM (or SIGKILL when hard) to the agent's process
// group.
func killGroup(cmd *exec.Cmd, hard bool) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// exitCode is the process's exit status; a process ended by a signal
// reports 128+signal, as a shell does.
func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return -1
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return cmd.ProcessState.ExitCode()
}

// killOrphan kills the process group of an agent left running by a
// dispatcher that died, once it is sure the process is that agent: its
// environment names the run (pids are reused). Where /proc is not there
// to tell, the process is left alone; its lease is gone, so its writes
// are refused anyway.
func killOrphan(pid int, runID string) {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil || !bytes.Contains(env, []byte("\x00BATON_RUN_ID="+runID+"\x00")) {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
