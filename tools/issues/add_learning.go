package issues

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

// The quality gates of add_learning.
const (
	minPattern = 50
	minContext = 100
	// initialQuality is every new learning's quality_score.
	initialQuality = 50
)

type learningIn struct {
	IssueID      string   `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
	Pattern      string   `json:"pattern" jsonschema:"Descriptive pattern (min 50 chars). Start with the subject."`
	Context      string   `json:"context,omitempty" jsonschema:"When/where this applies (min 100 chars if provided)."`
	AppliesTo    []string `json:"applies_to,omitempty" jsonschema:"Directory/file prefixes for relevance matching."`
	LearningType string   `json:"learning_type,omitempty" jsonschema:"convention, gotcha, or pattern."`
}

type learningOut struct {
	LearningID   string `json:"learning_id" jsonschema:"The new learning's id."`
	IssueID      string `json:"issue_id" jsonschema:"The issue it was learned on."`
	QualityScore int    `json:"quality_score" jsonschema:"Starts at 50."`
	CreatedAt    string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

// AddLearning is add_learning.
var AddLearning = tool.New(tool.Definition[learningIn, learningOut]{
	Name:    "add_learning",
	Event:   "learning.added",
	Toolset: Toolset,
	Description: "Record a reusable pattern or gotcha for future agents. Quality gates: pattern at least 50 characters, " +
		"context at least 100 when given, and no duplicate of a pattern already on the issue (compared after normalising case, punctuation and spacing).",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"issue_id":      issueIDRule,
		"pattern":       tool.Length(minPattern, 2000),
		"context":       tool.Length(minContext, 5000),
		"applies_to":    tool.List(50, tool.Length(1, 512).NonBlank()),
		"learning_type": tool.Enum(baton.LearningTypes...),
	},
	Execute: func(ctx context.Context, c *tool.Call, in learningIn) (learningOut, error) {
		// Length counts what is written, not padding around it.
		if n := len([]rune(strings.TrimSpace(in.Pattern))); n < minPattern {
			return learningOut{}, gate("pattern", minPattern, n)
		}
		if n := len([]rune(strings.TrimSpace(in.Context))); in.Context != "" && n < minContext {
			return learningOut{}, gate("context", minContext, n)
		}
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return learningOut{}, err
		}
		l := &baton.Learning{ItemID: it.ID, Project: it.Project, Pattern: strings.TrimSpace(in.Pattern),
			Context: strings.TrimSpace(in.Context), AppliesTo: nonNil(in.AppliesTo), Type: in.LearningType,
			QualityScore: initialQuality, CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
		if err := c.Tx.AddLearning(ctx, l); err != nil {
			return learningOut{}, err
		}
		return learningOut{LearningID: l.ID, IssueID: it.ID, QualityScore: l.QualityScore, CreatedAt: baton.Timestamp(l.CreatedAt)}, nil
	},
})

func gate(field string, min, got int) *baton.Error {
	return baton.Errorf(baton.ErrInvalidInput, "%s must be at least %d characters without surrounding spaces (got %d)", field, min, got).
		WithDetails("field", field, "constraint", "minLength", "limit", min).
		WithHint("say more: name the subject, what to do and why, so a future agent can act on it")
}
