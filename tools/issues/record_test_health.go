package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/number"
	"github.com/baton-dev/baton/tools/session"
)

type testHealthIn struct {
	IssueID          string   `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
	TestCount        float64  `json:"test_count" jsonschema:"Total number of test cases after this run."`
	TestFilesChanged *float64 `json:"test_files_changed,omitempty" jsonschema:"Number of test files modified in this run."`
	TestsAdded       *float64 `json:"tests_added,omitempty" jsonschema:"Number of new test cases added."`
	TestsRemoved     *float64 `json:"tests_removed,omitempty" jsonschema:"Number of test cases removed or consolidated."`
	ExecutionTimeMS  *float64 `json:"execution_time_ms,omitempty" jsonschema:"Test suite execution duration in milliseconds."`
}

type testHealthOut struct {
	Recorded  bool   `json:"recorded" jsonschema:"Always true on success."`
	IssueID   string `json:"issue_id" jsonschema:"The issue."`
	TestCount int    `json:"test_count" jsonschema:"The count recorded."`
	CreatedAt string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

// RecordTestHealth is record_test_health.
var RecordTestHealth = tool.New(tool.Definition[testHealthIn, testHealthOut]{
	Name:        "record_test_health",
	Event:       "test_health.recorded",
	Toolset:     Toolset,
	Description: "Record test health metrics after running tests, to track test count trends and detect test bloat.",
	Profiles:    []string{"worker"},
	Input: tool.Rules{
		"issue_id":           issueIDRule,
		"test_count":         tool.Range(0, 10_000_000),
		"test_files_changed": tool.Range(0, 1_000_000),
		"tests_added":        tool.Range(0, 10_000_000),
		"tests_removed":      tool.Range(0, 10_000_000),
		"execution_time_ms":  tool.Range(0, 86_400_000),
	},
	Execute: func(ctx context.Context, c *tool.Call, in testHealthIn) (testHealthOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return testHealthOut{}, err
		}
		h := &baton.TestHealth{ItemID: it.ID, Agent: c.Principal.Agent, TestCount: number.Whole(in.TestCount),
			TestFilesChanged: whole(in.TestFilesChanged), TestsAdded: whole(in.TestsAdded), TestsRemoved: whole(in.TestsRemoved),
			CreatedAt: c.Now}
		if in.ExecutionTimeMS != nil {
			ms := int64(number.Whole(*in.ExecutionTimeMS))
			h.ExecutionTimeMS = &ms
		}
		if err := c.Tx.RecordTestHealth(ctx, h); err != nil {
			return testHealthOut{}, err
		}
		return testHealthOut{Recorded: true, IssueID: it.ID, TestCount: h.TestCount, CreatedAt: baton.Timestamp(c.Now)}, nil
	},
})

// whole reads an optional count the catalogue types as a number.
func whole(f *float64) *int {
	if f == nil {
		return nil
	}
	n := number.Whole(*f)
	return &n
}
