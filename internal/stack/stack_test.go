package stack

import (
	"runtime"
	"sync"
	"testing"
)

// stackInUse is the bytes of goroutine stacks in use once n goroutines have
// each run prepare and are parked.
func stackInUse(t *testing.T, n int, prepare func()) uint64 {
	t.Helper()
	var ready, parked sync.WaitGroup
	release := make(chan struct{})
	ready.Add(n)
	parked.Add(n)
	for range n {
		go func() {
			defer parked.Done()
			prepare()
			ready.Done()
			<-release
		}()
	}
	ready.Wait()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	close(release)
	parked.Wait()
	return m.StackInuse
}

// TestGrowEnlargesTheStack holds Grow to its word: goroutines that called
// it hold at least 32 KiB more stack each than goroutines that did not. It
// fails if the compiler ever drops the frame that does the growing.
func TestGrowEnlargesTheStack(t *testing.T) {
	const n = 32
	before := stackInUse(t, n, func() {})
	after := stackInUse(t, n, Grow)
	if after < before+n*(32<<10) {
		t.Fatalf("%d goroutines that called Grow hold %d bytes of stack, against %d without it: want at least %d more", n, after, before, n*(32<<10))
	}
}
