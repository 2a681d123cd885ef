//go:build unix

package dispatch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// killOrphan kills what is left of an agent whose dispatcher died: the
// processes of its group (the agent itself may be gone, killed by its
// parent-death signal, while what it started lives on). It kills them only
// once one of them is sure to be the run's: its environment names the run
// (pids are reused). Where /proc is not there to tell, they are left alone;
// their claim is gone and fenced, so their writes are refused anyway.
func killOrphan(pgid int, runID string) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	marker := []byte("\x00BATON_RUN_ID=" + runID + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || processGroup(pid) != pgid {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err == nil && bytes.Contains(append([]byte{0}, env...), marker) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
	}
}

// processGroup is a process's group id from /proc/PID/stat, -1 when unknown.
func processGroup(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 3 {
		return -1
	}
	g, err := strconv.Atoi(fields[2])
	if err != nil {
		return -1
	}
	return g
}

// processAlive reports whether a process with the pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
