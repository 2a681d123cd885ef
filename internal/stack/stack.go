// Package stack prepares a goroutine's stack for deep work.
//
// A goroutine starts with a small stack (the runtime's running average of
// stack sizes, which a server's many idle connection goroutines keep at a
// few KiB) and doubles it whenever a call would run past its end, copying
// the stack and walking every frame's stack map each time. The go-sdk runs
// each request on a new goroutine, and a tool call reaches SQLite's virtual
// machine and the output check's recursion from there, so every call paid
// three or four such copies, each deeper than the last: 5 % of the server's
// CPU in the mix (docs/performance.md, round two, eighth pass).
package stack

// Grow makes the calling goroutine's stack at least 64 KiB at once, while
// it is still shallow and cheap to copy, so that the call chain that
// follows fits without growing again. It is for the start of a goroutine
// about to do deep work; the stack is freed with the goroutine.
func Grow() { reserve(at) }

// at is only read (0): an index the compiler cannot see through keeps it
// from dropping the array, and with it the frame that does the growing.
// Nothing is written outside the frame, so goroutines may call Grow at once.
var at int

// reserve's 32 KiB frame needs 32 KiB free below the caller's frames, which
// the runtime provides by doubling the stack to 64 KiB in one copy.
//
//go:noinline
func reserve(i int) byte {
	var frame [32 << 10]byte
	frame[i] = 1
	return frame[len(frame)-1-i]
}
