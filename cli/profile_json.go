package cli

import (
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// profileRow is one profile of `baton profile list --json`.
type profileRow struct {
	Name           string `json:"name"`
	Builtin        bool   `json:"builtin"`
	Extends        string `json:"extends"`
	Stored         bool   `json:"stored"` // false: the registry's defaults, nothing stored
	Tools          int    `json:"tools"`
	SchedulerTools int    `json:"scheduler_tools"`
	Tokens         int    `json:"tokens"`
	Description    string `json:"description"`
}

// profileView is `baton profile show --json`.
type profileView struct {
	Name            string   `json:"name"`
	Builtin         bool     `json:"builtin"`
	Extends         string   `json:"extends"`
	Description     string   `json:"description"`
	AllowedTools    []string `json:"allowed_tools"`
	DisallowedTools []string `json:"disallowed_tools"`
	Skills          []string `json:"skills"`
	Stored          bool     `json:"stored"`
	UpdatedAt       string   `json:"updated_at,omitempty"`
	Scheduler       bool     `json:"scheduler"` // the tools are a scheduler session's
	Rule            string   `json:"rule"`
	Tools           []string `json:"tools"`
	Tokens          int      `json:"tokens"`
	Estimate        string   `json:"estimate"`
	Warnings        []string `json:"warnings"`
}

func (a *App) profileViewOf(p *baton.Profile, scope *tool.Scope, scheduler bool) profileView {
	v := profileView{Name: p.Name, Builtin: baton.IsBuiltinProfile(p.Name), Extends: p.Extends, Description: p.Description,
		AllowedTools: nonNil(p.AllowedTools), DisallowedTools: nonNil(p.DisallowedTools), Skills: nonNil(p.Skills),
		Stored: !p.UpdatedAt.IsZero(), Scheduler: scheduler, Rule: scope.Rule, Tools: nonNil(scope.Names(a.Registry)),
		Tokens: tool.ScopeTokens(a.Registry, scope), Estimate: tool.TokenEstimate, Warnings: nonNil(scope.Warnings)}
	if v.Stored {
		v.UpdatedAt = baton.Timestamp(p.UpdatedAt)
	}
	return v
}

// profileEffectiveShape is the --json document of every profile change.
const profileEffectiveShape = `{"profile", "notes": [what the change did], "tools": N (an interactive session's), "rule",
"tokens" (≈ tokens of schema), "estimate", "warnings": [...]}.`

// profileJSONShapes are the --json documents of baton profile's commands.
var profileJSONShapes = map[string]string{
	"list": `{"profiles": [{"name", "builtin", "extends", "stored", "tools", "scheduler_tools", "tokens", "description"}],
"estimate"}: built-in profiles first, then custom ones.`,
	"show": `{"name", "builtin", "extends", "description", "allowed_tools", "disallowed_tools", "skills", "stored",
"updated_at", "scheduler", "rule", "tools": [effective tool names], "tokens", "estimate", "warnings"}.`,
	"create":   profileEffectiveShape,
	"allow":    profileEffectiveShape,
	"disallow": profileEffectiveShape,
	"set":      profileEffectiveShape,
	"reset":    profileEffectiveShape,
	"delete":   `{"deleted": PROFILE, "active_tokens": N (tokens still naming it), "warnings": [...]}.`,
}

// profileJSONFlags gives each baton profile command --json.
func (a *App) profileJSONFlags(profile *cobra.Command) {
	for _, c := range profile.Commands() {
		if shape, ok := profileJSONShapes[c.Name()]; ok {
			a.jsonFlag(c, shape)
		}
	}
}
