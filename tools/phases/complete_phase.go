package phases

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/orchestrator"
	contract "github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/review"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
	"github.com/baton-dev/baton/worktree"
)

type completeIn struct {
	CompletedPhase       string   `json:"completed_phase" jsonschema:"Phase being completed: research, architecture, grooming, or ready."`
	ContractVersion      *int     `json:"contract_version,omitempty" jsonschema:"Must match the contract's version (currently 1). Not required for ready."`
	ArtifactPath         string   `json:"artifact_path,omitempty" jsonschema:"Relative path to the artifact (must be inside docs/tickets/, e.g. docs/tickets/SYM-33/design.md). Not required for ready."`
	ArtifactHash         string   `json:"artifact_hash,omitempty" jsonschema:"SHA-256 hash of the artifact content, in hex (sha256sum). Not required for ready."`
	Summary              string   `json:"summary" jsonschema:"Brief summary of the artifact."`
	OpenQuestions        []string `json:"open_questions,omitempty" jsonschema:"Unresolved questions."`
	Confidence           string   `json:"confidence,omitempty" jsonschema:"high, medium, or low (default: medium)."`
	PromoteTo            string   `json:"promote_to,omitempty" jsonschema:"Target path for promotion into the project docs tree (must be inside docs/): the artifact is copied there when a judge approves it."`
	RecommendedNextPhase string   `json:"recommended_next_phase,omitempty" jsonschema:"Suggested next phase: the contract's next_phase. Not required for ready."`
	ProjectPath          string   `json:"project_path" jsonschema:"Absolute path to the project root: your worktree (where the artifact is) or the project's root."`
	ContractsDir         string   `json:"contracts_dir,omitempty" jsonschema:"Path to the phase contracts directory, relative to the project's root, never your worktree (defaults to prompts/phases/, else the built-in contracts)."`
	IssueID              string   `json:"issue_id,omitempty" jsonschema:"Issue to act on; defaults to the issue this session is bound to."`
}

type completeOut struct {
	FindingID            string `json:"finding_id" jsonschema:"The claim's id (pc-N): a phase_completion finding."`
	IssueID              string `json:"issue_id" jsonschema:"The issue the claim is about."`
	Category             string `json:"category" jsonschema:"Always phase_completion."`
	CompletedPhase       string `json:"completed_phase" jsonschema:"The phase claimed complete."`
	ContractVersion      int    `json:"contract_version,omitempty" jsonschema:"The contract version the artifact follows."`
	ArtifactPath         string `json:"artifact_path,omitempty" jsonschema:"The artifact, relative to the project root."`
	ArtifactHash         string `json:"artifact_hash,omitempty" jsonschema:"The artifact's SHA-256, as verified against the file (lowercase hex)."`
	RecommendedNextPhase string `json:"recommended_next_phase,omitempty" jsonschema:"Where the issue goes once a judge approves."`
	Processed            bool   `json:"processed" jsonschema:"Always false: the orchestrator processes the claim on its next tick."`
	CreatedAt            string `json:"created_at" jsonschema:"ISO-8601 UTC timestamp."`
	Message              string `json:"message" jsonschema:"What happens next."`
}

