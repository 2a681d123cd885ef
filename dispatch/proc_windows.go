package dispatch

import (
	"errors"
	"os/exec"
)

// setGroup does nothing on Windows: the agent is stopped by killing its
// process (Windows has no process groups to signal).
func setGroup(*exec.Cmd) {}

// killGroup kills the agent's process; Windows has no SIGTERM.
func killGroup(cmd *exec.Cmd, _ bool) {
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func exitCode(cmd *exec.Cmd, err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if cmd.ProcessState == nil {
		return -1
	}
	return cmd.ProcessState.ExitCode()
}

// killOrphan cannot tell an orphaned agent from another process on Windows.
func killOrphan(int, string) {}

// processAlive cannot tell on Windows without more privileges than it
// needs: a run is then judged by its heartbeat alone.
func processAlive(int) bool { return true }
