//go:build race

package browsertest

// raceEnabled builds the binary under test with the race detector when the
// tests themselves run with it.
const raceEnabled = true
