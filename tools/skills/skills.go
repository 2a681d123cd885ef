// Package skills holds the skill tools of Colibri's ε Skill Registry:
// skill_list, and skill_get, which the Phase 0 catalogue defers and baton
// ships. Skills are read from .agents/skills/*/SKILL.md under the project's
// working directory, Env.Getwd: Env.WorkDir when set, otherwise the
// directory baton was started in. They come through the registry shared by
// every tool and command of the process, which takes in edits on the next
// call.
package skills

import (
	"context"

	"github.com/baton-dev/baton"
	registry "github.com/baton-dev/baton/skills"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "skills"

type skillRow struct {
	Name         string   `json:"name" jsonschema:"The skill's directory name under .agents/skills/, its identity."`
	Version      string   `json:"version" jsonschema:"Version from the frontmatter; empty when it declares none."`
	Description  string   `json:"description" jsonschema:"What the skill is for, from the frontmatter."`
	Capabilities []string `json:"capabilities" jsonschema:"Capabilities the skill declares in its frontmatter."`
	Path         string   `json:"path" jsonschema:"Repo-relative path of the SKILL.md file."`
}

// fileError is a SKILL.md that was skipped.
type fileError struct {
	Path  string `json:"path" jsonschema:"Repo-relative path of the file."`
	Error string `json:"error" jsonschema:"What is wrong with it, with the line when there is one."`
}

// fileWarning is a SKILL.md that loaded but deserves a fix.
type fileWarning struct {
	Path    string `json:"path" jsonschema:"Repo-relative path of the file."`
	Warning string `json:"warning" jsonschema:"What deserves a fix."`
}

type listIn struct {
	Search     string `json:"search,omitempty" jsonschema:"Only skills whose name or description contains this text, ignoring case."`
	Capability string `json:"capability,omitempty" jsonschema:"Only skills declaring exactly this capability."`
}

// listOut is the catalogue's SkillListOutput plus errors and warnings,
// which baton adds so a malformed SKILL.md is visible instead of silently
// missing. Both are omitted when empty, leaving the catalogue's shape.
type listOut struct {
	Skills     []skillRow    `json:"skills" jsonschema:"Matching skills, sorted by name."`
	TotalCount int           `json:"total_count" jsonschema:"Number of matching skills."`
	Errors     []fileError   `json:"errors,omitzero" jsonschema:"SKILL.md files skipped as malformed, whatever the filters; absent when there are none."`
	Warnings   []fileWarning `json:"warnings,omitzero" jsonschema:"Loaded SKILL.md files that deserve a fix (a frontmatter name that differs from the directory); absent when there are none."`
}

// SkillList is skill_list.
var SkillList = tool.New(tool.Definition[listIn, listOut]{
	Name:    "skill_list",
	Toolset: Toolset,
	Description: "List the skills in .agents/skills/*/SKILL.md of the working directory with their frontmatter " +
		"(name, version, description, capabilities, path), optionally filtered by a search text or a capability. " +
		"Malformed files are listed under errors instead of failing the call.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Transaction: tool.TxNone,
	Input: tool.Rules{
		"search":     tool.MaxLen(200),
		"capability": tool.Length(1, 100),
	},
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (listOut, error) {
		snap, err := snapshot(c)
		if err != nil {
			return listOut{}, err
		}
		out := listOut{Skills: []skillRow{}}
		for _, sk := range snap.Filter(in.Search, in.Capability) {
			out.Skills = append(out.Skills, row(sk))
		}
		out.TotalCount = len(out.Skills)
		for _, e := range snap.Errors {
			out.Errors = append(out.Errors, fileError{Path: e.Path, Error: e.Message})
		}
		for _, w := range snap.Warnings {
			out.Warnings = append(out.Warnings, fileWarning{Path: w.Path, Warning: w.Message})
		}
		return out, nil
	},
})

type getIn struct {
	Name string `json:"name" jsonschema:"The skill's name: its directory under .agents/skills/, as skill_list shows it."`
}

type getOut struct {
	Name         string   `json:"name" jsonschema:"The skill's directory name under .agents/skills/."`
	Version      string   `json:"version" jsonschema:"Version from the frontmatter; empty when it declares none."`
	Description  string   `json:"description" jsonschema:"What the skill is for, from the frontmatter."`
	Capabilities []string `json:"capabilities" jsonschema:"Capabilities the skill declares in its frontmatter."`
	Path         string   `json:"path" jsonschema:"Repo-relative path of the SKILL.md file."`
	Body         string   `json:"body" jsonschema:"The skill's instructions: the markdown after the frontmatter."`
}

// SkillGet is skill_get.
var SkillGet = tool.New(tool.Definition[getIn, getOut]{
	Name:    "skill_get",
	Toolset: Toolset,
	Description: "Fetch one skill by name: its frontmatter and its body, the instructions to follow. " +
		"Names are those skill_list returns.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Transaction: tool.TxNone,
	Input:       tool.Rules{"name": tool.Length(1, 128)},
	Execute: func(ctx context.Context, c *tool.Call, in getIn) (getOut, error) {
		snap, err := snapshot(c)
		if err != nil {
			return getOut{}, err
		}
		sk, ok := snap.Get(in.Name)
		if !ok {
			return getOut{}, notFound(snap, in.Name)
		}
		r := row(sk)
		return getOut{Name: r.Name, Version: r.Version, Description: r.Description,
			Capabilities: r.Capabilities, Path: r.Path, Body: sk.Body}, nil
	},
})

// snapshot reads the skills of the call's working directory.
func snapshot(c *tool.Call) (registry.Snapshot, error) {
	root, err := c.Env.Getwd()
	if err != nil {
		return registry.Snapshot{}, baton.Errorf(baton.ErrInternal, "cannot tell the working directory to read skills from: %v", err).
			WithHint("start baton from the project's directory")
	}
	return registry.For(root).Snapshot(), nil
}

func row(sk registry.Skill) skillRow {
	caps := sk.Capabilities
	if caps == nil {
		caps = []string{}
	}
	return skillRow{Name: sk.Name, Version: sk.Version, Description: sk.Description, Capabilities: caps, Path: sk.Path}
}

// notFound explains a missing skill: a malformed SKILL.md is named with
// its error, since "not found" alone would send the agent looking in the
// wrong place.
func notFound(snap registry.Snapshot, name string) error {
	known := snap.Names()
	if p, ok := snap.Error(name); ok {
		return baton.Errorf(baton.ErrSkillNotFound, "skill %q is not loaded: %s is malformed: %s", name, p.Path, p.Message).
			WithDetails("name", name, "path", p.Path, "error", p.Message, "known", known).
			WithHint("fix the frontmatter of %s (the next call picks the fix up), or pick one of the known skills", p.Path)
	}
	return baton.Errorf(baton.ErrSkillNotFound, "no skill named %q in %s", name, registry.Dir).
		WithDetails("name", name, "known", known).
		WithHint("call skill_list to see the skills; a name is the skill's directory under %s/", registry.Dir)
}
