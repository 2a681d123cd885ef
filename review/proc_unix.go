//go:build !windows

package review

import (
	"os/exec"
	"syscall"
)

// killGroup starts the command in a process group of its own and makes
// cancelling it kill the whole group.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
