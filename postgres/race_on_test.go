//go:build race

package postgres_test

// raceEnabled runs the tool suites under the race detector when these
// tests run with it.
const raceEnabled = true
