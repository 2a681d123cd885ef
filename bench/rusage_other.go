//go:build !unix

package bench

import "time"

// selfCPU is the user plus system CPU time this process has used; ok is
// false where the system cannot say, as here.
func selfCPU() (time.Duration, bool) { return 0, false }
