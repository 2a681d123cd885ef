package issues

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type getIn struct {
	IssueID string `json:"issue_id,omitempty" jsonschema:"Issue ID (defaults to current issue)."`
}

type findingView struct {
	ID        string   `json:"id" jsonschema:"Finding id."`
	Category  string   `json:"category" jsonschema:"test_result, code_pattern, architecture, bug or gap."`
	Summary   string   `json:"summary" jsonschema:"Short summary."`
	Details   string   `json:"details,omitempty" jsonschema:"Full details."`
	Files     []string `json:"files" jsonschema:"Related file paths."`
	CreatedBy string   `json:"created_by" jsonschema:"Who recorded it."`
	CreatedAt string   `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

type learningView struct {
	ID           string   `json:"id" jsonschema:"Learning id."`
	Pattern      string   `json:"pattern" jsonschema:"The reusable pattern."`
	Context      string   `json:"context,omitempty" jsonschema:"When and where it applies."`
	AppliesTo    []string `json:"applies_to" jsonschema:"Directory or file prefixes it is relevant to."`
	LearningType string   `json:"learning_type,omitempty" jsonschema:"convention, gotcha or pattern."`
	QualityScore int      `json:"quality_score" jsonschema:"0-100; new learnings start at 50."`
	Verified     bool     `json:"verified" jsonschema:"Whether a human verified it."`
	CreatedBy    string   `json:"created_by" jsonschema:"Who recorded it."`
	CreatedAt    string   `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

type commentView struct {
	ID        string `json:"id" jsonschema:"Comment id."`
	Content   string `json:"content" jsonschema:"Comment text."`
	CreatedBy string `json:"created_by" jsonschema:"Who wrote it."`
	CreatedAt string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
}

type getOut struct {
	ID          string         `json:"id" jsonschema:"Issue id."`
	Identifier  string         `json:"identifier" jsonschema:"Issue identifier (the same as id)."`
	Title       string         `json:"title" jsonschema:"Issue title."`
	Description string         `json:"description" jsonschema:"Issue description."`
	Status      string         `json:"status" jsonschema:"Current status."`
	Priority    int            `json:"priority" jsonschema:"1 urgent, 2 high, 3 medium, 4 low."`
	Labels      []string       `json:"labels" jsonschema:"Labels."`
	Assignee    string         `json:"assignee,omitempty" jsonschema:"Assignee, if any."`
	Project     string         `json:"project" jsonschema:"Project slug."`
	ParentID    string         `json:"parent_id,omitempty" jsonschema:"Parent issue, for a subtask."`
	DependsOn   []string       `json:"depends_on" jsonschema:"Issues this one depends on."`
	Subtasks    []string       `json:"subtasks" jsonschema:"Child issues."`
	Findings    []findingView  `json:"findings" jsonschema:"Findings, oldest first."`
	Learnings   []learningView `json:"learnings" jsonschema:"Learnings recorded on this issue, oldest first."`
	Comments    []commentView  `json:"comments" jsonschema:"Comments, oldest first."`
	CreatedAt   string         `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	UpdatedAt   string         `json:"updated_at" jsonschema:"ISO-8601 UTC timestamp."`
}

// GetIssue is get_issue.
var GetIssue = tool.New(tool.Definition[getIn, getOut]{
	Name:        "get_issue",
	Toolset:     Toolset,
	Description: "Get details of an issue: title, description, status, priority, findings, learnings and comments. Defaults to the currently assigned issue.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"issue_id": issueIDRule},
	Output:      tool.Rules{"priority": tool.Range(1, 4)},
	Execute: func(ctx context.Context, c *tool.Call, in getIn) (getOut, error) {
		it, err := session.Issue(ctx, c, in.IssueID)
		if err != nil {
			return getOut{}, err
		}
		out := getOut{ID: it.ID, Identifier: it.ID, Title: it.Title, Description: it.Description,
			Status: string(it.Status), Priority: priorityOut(it.Priority), Labels: nonNil(it.Labels),
			Assignee: it.Assignee, Project: it.Project, ParentID: it.ParentID,
			CreatedAt: baton.Timestamp(it.CreatedAt), UpdatedAt: baton.Timestamp(it.UpdatedAt)}
		if out.DependsOn, err = c.Tx.Dependencies(ctx, it.ID); err != nil {
			return out, err
		}
		if out.Subtasks, err = c.Tx.Children(ctx, it.ID); err != nil {
			return out, err
		}
		fs, err := c.Tx.Findings(ctx, it.ID, 0)
		if err != nil {
			return out, err
		}
		out.Findings = make([]findingView, 0, len(fs))
		for _, f := range fs {
			out.Findings = append(out.Findings, viewFinding(f))
		}
		ls, err := c.Tx.Learnings(ctx, it.ID)
		if err != nil {
			return out, err
		}
		out.Learnings = make([]learningView, 0, len(ls))
		for _, l := range ls {
			out.Learnings = append(out.Learnings, viewLearning(l))
		}
		cs, err := c.Tx.Comments(ctx, it.ID)
		if err != nil {
			return out, err
		}
		out.Comments = make([]commentView, 0, len(cs))
		for _, cm := range cs {
			out.Comments = append(out.Comments, commentView{ID: cm.ID, Content: cm.Body, CreatedBy: cm.CreatedBy, CreatedAt: baton.Timestamp(cm.CreatedAt)})
		}
		return out, nil
	},
})

func viewFinding(f *baton.Finding) findingView {
	return findingView{ID: f.ID, Category: f.Category, Summary: f.Summary, Details: f.Details,
		Files: nonNil(f.Files), CreatedBy: f.CreatedBy, CreatedAt: baton.Timestamp(f.CreatedAt)}
}

func viewLearning(l *baton.Learning) learningView {
	return learningView{ID: l.ID, Pattern: l.Pattern, Context: l.Context, AppliesTo: nonNil(l.AppliesTo),
		LearningType: l.Type, QualityScore: l.QualityScore, Verified: l.Verified, CreatedBy: l.CreatedBy,
		CreatedAt: baton.Timestamp(l.CreatedAt)}
}
