// Package runs reads an agent's stream-json output (Claude Code's
// --output-format stream-json) into a run and its events.
package runs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// MaxLine bounds one stream line; tool results can be large.
const MaxLine = 64 << 20

// Parsed is a run read from a stream, ready to store.
type Parsed struct {
	Run    baton.Run
	Events []baton.RunEvent
	// Skipped counts lines that were not JSON objects; they are reported,
	// never fatal, since an interrupted agent may leave half a line.
	Skipped int
}

type line struct {
	Type         string          `json:"type"`
	Subtype      string          `json:"subtype"`
	Model        string          `json:"model"`
	IsError      bool            `json:"is_error"`
	Result       string          `json:"result"`
	DurationMS   int64           `json:"duration_ms"`
	NumTurns     int             `json:"num_turns"`
	TotalCostUSD *float64        `json:"total_cost_usd"`
	CostUSD      *float64        `json:"cost_usd"`
	Message      *message        `json:"message"`
	Raw          json.RawMessage `json:"-"`
}

type message struct {
	ID      string            `json:"id"`
	Model   string            `json:"model"`
	Content []json.RawMessage `json:"content"`
}

// Parse reads every line of r. Assistant and user messages become one
// event per content block, typed by the block (text, thinking, tool_use,
// tool_result), so a trace can be filtered by what the agent did; other
// lines are one event each. The result line decides the run's outcome; a
// stream without one is a failed (interrupted) run.
func Parse(r io.Reader, now time.Time) (*Parsed, error) {
	p := &Parsed{Run: baton.Run{Status: "failed", Error: "the stream ended without a result line (interrupted run)",
		StartedAt: now, EndedAt: now}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	for sc.Scan() {
		raw := strings.TrimSpace(sc.Text())
		if raw == "" {
			continue
		}
		var l line
		if err := json.Unmarshal([]byte(raw), &l); err != nil || l.Type == "" {
			p.Skipped++
			continue
		}
		add := func(subtype string, data []byte) {
			p.Events = append(p.Events, baton.RunEvent{Type: l.Type, Subtype: subtype, Data: json.RawMessage(data), CreatedAt: now})
		}
		switch {
		case (l.Type == "assistant" || l.Type == "user") && l.Message != nil && len(l.Message.Content) > 0:
			for _, block := range l.Message.Content {
				var b struct {
					Type string `json:"type"`
				}
				_ = json.Unmarshal(block, &b)
				add(b.Type, block)
			}
			if l.Message.Model != "" && p.Run.Model == "" {
				p.Run.Model = l.Message.Model
			}
		default:
			add(l.Subtype, []byte(raw))
		}
		switch l.Type {
		case "system":
			if l.Subtype == "init" && l.Model != "" {
				p.Run.Model = l.Model
			}
		case "result":
			p.Run.DurationMS, p.Run.NumTurns = l.DurationMS, l.NumTurns
			if l.TotalCostUSD != nil {
				p.Run.CostUSD = *l.TotalCostUSD
			} else if l.CostUSD != nil {
				p.Run.CostUSD = *l.CostUSD
			}
			if l.Subtype == "success" && !l.IsError {
				p.Run.Status, p.Run.Error = "succeeded", ""
			} else {
				p.Run.Status = "failed"
				p.Run.Error = l.Subtype
				if l.IsError && l.Result != "" {
					p.Run.Error = l.Result
				}
				if p.Run.Error == "" {
					p.Run.Error = "the agent reported an error"
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the stream: %w", err)
	}
	if p.Run.DurationMS > 0 {
		p.Run.StartedAt = now.Add(-time.Duration(p.Run.DurationMS) * time.Millisecond)
	}
	return p, nil
}
