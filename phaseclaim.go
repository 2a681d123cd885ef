package baton

import (
	"context"
	"encoding/json"
	"time"
)

// Finding categories of Symphony's phase pipeline: a worker's claim that
// a phase is done (complete_phase) and a judge's verdict on the artifact
// (approve_phase, reject_phase). Only those tools write them; add_finding
// cannot, so an agent cannot forge a claim or a verdict.
const (
	CategoryPhaseCompletion = "phase_completion"
	CategoryPhaseVerdict    = "phase_verdict"
)

// Verdicts of a phase_verdict finding.
const (
	VerdictApproved = "approved"
	VerdictRejected = "rejected"
)

// PhaseCompletion is the body of a phase_completion finding, stored as
// JSON in the finding's Details: the catalogue's PhaseCompletionFinding
// without what the finding row holds itself (id, category, created_at)
// and without processed, which lives in a PhaseMark (findings are
// immutable). ProjectPath and ContractsDir are complete_phase's arguments,
// kept so the orchestrator re-reads the artifact and the contract where
// the agent said they were.
type PhaseCompletion struct {
	CompletedPhase       string   `json:"completed_phase"`
	ContractVersion      int      `json:"contract_version,omitempty"`
	ArtifactPath         string   `json:"artifact_path,omitempty"`
	ArtifactHash         string   `json:"artifact_hash,omitempty"`
	Summary              string   `json:"summary"`
	OpenQuestions        []string `json:"open_questions"`
	Confidence           string   `json:"confidence"`
	PromoteTo            *string  `json:"promote_to"`
	RecommendedNextPhase string   `json:"recommended_next_phase,omitempty"`
	ProjectPath          string   `json:"project_path"`
	ContractsDir         string   `json:"contracts_dir,omitempty"`
}

// PhaseVerdict is the body of a phase_verdict finding (Details, as JSON).
type PhaseVerdict struct {
	Phase           string `json:"phase"`
	ArtifactHash    string `json:"artifact_hash"`
	Verdict         string `json:"verdict"` // approved or rejected
	Reason          string `json:"reason"`
	FixInstructions string `json:"fix_instructions,omitempty"`
	// ClaimID is the phase_completion finding the verdict judged.
	ClaimID string `json:"claim_id"`
}

// Outcomes of processing a phase finding (PhaseMark.Outcome).
const (
	// A claim whose phase the issue has left: dropped without counting.
	OutcomeStale = "stale"
	// A claim that passed the orchestrator's checks and waits for a judge.
	OutcomeAwaitingVerdict = "awaiting_verdict"
	// A ready claim turned into a PR record.
	OutcomePRCreated = "pr_created"
	// A claim the orchestrator refused, or a judge's rejection applied:
	// one rejection of the phase.
	OutcomeRejected = "rejected"
	// A rejection that reached the limit: the issue is blocked for a human.
	OutcomeEscalated = "escalated"
	// An approval applied: the issue moved to the next phase.
	OutcomeAdvanced = "advanced"
	// A verdict on no claim awaiting one (another hash, another phase).
	OutcomeIgnored = "ignored"
)

// PhaseMark records that the orchestrator processed a phase_completion or
// phase_verdict finding: the catalogue's processed flag, kept beside the
// immutable finding instead of in it. A finding without a mark is
// unprocessed; a mark is written once and never changed.
type PhaseMark struct {
	FindingID   string
	ItemID      string
	Category    string // the finding's: phase_completion or phase_verdict
	Phase       string
	Outcome     string // one of the Outcome constants
	Reason      string
	ProcessedBy string
	ProcessedAt time.Time
}

// PhaseTx keeps the orchestrator's marks on phase findings.
type PhaseTx interface {
	// PendingPhaseFindings returns the phase_completion and phase_verdict
	// findings of project's items ("" for every project) that carry no
	// mark yet, oldest first.
	PendingPhaseFindings(ctx context.Context, project string) ([]*Finding, error)
	// MarkPhaseFinding records how a finding was processed; a finding
	// marked already is ERR_CONFLICT (type already_processed), an unknown
	// one ERR_NOT_FOUND.
	MarkPhaseFinding(ctx context.Context, m *PhaseMark) error
	// PhaseMark returns a finding's mark, or nil while it is unprocessed.
	PhaseMark(ctx context.Context, findingID string) (*PhaseMark, error)
	// PhaseMarks returns the marks of an item's findings in the order
	// they were written.
	PhaseMarks(ctx context.Context, itemID string) ([]*PhaseMark, error)
}

// CompletionOf reads a phase_completion finding's claim.
func CompletionOf(f *Finding) (*PhaseCompletion, error) {
	if f.Category != CategoryPhaseCompletion {
		return nil, Errorf(ErrInvalidInput, "finding %s is a %s finding, not a phase completion claim", f.ID, f.Category)
	}
	var c PhaseCompletion
	if err := json.Unmarshal([]byte(f.Details), &c); err != nil {
		return nil, Errorf(ErrInternal, "phase completion claim %s is malformed: %v", f.ID, err)
	}
	return &c, nil
}

// VerdictOf reads a phase_verdict finding's verdict.
func VerdictOf(f *Finding) (*PhaseVerdict, error) {
	if f.Category != CategoryPhaseVerdict {
		return nil, Errorf(ErrInvalidInput, "finding %s is a %s finding, not a phase verdict", f.ID, f.Category)
	}
	var v PhaseVerdict
	if err := json.Unmarshal([]byte(f.Details), &v); err != nil {
		return nil, Errorf(ErrInternal, "phase verdict %s is malformed: %v", f.ID, err)
	}
	return &v, nil
}
