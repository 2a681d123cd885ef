//go:build unix

package bench

import (
	"syscall"
	"time"
)

// selfCPU is the user plus system CPU time this process has used; ok is
// false where the system cannot say.
func selfCPU() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