// CompletePhase is complete_phase.
var CompletePhase = tool.New(tool.Definition[completeIn, completeOut]{
	Name:    "complete_phase",
	Event:   "phase.completed",
	Toolset: Toolset,
	Description: "Submit a phase completion claim. Checks your worktree first, then (pre-ready phases) the artifact: inside docs/tickets/, " +
		"SHA-256 equal to artifact_hash, at least 100 characters, a Markdown heading, and the contract's required ## sections; then records the " +
		"claim as a phase_completion finding (processed: false). The orchestrator validates it again and performs the transition on its next tick: " +
		"a judge reviews a pre-ready artifact; for ready, your branch's commits become a PR and the issue moves to review.",
	Profiles: []string{"researcher", "planner", "worker"},
	Input: tool.Rules{
		"completed_phase":        phaseRule,
		"contract_version":       tool.Range(1, 1000000),
		"artifact_path":          tool.Length(1, 1024),
		"artifact_hash":          hashRule,
		"summary":                tool.Length(1, 4000).NonBlank(),
		"open_questions":         tool.List(50, tool.Length(1, 2000).NonBlank()),
		"confidence":             tool.Enum("high", "medium", "low").WithDefault("medium"),
		"promote_to":             tool.Length(1, 1024),
		"recommended_next_phase": phaseRule,
		"project_path":           tool.Length(1, 4096),
		"contracts_dir":          tool.Length(1, 1024),
		"issue_id":               issueIDRule,
	},
	Output: tool.Rules{"category": tool.Enum(baton.CategoryPhaseCompletion), "completed_phase": phaseRule},
	// A ready claim's git check runs before the write transaction (after
	// the same checks Execute makes, read in their own view), so no writer
	// waits for git; Execute checks everything else again in the
	// transaction. The branch may change in between: the tick builds the
	// PR from it and rejects an empty one.
	Prepare: func(ctx context.Context, c *tool.Call, in completeIn) (any, error) {
		if in.CompletedPhase != string(baton.PhaseReady) {
			return nil, nil
		}
		var it *baton.Item
		var proj *baton.Project
		var dir string
		if err := c.View(ctx, func() (err error) {
			if it, dir, err = check(ctx, c, in); err != nil {
				return err
			}
			proj, err = c.Tx.Project(ctx, it.Project)
			return err
		}); err != nil {
			return nil, err
		}
		return nil, readyCheck(ctx, proj, it, dir)
	},
	Execute: func(ctx context.Context, c *tool.Call, in completeIn) (completeOut, error) {
		it, dir, err := check(ctx, c, in)
		if err != nil {
			return completeOut{}, err
		}
		phase := baton.Phase(in.CompletedPhase)
		var promote *string
		if in.PromoteTo != "" {
			p, err := promoteTo(in.PromoteTo)
			if err != nil {
				return completeOut{}, err
			}
			promote = &p
		}
		body := baton.PhaseCompletion{CompletedPhase: in.CompletedPhase, ArtifactPath: in.ArtifactPath, Summary: in.Summary,
			OpenQuestions: nonNil(in.OpenQuestions), Confidence: in.Confidence, PromoteTo: promote,
			RecommendedNextPhase: in.RecommendedNextPhase, ProjectPath: dir, ContractsDir: in.ContractsDir}
		if in.ContractVersion != nil {
			body.ContractVersion = *in.ContractVersion
		}
		if in.ArtifactHash != "" {
			body.ArtifactHash = normHash(in.ArtifactHash)
		}
		next := "the orchestrator validates the claim again on its next tick; a judge then reviews the artifact (approve_phase or reject_phase)"
		if phase.PreReady() {
			// The contract is the project root's (or the built-in one),
			// never one from the claimant's folder: a worker writing its
			// own contract could otherwise skip phases.
			p, err := c.Tx.Project(ctx, it.Project)
			if err != nil {
				return completeOut{}, err
			}
			spec, err := contract.Load(p.Root, in.ContractsDir, phase)
			if err != nil {
				return completeOut{}, err
			}
			if err := orchestrator.CheckClaim(spec, it.ID, &body, dir); err != nil {
				return completeOut{}, err
			}
		} else {
			// Prepare refused a branch with nothing committed, so the
			// worker can commit in the same turn.
			next = "the orchestrator builds the PR from your branch's commits on its next tick, runs the project's gates and moves the issue to review"
		}
		details, err := json.Marshal(body)
		if err != nil {
			return completeOut{}, err
		}
		f := &baton.Finding{ItemID: it.ID, Category: baton.CategoryPhaseCompletion, Summary: in.Summary, Details: string(details),
			Files: []string{}, CreatedBy: c.Principal.Agent, CreatedAt: c.Now}
		if in.ArtifactPath != "" {
			f.Files = []string{body.ArtifactPath}
		}
		if err := c.Tx.AddFinding(ctx, f); err != nil {
			return completeOut{}, err
		}
		return completeOut{FindingID: f.ID, IssueID: it.ID, Category: f.Category, CompletedPhase: in.CompletedPhase,
			ContractVersion: body.ContractVersion, ArtifactPath: body.ArtifactPath, ArtifactHash: body.ArtifactHash,
			RecommendedNextPhase: body.RecommendedNextPhase, CreatedAt: baton.Timestamp(f.CreatedAt),
			Message: "Claim " + f.ID + " recorded (processed: false): " + next + "."}, nil
	},
})

