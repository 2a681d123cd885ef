//go:build !linux

package bench

import (
	"errors"
	"runtime"
	"time"
)

// errSplitOS is why --split cannot run here: pinning threads and reading
// another process's CPU time are done through Linux interfaces.
var errSplitOS = errors.New("--split needs Linux (it pins threads with sched_setaffinity and reads /proc), not " + runtime.GOOS)

// SplitSupported says why --split cannot run here: it needs Linux.
func SplitSupported() error { return errSplitOS }

func splitCPUs() (server, client int, err error) { return 0, 0, errSplitOS }

func pinProcess(int) (func(), error) { return nil, errSplitOS }

func startPinned(int, func() error) error { return errSplitOS }

func processCPU(int) (time.Duration, error) { return 0, errSplitOS }
