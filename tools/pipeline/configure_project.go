// Package pipeline holds configure_project: a project's review and
// pipeline settings (quality gates, sensitive paths, risk thresholds,
// worker and judge instructions), which PR records, gates and agents'
// prompts read. The same code serves `baton project configure`.
package pipeline

import (
	"context"
	"encoding/json"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "pipeline"

// GateInput is one gate of configure_project.
type GateInput struct {
	Command  string `json:"command" jsonschema:"Command to run, in the issue's worktree (e.g. go test ./...)."`
	Label    string `json:"label" jsonschema:"Human-readable label, unique in the project (e.g. Tests)."`
	Required bool   `json:"required" jsonschema:"Whether this gate must pass: a required gate that fails blocks the PR's approval."`
}

// ThresholdsInput are the risk thresholds configure_project sets; each
// one given replaces its stored value.
type ThresholdsInput struct {
	LowLines  *int `json:"lowLines,omitempty" jsonschema:"More changed lines (added + removed) than this is medium risk (default 20)."`
	HighLines *int `json:"highLines,omitempty" jsonschema:"More changed lines than this is high risk (default 100); must be above lowLines."`
	LowFiles  *int `json:"lowFiles,omitempty" jsonschema:"More changed files than this is medium risk (default 3)."`
	HighFiles *int `json:"highFiles,omitempty" jsonschema:"More changed files than this is high risk (default 8); must be above lowFiles."`
}

// ConfigureInput is configure_project's input. Each field given replaces
// the stored value; a field left out keeps it; an empty list clears.
type ConfigureInput struct {
	Gates              *[]GateInput     `json:"gates,omitempty" jsonschema:"Quality gate commands; replaces the stored gates ([] removes them all)."`
	SensitivePaths     *[]string        `json:"sensitive_paths,omitempty" jsonschema:"Glob patterns for sensitive files (a PR touching one is high risk); replaces the stored list, [] clears it. ** spans directories; a pattern without / matches at any depth."`
	RiskThresholds     *ThresholdsInput `json:"risk_thresholds,omitempty" jsonschema:"Risk scoring thresholds; each one given replaces its stored value."`
	WorkerInstructions *string          `json:"worker_instructions,omitempty" jsonschema:"Custom instructions for workers (shown to them in get_issue); \"\" clears them."`
	JudgeInstructions  *string          `json:"judge_instructions,omitempty" jsonschema:"Custom instructions for judges (shown to them in get_issue); \"\" clears them."`
	Project            string           `json:"project,omitempty" jsonschema:"Project slug; defaults to the session's project."`
}

// Patch is the change the input asks for.
func (in ConfigureInput) Patch() baton.ProjectConfigPatch {
	var p baton.ProjectConfigPatch
	if in.Gates != nil {
		gates := make([]baton.Gate, len(*in.Gates))
		for i, g := range *in.Gates {
			gates[i] = baton.Gate{Command: g.Command, Label: g.Label, Required: g.Required}
		}
		p.Gates = &gates
	}
	p.SensitivePaths = in.SensitivePaths
	if t := in.RiskThresholds; t != nil {
		p.RiskThresholds = &baton.RiskThresholdsPatch{LowLines: t.LowLines, HighLines: t.HighLines, LowFiles: t.LowFiles, HighFiles: t.HighFiles}
	}
	p.WorkerInstructions = in.WorkerInstructions
	p.JudgeInstructions = in.JudgeInstructions
	return p
}

// GateView is a configured gate as tools and the CLI show it.
type GateView struct {
	Command  string `json:"command" jsonschema:"Command to run."`
	Label    string `json:"label" jsonschema:"Human-readable label."`
	Required bool   `json:"required" jsonschema:"Whether this gate must pass."`
}

// ThresholdsView are the risk thresholds in force.
type ThresholdsView struct {
	LowLines  int `json:"lowLines" jsonschema:"More changed lines than this is medium risk."`
	HighLines int `json:"highLines" jsonschema:"More changed lines than this is high risk."`
	LowFiles  int `json:"lowFiles" jsonschema:"More changed files than this is medium risk."`
	HighFiles int `json:"highFiles" jsonschema:"More changed files than this is high risk."`
}

// ConfigView is a project's configuration as tools and the CLI show it.
type ConfigView struct {
	Project            string         `json:"project" jsonschema:"Project slug."`
	Version            int64          `json:"version" jsonschema:"Configuration version: 1 for the first configuration, one more for each change; 0 for a project never configured (the defaults)."`
	Gates              []GateView     `json:"gates" jsonschema:"Quality gates run on every PR of the project."`
	SensitivePaths     []string       `json:"sensitive_paths" jsonschema:"Glob patterns of sensitive files: a PR touching one is high risk."`
	RiskThresholds     ThresholdsView `json:"risk_thresholds" jsonschema:"Risk scoring thresholds."`
	WorkerInstructions string         `json:"worker_instructions" jsonschema:"Custom instructions for workers."`
	JudgeInstructions  string         `json:"judge_instructions" jsonschema:"Custom instructions for judges."`
	UpdatedBy          string         `json:"updated_by,omitempty" jsonschema:"Who made this version; absent for the defaults."`
	UpdatedAt          string         `json:"updated_at,omitempty" jsonschema:"ISO-8601 UTC time of this version; absent for the defaults."`
}

// View renders a configuration.
func View(c *baton.ProjectConfig) ConfigView {
	v := ConfigView{Project: c.Project, Version: c.Version, Gates: make([]GateView, len(c.Gates)),
		SensitivePaths: append([]string{}, c.SensitivePaths...),
		RiskThresholds: ThresholdsView{LowLines: c.RiskThresholds.LowLines, HighLines: c.RiskThresholds.HighLines,
			LowFiles: c.RiskThresholds.LowFiles, HighFiles: c.RiskThresholds.HighFiles},
		WorkerInstructions: c.WorkerInstructions, JudgeInstructions: c.JudgeInstructions, UpdatedBy: c.UpdatedBy}
	for i, g := range c.Gates {
		v.Gates[i] = GateView(g)
	}
	if !c.UpdatedAt.IsZero() {
		v.UpdatedAt = baton.Timestamp(c.UpdatedAt)
	}
	return v
}

// Configure applies a patch to the project's configuration as by at and
// stores the result as a new version, unless it changes nothing: then the
// version in force comes back and changed is false. Validation failures
// (ERR_CONFIG_INVALID) leave the configuration as it was.
func Configure(ctx context.Context, tx baton.Tx, project string, p baton.ProjectConfigPatch, by string, at time.Time) (cfg *baton.ProjectConfig, changed bool, err error) {
	cur, err := tx.ProjectConfig(ctx, project)
	if err != nil {
		return nil, false, err
	}
	next := cur.Apply(p)
	if err := next.Validate(); err != nil {
		return nil, false, err
	}
	if cur.Version > 0 && next.SameSettings(cur) {
		return cur, false, nil
	}
	next.UpdatedBy, next.UpdatedAt = by, at
	if err := tx.PutProjectConfig(ctx, next); err != nil {
		return nil, false, err
	}
	return next, true, nil
}

// ConfigureOutput is configure_project's output: the full resulting
// configuration and whether the call changed it.
type ConfigureOutput struct {
	ConfigView
	Changed bool `json:"changed" jsonschema:"Whether this call made a new version; false when it asked for what was already in force."`
}

// Event is the event a configuration change publishes.
const Event = "project.configured"

// Limits of configure_project's input.
var (
	gateCommandRule  = tool.Length(1, 2000).NonBlank()
	gateLabelRule    = tool.Length(1, 64).NonBlank()
	instructionsRule = tool.MaxLen(8000)
	thresholdRule    = tool.Range(0, 1_000_000)
)

// ConfigureProject is configure_project.
var ConfigureProject = tool.New(tool.Definition[ConfigureInput, ConfigureOutput]{
	Name:    "configure_project",
	Event:   Event,
	Toolset: Toolset,
	Description: "Configure project settings: quality gates, sensitive paths, risk thresholds, worker and judge instructions. " +
		"Each field given replaces the stored value, fields left out are kept, [] clears a list; every change is a new version. " +
		"Returns the full resulting settings. Used by the setup wizard (the operator), not by agent profiles: granted explicitly.",
	// Settings decide what blocks approval and what counts as risky: an
	// agent under review must not loosen them, so no profile has the tool
	// unless the operator grants it (Symphony: "used by the setup wizard,
	// not by any agent profile").
	Annotations: tool.Annotations{Privileged: true, Idempotent: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"gates":                     tool.List(20, tool.Field{}),
		"gates.command":             gateCommandRule,
		"gates.label":               gateLabelRule,
		"sensitive_paths":           tool.List(50, tool.Length(1, 256).NonBlank()),
		"risk_thresholds.lowLines":  thresholdRule,
		"risk_thresholds.highLines": thresholdRule,
		"risk_thresholds.lowFiles":  thresholdRule,
		"risk_thresholds.highFiles": thresholdRule,
		"worker_instructions":       instructionsRule,
		"judge_instructions":        instructionsRule,
		"project":                   tool.Length(1, 63),
	},
	Execute: func(ctx context.Context, c *tool.Call, in ConfigureInput) (ConfigureOutput, error) {
		p, err := session.Project(ctx, c, in.Project)
		if err != nil {
			return ConfigureOutput{}, err
		}
		patch := in.Patch()
		if patch.Empty() {
			return ConfigureOutput{}, baton.Errorf(baton.ErrInvalidInput, "nothing to configure: no setting given").
				WithDetails("field", "arguments", "constraint", "min_properties").
				WithHint("pass at least one of gates, sensitive_paths, risk_thresholds, worker_instructions, judge_instructions; baton project show prints the current settings")
		}
		cfg, changed, err := Configure(ctx, c.Tx, p.Slug, patch, c.Principal.Agent, c.Now)
		if err != nil {
			return ConfigureOutput{}, err
		}
		out := ConfigureOutput{ConfigView: View(cfg), Changed: changed}
		// The call's event joins the session's project; a session that
		// configures another project tells that project's watchers too.
		if elsewhere(ctx, c, p.Slug) {
			data, err := json.Marshal(out)
			if err != nil {
				return ConfigureOutput{}, err
			}
			if err := c.Tx.AppendEvent(ctx, &baton.Event{Project: p.Slug, Type: Event, Subject: c.Principal.IssueID,
				Agent: c.Principal.Agent, Data: data, At: c.Now}); err != nil {
				return ConfigureOutput{}, err
			}
		}
		return out, nil
	},
})

// elsewhere reports whether the pipeline's own event of the call goes to
// another project's stream than project: the stream of the session's bound
// issue, else of its project, else of the only project.
func elsewhere(ctx context.Context, c *tool.Call, project string) bool {
	if c.Principal.IssueID != "" {
		if it, err := c.Tx.Item(ctx, c.Principal.IssueID); err == nil {
			return it.Project != project
		}
	}
	if c.Principal.Project != "" {
		return c.Principal.Project != project
	}
	ps, err := c.Tx.Projects(ctx)
	return err != nil || len(ps) != 1
}