// check makes complete_phase's checks of the call itself, in c.Tx: the
// worktree first (as the catalogue says), the issue, its phase, the
// fields a pre-ready claim needs, project_path (returned cleaned),
// artifact_path and promote_to.
func check(ctx context.Context, c *tool.Call, in completeIn) (*baton.Item, string, error) {
	v, err := worktree.Require(ctx, c)
	if err != nil {
		return nil, "", err
	}
	it, err := session.Issue(ctx, c, in.IssueID)
	if err != nil {
		return nil, "", err
	}
	if v != nil && v.Issue != "" && v.Issue != it.ID {
		if x, err := c.Tx.Item(ctx, v.Issue); err != nil || x.ID != it.ID {
			return nil, "", baton.Errorf(baton.ErrInvalidInput, "issue_id %s is not the issue of your worktree, %s", it.ID, v.Issue).
				WithDetails("field", "issue_id", "value", it.ID, "worktree_issue", v.Issue).
				WithHint("leave issue_id out: a phase is completed for the issue of the worktree you work in")
		}
	}
	if it.Status.Terminal() {
		return nil, "", baton.Errorf(baton.ErrInvalidTransition, "%s is %s: a finished issue has no phase to complete", it.ID, it.Status).
			WithDetails("task_id", it.ID, "status", string(it.Status)).
			WithHint("open a new issue for further work")
	}
	if err := phaseOf(it, "completed_phase", in.CompletedPhase); err != nil {
		return nil, "", err
	}
	if baton.Phase(in.CompletedPhase).PreReady() {
		if err := required(in); err != nil {
			return nil, "", err
		}
	}
	dir, err := projectPath(ctx, c, it, in.ProjectPath)
	if err != nil {
		return nil, "", err
	}
	if in.ArtifactPath != "" {
		if _, err := contract.CheckPath(in.ArtifactPath); err != nil {
			return nil, "", err
		}
	}
	return it, dir, nil
}

// required names the fields a pre-ready claim lacks: the catalogue's
// "required except for ready" fields.
func required(in completeIn) error {
	var missing []string
	if in.ContractVersion == nil {
		missing = append(missing, "contract_version")
	}
	if in.ArtifactPath == "" {
		missing = append(missing, "artifact_path")
	}
	if in.ArtifactHash == "" {
		missing = append(missing, "artifact_hash")
	}
	if in.RecommendedNextPhase == "" {
		missing = append(missing, "recommended_next_phase")
	}
	if len(missing) == 0 {
		return nil
	}
	verb := "is"
	if len(missing) > 1 {
		verb = "are"
	}
	return baton.Errorf(baton.ErrInvalidInput, "%s %s required to complete the %s phase", and(missing), verb, in.CompletedPhase).
		WithDetails("field", missing[0], "constraint", "required", "missing", missing).
		WithHint("only a ready claim leaves out contract_version, artifact_path, artifact_hash and recommended_next_phase; the phase's contract gives the version, artifact and next phase")
}

func and(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// promoteTo checks promote_to: a relative path inside docs/, cleaned.
func promoteTo(p string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if path.IsAbs(clean) || !strings.HasPrefix(clean, "docs/") || strings.HasSuffix(p, "/") {
		return "", baton.Errorf(baton.ErrInvalidInput, "promote_to must be a file path inside docs/ (got %q)", p).
			WithDetails("field", "promote_to", "constraint", "inside_docs", "promote_to", p).
			WithHint("name where the approved artifact belongs in the project's docs, relative to the project root, e.g. docs/design/token-budgets.md")
	}
	return clean, nil
}

// readyCheck refuses a ready claim whose branch has no committed change
// against its base, when the issue's branch can be found: the PR the tick
// builds would have nothing in it.
func readyCheck(ctx context.Context, p *baton.Project, it *baton.Item, dir string) error {
	t := orchestrator.ReadyTarget(ctx, p, it, dir)
	if t == nil {
		return nil
	}
	if _, err := review.Build(ctx, t.Dir, t.Base, t.Branch); err != nil && baton.AsError(err).Type == "no_changes" {
		return err
	}
	return nil
}
