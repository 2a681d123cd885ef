package runs_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton/runs"
)

var now = time.Date(2026, 4, 8, 22, 15, 30, 0, time.UTC)

func TestParseSuccess(t *testing.T) {
	f, err := os.Open("testdata/success.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := runs.Parse(f, now)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Run
	if r.Status != "succeeded" || r.Error != "" || r.CostUSD != 0.0421 || r.DurationMS != 12345 || r.NumTurns != 3 ||
		r.Model != "claude-sonnet-4-5" || !r.StartedAt.Equal(now.Add(-12345*time.Millisecond)) {
		t.Fatalf("run = %+v", r)
	}
	var kinds []string
	for _, e := range p.Events {
		kinds = append(kinds, e.Type+"/"+e.Subtype)
	}
	want := "system/init assistant/thinking assistant/text assistant/tool_use user/tool_result rate_limit_event/ assistant/text result/success"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(string(p.Events[3].Data), `"name":"Bash"`) {
		t.Fatalf("tool_use event data = %s", p.Events[3].Data)
	}
}

func TestParseOutcomes(t *testing.T) {
	cases := []struct {
		name, stream, status, errText string
		skipped                       int
	}{
		{"error result", `{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":50,"total_cost_usd":1.5}`, "failed", "error_max_turns", 0},
		{"error with message", `{"type":"result","subtype":"error_during_execution","is_error":true,"result":"API overloaded"}`, "failed", "API overloaded", 0},
		{"interrupted", `{"type":"system","subtype":"init","model":"m"}` + "\n" + `{"type":"assistant","message":{"content":[{"type":"text","text":"wor`, "failed", "interrupted", 1},
		{"older cost field", `{"type":"result","subtype":"success","cost_usd":0.5}`, "succeeded", "", 0},
		{"garbage only", "not json\n[1,2]\n{}", "failed", "interrupted", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := runs.Parse(strings.NewReader(c.stream), now)
			if err != nil {
				t.Fatal(err)
			}
			if p.Run.Status != c.status || !strings.Contains(p.Run.Error, c.errText) || p.Skipped != c.skipped {
				t.Fatalf("run = %+v, skipped %d", p.Run, p.Skipped)
			}
		})
	}
}
