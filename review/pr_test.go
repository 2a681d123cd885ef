package review_test

import (
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
)

// TestMergeGatesRunReplacesReported: a gate baton ran replaces the
// reported result of the same label or command; others stay, in order.
func TestMergeGatesRunReplacesReported(t *testing.T) {
	old := []baton.GateResult{
		{Label: "Tests", Command: "npm test", Source: "reported"},
		{Label: "Build", Command: "make", Source: "reported"},
		{Label: "Lint", Command: "eslint .", Source: "reported"},
	}
	ran := []baton.GateResult{{Label: "Tests", Command: "go test ./...", Source: "run"}, {Label: "Linter", Command: "eslint .", Source: "run"}}
	var got []string
	for _, g := range review.MergeGates(old, ran) {
		got = append(got, g.Label+"/"+g.Source)
	}
	if want := []string{"Build/reported", "Tests/run", "Linter/run"}; !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
}

// TestBlockingGates: a required gate that failed or timed out blocks; an
// optional one never does.
func TestBlockingGates(t *testing.T) {
	gs := []baton.GateResult{
		{Label: "pass", Required: true},
		{Label: "fail", Required: true, ExitCode: 1},
		{Label: "timeout", Required: true, ExitCode: 124, TimedOut: true},
		{Label: "optional", ExitCode: 2},
	}
	var got []string
	for _, g := range review.Blocking(gs) {
		got = append(got, g.Label)
	}
	if !slices.Equal(got, []string{"fail", "timeout"}) {
		t.Fatalf("blocking %v", got)
	}
}

// TestGateVerdict: the orchestrator's rejection quotes each failed
// required gate; with none failed there is no verdict.
func TestGateVerdict(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &baton.PR{Gates: []baton.GateResult{
		{Label: "Tests", Command: "go test ./...", Required: true, ExitCode: 1, Output: "--- FAIL: TestX"},
		{Label: "Vet", Command: "go vet ./...", Required: true, ExitCode: 2},
		{Label: "Style", Command: "gofmt -l .", ExitCode: 1, Output: "x.go"},
	}}
	v, ok := review.GateVerdict(p, "orchestrator", now)
	want := "Make the Tests gate pass: `go test ./...` exited 1:\n--- FAIL: TestX\n\nMake the Vet gate pass: `go vet ./...` exited 2"
	if !ok || v.Approve || v.Reason != "required gate Tests, Vet failed" || v.FixInstructions != want ||
		v.Reviewer != "orchestrator" || !v.Now.Equal(now) {
		t.Fatalf("verdict %+v", v)
	}
	p.Gates = p.Gates[2:]
	if _, ok := review.GateVerdict(p, "orchestrator", now); ok {
		t.Fatal("a verdict with only an optional gate failed")
	}
}
