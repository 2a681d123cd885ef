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
	ps := NewParser(now)
	var events []baton.RunEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	for sc.Scan() {
		events = append(events, ps.Line(sc.Bytes())...)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the stream: %w", err)
	}
	p := &Parsed{Run: ps.Run(), Events: events, Skipped: ps.Skipped}
	if !ps.SawResult {
		p.Run.Status, p.Run.Error = baton.RunFailed, "the stream ended without a result line (interrupted run)"
	}
	if p.Run.DurationMS > 0 {
		p.Run.StartedAt = now.Add(-time.Duration(p.Run.DurationMS) * time.Millisecond)
	}
	return p, nil
}

// Parser reads a stream one line at a time, for a caller that stores
// events while the agent still runs (baton dispatch).
type Parser struct {
	now func() time.Time
	run baton.Run
	// SawResult says a result line came: the run's outcome is its.
	SawResult bool
	// Skipped counts lines that were not JSON objects with a type.
	Skipped int
}

// NewParser starts a parser whose events are stamped now.
func NewParser(now time.Time) *Parser {
	return &Parser{now: func() time.Time { return now }, run: baton.Run{StartedAt: now, EndedAt: now}}
}

// NewLiveParser starts a parser whose events are stamped with clock's
// time as each line is read.
func NewLiveParser(clock func() time.Time) *Parser {
	now := clock()
	return &Parser{now: clock, run: baton.Run{StartedAt: now, EndedAt: now}}
}

// Run is what the lines so far say of the run: model, and once the result
// line has come, status, error, cost, duration and turns.
func (p *Parser) Run() baton.Run { return p.run }

// Line reads one line and returns its events (none for a blank line or
// one that is not a JSON object with a type, which Skipped counts).
func (p *Parser) Line(b []byte) []baton.RunEvent {
	raw := strings.TrimSpace(string(b))
	if raw == "" {
		return nil
	}
	var l line
	if err := json.Unmarshal([]byte(raw), &l); err != nil || l.Type == "" {
		p.Skipped++
		return nil
	}
	now := p.now()
	var out []baton.RunEvent
	add := func(subtype string, data []byte) {
		out = append(out, baton.RunEvent{Type: l.Type, Subtype: subtype, Data: json.RawMessage(data), CreatedAt: now})
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
		if l.Message.Model != "" && p.run.Model == "" {
			p.run.Model = l.Message.Model
		}
	default:
		add(l.Subtype, []byte(raw))
	}
	switch l.Type {
	case "system":
		if l.Subtype == "init" && l.Model != "" {
			p.run.Model = l.Model
		}
	case "result":
		p.SawResult = true
		p.run.DurationMS, p.run.NumTurns = l.DurationMS, l.NumTurns
		if l.TotalCostUSD != nil {
			p.run.CostUSD = *l.TotalCostUSD
		} else if l.CostUSD != nil {
			p.run.CostUSD = *l.CostUSD
		}
		if l.Subtype == "success" && !l.IsError {
			p.run.Status, p.run.Error = baton.RunSucceeded, ""
		} else {
			p.run.Status = baton.RunFailed
			p.run.Error = l.Subtype
			if l.IsError && l.Result != "" {
				p.run.Error = l.Result
			}
			if p.run.Error == "" {
				p.run.Error = "the agent reported an error"
			}
		}
	}
	return out
}
