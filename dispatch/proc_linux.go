package dispatch

import "syscall"

// setDeathSignal has the kernel kill the agent if the dispatcher dies
// without stopping it (kill -9): the next dispatcher ends its run.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
