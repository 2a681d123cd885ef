//go:build windows

package review

import "os/exec"

// killGroup leaves the default: cancelling kills the command itself.
func killGroup(cmd *exec.Cmd) {}
