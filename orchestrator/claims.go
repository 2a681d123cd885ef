package orchestrator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/gitenv"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/worktree"
)

// CheckClaim validates a pre-ready completion claim against its phase's
// contract and the artifact under root: the contract's version and next
// phase, then the artifact (phases.Check: inside docs/tickets/, the
// contract's artifact of the issue, SHA-256 equal to the claim's, the
// content checks). complete_phase runs it before recording a claim, so
// the agent hears at once; the tick runs it again before acting, since the
// file or the contract may have changed in between.
func CheckClaim(spec *phases.Spec, itemID string, cl *baton.PhaseCompletion, root string) error {
	if cl.ContractVersion != spec.Version {
		return baton.Errorf(baton.ErrInvalidInput, "contract_version %d does not match the %s contract's version %d", cl.ContractVersion, spec.Phase, spec.Version).
			WithDetails("field", "contract_version", "constraint", "contract_version", "contract_version", cl.ContractVersion,
				"expected", spec.Version, "contract", spec.Source).
			WithHint("follow the current %s contract (%s, version %d) and claim with contract_version %d", spec.Phase, spec.Source, spec.Version, spec.Version)
	}
	if cl.RecommendedNextPhase != string(spec.NextPhase) {
		return baton.Errorf(baton.ErrInvalidInput, "recommended_next_phase %q is not the %s contract's next phase, %s", cl.RecommendedNextPhase, spec.Phase, spec.NextPhase).
			WithDetails("field", "recommended_next_phase", "constraint", "next_phase", "recommended_next_phase", cl.RecommendedNextPhase,
				"expected", string(spec.NextPhase), "contract", spec.Source).
			WithHint("the %s contract (%s) moves the issue to %s: pass recommended_next_phase %q", spec.Phase, spec.Source, spec.NextPhase, spec.NextPhase)
	}
	_, err := phases.Check(spec, phases.Claim{Root: root, IssueID: itemID, Path: cl.ArtifactPath, Hash: cl.ArtifactHash})
	return err
}

// Target is where the PR of an issue's ready claim comes from: the branch
// checked out in Dir, against Base.
type Target struct {
	Dir, Branch, Base string
}

// ReadyTarget finds the branch of an issue's ready claim: the issue's
// worktree in its project's repository (branch and base from its marker),
// else the claim's project_path when that is a worktree of the issue (its
// marker), else the branch checked out at project_path against main. nil
// when none of these is a git checkout.
func ReadyTarget(ctx context.Context, p *baton.Project, it *baton.Item, projectPath string) *Target {
	if m := worktree.Find(p.Root, it.ID); m != nil && m.Path != "" && isDir(m.Path) {
		return &Target{Dir: m.Path, Branch: m.Branch, Base: baseOr(m.Base)}
	}
	if projectPath == "" || !isDir(projectPath) {
		return nil
	}
	if m, _, err := worktree.ReadMarker(projectPath); err == nil && m != nil && m.Branch != "" {
		return &Target{Dir: projectPath, Branch: m.Branch, Base: baseOr(m.Base)}
	}
	cmd := exec.CommandContext(ctx, "git", "-C", projectPath, "symbolic-ref", "--quiet", "--short", "HEAD")
	cmd.Env = gitenv.Env()
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return &Target{Dir: projectPath, Branch: strings.TrimSpace(string(out)), Base: worktree.DefaultBase}
}

func baseOr(b string) string {
	if b == "" {
		return worktree.DefaultBase
	}
	return b
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// artifactRoots are the folders the tick reads a claim's artifact under,
// in order: the claim's own project_path, the issue's worktree, the
// project's root (Symphony: the agent run's worktree, then the project).
func artifactRoots(p *baton.Project, it *baton.Item, cl *baton.PhaseCompletion) []string {
	var out []string
	add := func(d string) {
		if d == "" || !isDir(d) {
			return
		}
		for _, o := range out {
			if filepath.Clean(o) == filepath.Clean(d) {
				return
			}
		}
		out = append(out, d)
	}
	add(cl.ProjectPath)
	if m := worktree.Find(p.Root, it.ID); m != nil {
		add(m.Path)
	}
	add(p.Root)
	return out
}
