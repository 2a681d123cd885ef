package bench_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton/bench"
)

// TestSmoke runs the harness for a second over HTTP and checks that it
// reports, without errors. It asserts no timing: how many calls fit in the
// second depends on the machine.
func TestSmoke(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 4, Duration: time.Second, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Calls == 0 || rep.Errors != 0 || rep.Tools["claim_next"] == nil {
		t.Fatalf("report:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "calls/s") || !strings.Contains(out.String(), "P99") {
		t.Fatalf("report lacks throughput or percentiles:\n%s", out.String())
	}
}

// TestMix: with a call budget (not a time) every tool of the mix is called,
// however slow the machine.
func TestMix(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 1, Calls: 14, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Errors != 0 {
		t.Fatalf("report:\n%s", out.String())
	}
	for _, tool := range []string{"claim_next", "get_issue", "add_finding", "send_message", "read_messages", "search_learnings", "update_issue_status"} {
		if rep.Tools[tool] == nil || rep.Tools[tool].Calls == 0 || !strings.Contains(out.String(), tool) {
			t.Errorf("%s missing from the report:\n%s", tool, out.String())
		}
	}
}

// TestCallBudget: with --calls the run stops by itself after that many.
func TestCallBudget(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 3, Calls: 30, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// set_status opens each agent's work; the mix itself stops at 30 steps,
	// some of which are skipped when an agent holds no item.
	if rep.Calls > 30+3 || rep.Errors != 0 {
		t.Fatalf("%d calls, %d errors", rep.Calls, rep.Errors)
	}
}

// TestReadOnlyMix: the read-only mix calls each of its tools and nothing
// that writes (set_status, which opens each agent's work, aside).
func TestReadOnlyMix(t *testing.T) {
	rep, err := bench.Run(context.Background(), bench.Options{Agents: 2, Calls: 24, ReadOnly: true, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Errors != 0 {
		t.Fatalf("report:\n%s", out.String())
	}
	reads := []string{"get_issue", "get_issue_status", "task_list", "search_learnings", "list_threads", "list_agents"}
	for _, tool := range reads {
		if rep.Tools[tool] == nil || rep.Tools[tool].Calls == 0 {
			t.Errorf("%s missing from the report:\n%s", tool, out.String())
		}
	}
	for tool := range rep.Tools {
		if tool != "set_status" && !slices.Contains(reads, tool) {
			t.Errorf("the read-only mix called %s", tool)
		}
	}
}
