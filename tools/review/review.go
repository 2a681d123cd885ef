// Package review holds Symphony's PR tools: create_pr records a PR built
// from the issue's branch in git, approve_pr and reject_pr are a judge's
// verdict on it. The machinery is the review package at the root, which
// the CLI and the orchestrator share.
package review

import (
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "review"

// maxFilesShown is how many files a tool's output lists; `baton pr show`
// lists them all.
const maxFilesShown = 100

var issueIDRule = tool.Length(1, 128)

type fileView struct {
	Path    string `json:"path" jsonschema:"The file's path after the change (before it, for a deletion)."`
	OldPath string `json:"old_path,omitempty" jsonschema:"Its path before a rename or copy."`
	Status  string `json:"status" jsonschema:"added, modified, deleted, renamed, copied or type_changed."`
	Added   int    `json:"added" jsonschema:"Lines added (0 for a binary file)."`
	Removed int    `json:"removed" jsonschema:"Lines removed (0 for a binary file)."`
	Binary  bool   `json:"binary" jsonschema:"Whether git sees the file as binary."`
}

type gateView struct {
	Command  string `json:"command" jsonschema:"Command that was run."`
	Label    string `json:"label" jsonschema:"Human-readable label."`
	ExitCode int    `json:"exit_code" jsonschema:"Exit code (0 = pass)."`
	Output   string `json:"output" jsonschema:"The end of the command's output, trimmed."`
	Required bool   `json:"required" jsonschema:"Whether this gate must pass before the PR can be approved."`
	Source   string `json:"source" jsonschema:"reported (passed to create_pr), run (baton ran the command in the worktree) or not_run (a required gate of the project nobody reported: it blocks approval)."`
	TimedOut bool   `json:"timed_out,omitempty" jsonschema:"The command was stopped at its time limit."`
}

type riskView struct {
	Level          string   `json:"level" jsonschema:"low, medium or high."`
	LinesChanged   int      `json:"lines_changed" jsonschema:"Lines added plus removed, over all files."`
	FilesChanged   int      `json:"files_changed" jsonschema:"Files changed."`
	SensitiveFiles []string `json:"sensitive_files" jsonschema:"Changed files matching a sensitive path."`
	Reasons        []string `json:"reasons" jsonschema:"Why the PR has its level, against the project's thresholds and sensitive paths."`
	ConfigVersion  int64    `json:"config_version" jsonschema:"Version of the project's configuration the score was computed with (0: the defaults)."`
}

var (
	prStatusRule = tool.Enum(string(baton.PROpen), string(baton.PRApproved), string(baton.PRRejected),
		string(baton.PRSuperseded), string(baton.PRMerged))
	riskRule = tool.Enum(baton.RiskLow, baton.RiskMedium, baton.RiskHigh)
)

func viewFiles(fs []baton.FileStat) ([]fileView, int) {
	out := make([]fileView, 0, min(len(fs), maxFilesShown))
	for i, f := range fs {
		if i == maxFilesShown {
			break
		}
		out = append(out, fileView(f))
	}
	return out, len(fs) - len(out)
}

func viewGates(gs []baton.GateResult) []gateView {
	out := make([]gateView, 0, len(gs))
	for _, g := range gs {
		out = append(out, gateView{Command: g.Command, Label: g.Label, ExitCode: g.ExitCode, Output: g.Output,
			Required: g.Required, Source: g.Source, TimedOut: g.TimedOut})
	}
	return out
}

func viewRisk(r baton.RiskScore) riskView { return riskView(r) }

func labels(gs []baton.GateResult) []string {
	out := make([]string, 0, len(gs))
	for _, g := range gs {
		out = append(out, g.Label)
	}
	return out
}
