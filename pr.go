package baton

import (
	"context"
	"time"
)

// PRStatus is where a PR record is in its review.
type PRStatus string

// The statuses of a PR record. A PR opens as open; a judge approves or
// rejects it; a newer PR of the same issue supersedes any that is not
// merged; a human merges an approved one.
const (
	PROpen       PRStatus = "open"
	PRApproved   PRStatus = "approved"
	PRRejected   PRStatus = "rejected"
	PRSuperseded PRStatus = "superseded"
	PRMerged     PRStatus = "merged"
)

// PRStatuses lists every PR status.
var PRStatuses = []PRStatus{PROpen, PRApproved, PRRejected, PRSuperseded, PRMerged}

// Risk levels of a PR.
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// FileStat is what one file of a PR's diff changed.
type FileStat struct {
	Path    string `json:"path"`               // the path after the change (before it, for a deletion)
	OldPath string `json:"old_path,omitempty"` // the path before a rename or copy
	// Status is added, modified, deleted, renamed, copied or type_changed.
	Status  string `json:"status"`
	Added   int    `json:"added"`   // lines added; 0 for a binary file
	Removed int    `json:"removed"` // lines removed; 0 for a binary file
	Binary  bool   `json:"binary"`
}

// GateResult is the outcome of one quality gate on a PR.
type GateResult struct {
	Command  string `json:"command"`
	Label    string `json:"label"`
	ExitCode int    `json:"exit_code"` // 0 = pass
	Output   string `json:"output"`    // trimmed
	Required bool   `json:"required"`
	// Source is "reported" for results the agent passed to create_pr,
	// "run" for results of baton running the command itself, "not_run"
	// for a required gate nobody reported or ran (it has not passed).
	Source     string `json:"source"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	HeadSHA    string `json:"head_sha,omitempty"` // the commit a run gate tested
	RanAt      string `json:"ran_at,omitempty"`   // ISO-8601 UTC, for run gates
}

// Passed reports whether the gate passed.
func (g GateResult) Passed() bool { return g.ExitCode == 0 && !g.TimedOut }

// RiskScore is a PR's risk, computed when it is created from the project's
// thresholds and sensitive paths.
type RiskScore struct {
	Level          string   `json:"level"` // low, medium or high
	LinesChanged   int      `json:"lines_changed"`
	FilesChanged   int      `json:"files_changed"`
	SensitiveFiles []string `json:"sensitive_files"`
	Reasons        []string `json:"reasons"`
	// ConfigVersion is the version of the project's configuration the
	// score was computed with (0: the defaults).
	ConfigVersion int64 `json:"config_version"`
}

// PR is a local pull-request record: a snapshot of an issue's branch
// against its base, with gates, risk and the review's outcome.
type PR struct {
	ID         string
	ItemID     string
	Project    string // the item's project, read with the record
	BranchName string
	BaseBranch string
	BaseSHA    string // the merge base the diff starts from
	HeadSHA    string // the branch's commit the diff ends at
	Commits    int    // commits on the branch since the merge base
	// RepoDir is the directory git ran in (the worktree): where
	// the gates run. It is a server path and never shown to agents.
	RepoDir         string
	Diff            string
	DiffTruncated   bool
	Files           []FileStat
	Gates           []GateResult
	Risk            RiskScore
	Status          PRStatus
	Reason          string // the reviewer's reason
	FixInstructions string // what a rejection asks the worker to fix
	ReviewedBy      string
	ReviewedAt      time.Time // zero until reviewed
	CreatedBy       string
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// LinesAdded is the sum of the files' added lines.
func (p *PR) LinesAdded() int {
	n := 0
	for _, f := range p.Files {
		n += f.Added
	}
	return n
}

// LinesRemoved is the sum of the files' removed lines.
func (p *PR) LinesRemoved() int {
	n := 0
	for _, f := range p.Files {
		n += f.Removed
	}
	return n
}

// PRFilter selects PR records; zero values do not filter.
type PRFilter struct {
	Project  string
	ItemID   string
	Statuses []PRStatus
	Limit    int
}

// PRTx stores PR records.
type PRTx interface {
	// CreatePR stores p, assigning its id (PR-N) and, when unset, its
	// timestamps; the item must exist.
	CreatePR(ctx context.Context, p *PR) error
	// PR returns a record with its diff; ERR_NOT_FOUND (type pr_not_found)
	// for an unknown id.
	PR(ctx context.Context, id string) (*PR, error)
	// PRs returns matching records newest first, without their diffs.
	PRs(ctx context.Context, f PRFilter) ([]*PR, error)
	// UpdatePR writes a record's status, review, gates and UpdatedAt.
	UpdatePR(ctx context.Context, p *PR) error
}

// PRNotFound is the error for an unknown PR id.
func PRNotFound(id string) *Error {
	return Errorf(ErrNotFound, "PR %q does not exist", id).WithType("pr_not_found").
		WithDetails("pr_id", id).
		WithHint("`baton prs` lists the PR records; ids look like PR-7")
}
