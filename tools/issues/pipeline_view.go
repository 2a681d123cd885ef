package issues

import (
	"context"
	"slices"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/pipeline"
)

// contractView is the contract of an issue's phase as get_issue shows it:
// what the phase's agent must produce and how complete_phase checks it.
type contractView struct {
	Phase            string   `json:"phase" jsonschema:"The phase the contract is for."`
	Version          int      `json:"version" jsonschema:"Contract version: complete_phase's contract_version must equal it."`
	DispatchProfile  string   `json:"dispatch_profile" jsonschema:"The agent profile that works on this phase."`
	ArtifactPath     string   `json:"artifact_path,omitempty" jsonschema:"Where the phase's artifact goes, relative to the project root; absent for ready (the work is the committed code)."`
	RequiredSections []string `json:"required_sections" jsonschema:"Sections the artifact must have as ## headings."`
	Validation       string   `json:"validation" jsonschema:"structural (length, headings, sections) or gates (ready: the project's quality gates)."`
	NextPhase        string   `json:"next_phase,omitempty" jsonschema:"Where an approved artifact takes the issue: complete_phase's recommended_next_phase."`
	Source           string   `json:"source" jsonschema:"built-in, or the contract file relative to the project root."`
}

// phaseOf reads an issue's place in the pipeline for get_issue: its phase,
// the phase's contract (or why it cannot be read), and the project's
// configuration, whose instructions and gates the issue's agents follow.
func phaseOf(ctx context.Context, c *tool.Call, it *baton.Item) (phase string, contract *contractView, contractErr string, cfg *pipeline.ConfigView, err error) {
	p := it.Phase()
	phase = string(p)
	project, err := c.Tx.Project(ctx, it.Project)
	if err != nil {
		return "", nil, "", nil, err
	}
	conf, err := c.Tx.ProjectConfig(ctx, it.Project)
	if err != nil {
		return "", nil, "", nil, err
	}
	v := pipeline.View(conf)
	cfg = &v
	if !p.Valid() {
		return phase, nil, "", cfg, nil // a custom pipeline's phase: no contract here
	}
	// Contracts live in the project's repository; a project registered
	// without its root reads them where the session works, as move_issue
	// finds artifacts.
	root := project.Root
	if root == "" {
		root = c.Principal.WorktreePath
	}
	if root == "" {
		root, _ = c.Env.Getwd()
	}
	spec, cerr := phases.Contract(root, p)
	if cerr != nil {
		// A broken contract file must not hide the issue; the agent sees
		// what is wrong with it (complete_phase refuses the same way).
		return phase, nil, baton.AsError(cerr).Message, cfg, nil
	}
	return phase, &contractView{Phase: string(spec.Phase), Version: spec.Version, DispatchProfile: spec.DispatchProfile,
		ArtifactPath: spec.Artifact(it.ID), RequiredSections: slices.Clone(nonNil(spec.RequiredSections)),
		Validation: spec.Validation, NextPhase: string(spec.NextPhase), Source: spec.Source}, "", cfg, nil
}

// initialPhase gives a new issue its one phase label: the one its labels
// name; else phase:research for an issue a researcher or scanner files
// (what research turns up needs research before design); else
// phase:ready, as Symphony gives an issue filed by hand.
func initialPhase(ctx context.Context, c *tool.Call, labels []string) []string {
	if slices.ContainsFunc(labels, baton.IsPhaseLabel) {
		return labels
	}
	profile := c.Principal.Profile
	if profile == "" {
		profile = c.Principal.AgentType
	}
	if profile != "" && !baton.IsBuiltinProfile(profile) {
		// A custom profile files issues as the profile it extends.
		if p, err := c.Tx.Profile(ctx, profile); err == nil {
			profile = p.Base()
		}
	}
	if profile == "researcher" || profile == "scanner" {
		return baton.WithPhase(labels, baton.PhaseResearch)
	}
	return baton.WithPhase(labels, baton.PhaseReady)
}

// subtaskPhase gives a sub-task phase:ready unless its labels name a
// phase: sub-tasks are the groomed pieces of their parent, work for
// workers.
func subtaskPhase(labels []string) []string {
	if slices.ContainsFunc(labels, baton.IsPhaseLabel) {
		return labels
	}
	return baton.WithPhase(labels, baton.PhaseReady)
}
