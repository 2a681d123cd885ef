package issues

import (
	"context"
	"encoding/json"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
)

type eventsIn struct {
	IssueID      string  `json:"issue_id,omitempty" jsonschema:"Return events across all runs for this issue."`
	RunID        string  `json:"run_id,omitempty" jsonschema:"Return events for a specific agent run."`
	EventType    string  `json:"event_type,omitempty" jsonschema:"Filter by event type."`
	EventSubtype string  `json:"event_subtype,omitempty" jsonschema:"Filter by subtype, e.g. init, thinking, text, tool_use, tool_result."`
	Limit        float64 `json:"limit,omitempty" jsonschema:"Max results (default 100, max 500)."`
	Offset       float64 `json:"offset,omitempty" jsonschema:"Pagination offset."`
}

type eventView struct {
	RunID     string         `json:"run_id" jsonschema:"The run."`
	Seq       int            `json:"seq" jsonschema:"Position in the run's stream, from 1."`
	Type      string         `json:"type" jsonschema:"Event type."`
	Subtype   string         `json:"subtype" jsonschema:"Event subtype."`
	Data      map[string]any `json:"data" jsonschema:"The stream-json line as the agent wrote it."`
	CreatedAt string         `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

type eventsOut struct {
	Events     []eventView `json:"events" jsonschema:"Matching events, by run then stream order."`
	Count      int         `json:"count" jsonschema:"Events returned."`
	TotalCount int         `json:"total_count" jsonschema:"All matching events."`
	Offset     int         `json:"offset" jsonschema:"Offset of this page."`
	Limit      int         `json:"limit" jsonschema:"Page size used."`
}

// QueryRunEvents is query_run_events.
var QueryRunEvents = tool.New(tool.Definition[eventsIn, eventsOut]{
	Name:    "query_run_events",
	Toolset: Toolset,
	Description: "Query structured agent stream events for reasoning traceability: filter by run_id for one run, or issue_id for all runs on an issue " +
		"(one of them is required), and by event type and subtype.",
	Profiles:    []string{"judge", "researcher", "architect"},
	Annotations: tool.Annotations{ReadOnly: true},
	Input: tool.Rules{
		"issue_id":      issueIDRule,
		"run_id":        tool.Length(1, 128),
		"event_type":    tool.Enum("system", "assistant", "user", "result", "rate_limit_event"),
		"event_subtype": tool.Length(1, 64),
		"limit":         tool.Range(1, 500).WithDefault(100),
		"offset":        tool.Min(0).WithDefault(0),
	},
	Execute: func(ctx context.Context, c *tool.Call, in eventsIn) (eventsOut, error) {
		if in.RunID == "" && in.IssueID == "" {
			return eventsOut{}, baton.Errorf(baton.ErrInvalidInput, "either run_id or issue_id is required").
				WithDetails("field", "run_id", "constraint", "required").
				WithHint("pass run_id for one run, or issue_id for all runs on an issue (get_issue_status lists recent runs)")
		}
		if in.IssueID != "" {
			it, err := c.Tx.Item(ctx, in.IssueID)
			if err != nil {
				return eventsOut{}, err
			}
			in.IssueID = it.ID // the current id, when it was named by an old one
		}
		limit, offset := number.AtMost(in.Limit), number.AtMost(in.Offset)
		evs, total, err := c.Tx.RunEvents(ctx, baton.RunEventFilter{RunID: in.RunID, ItemID: in.IssueID,
			Type: in.EventType, Subtype: in.EventSubtype, Limit: limit, Offset: offset})
		if err != nil {
			return eventsOut{}, err
		}
		out := eventsOut{Events: make([]eventView, 0, len(evs)), TotalCount: total, Offset: offset, Limit: limit}
		for _, e := range evs {
			v := eventView{RunID: e.RunID, Seq: e.Seq, Type: e.Type, Subtype: e.Subtype, CreatedAt: baton.Timestamp(e.CreatedAt)}
			if json.Unmarshal(e.Data, &v.Data) != nil || v.Data == nil {
				v.Data = map[string]any{"raw": string(e.Data)}
			}
			out.Events = append(out.Events, v)
		}
		out.Count = len(out.Events)
		return out, nil
	},
})
