package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/skills"
	"github.com/baton-dev/baton/tool"
)

// toolNames are the registry's tool names in registry order.
func (a *App) toolNames() []string {
	out := make([]string, 0, a.Registry.Len())
	for _, t := range a.Registry.All() {
		out = append(out, t.Spec().Name)
	}
	return out
}

// checkTools refuses names that are not tools here, all of them at once,
// with the list of tools to choose from.
func (a *App) checkTools(names []string) error {
	var unknown []string
	for _, n := range names {
		if _, ok := a.Registry.Get(n); !ok {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return baton.Errorf(baton.ErrInvalidInput, "unknown tool %s", quoteList(unknown)).
		WithDetails("tools", unknown).
		WithHint("name tools that exist (`baton tools` lists them): %s", strings.Join(a.toolNames(), ", "))
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// privileged reports whether the named tool needs an explicit grant.
func (a *App) privileged(name string) bool {
	t, ok := a.Registry.Get(name)
	return ok && t.Spec().Annotations.Privileged
}

// defaults are the registry defaults of a built-in profile: the tools
// that name it, privileged ones excepted.
func (a *App) defaults(base string) []string {
	var out []string
	for _, t := range a.Registry.All() {
		s := t.Spec()
		if slices.Contains(s.Profiles, base) && !s.Annotations.Privileged {
			out = append(out, s.Name)
		}
	}
	return out
}

// checkAllowable refuses allowed tools that could not take effect: an
// allowed list narrows the profile's defaults and grants privileged tools
// (tool.ComputeScope), so any other tool named there would be stored and
// silently ignored.
func (a *App) checkAllowable(p *baton.Profile, names []string) error {
	defaults := a.defaults(p.Base())
	var out []string
	for _, n := range names {
		if !slices.Contains(defaults, n) && !a.privileged(n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return baton.Errorf(baton.ErrInvalidInput, "%s: not among the default tools of %s, and not privileged", quoteList(out), p.Base()).
		WithType("not_allowable").WithDetails("tools", out, "profile", p.Name, "defaults", defaults).
		WithHint("allowed tools only narrow the defaults (and grant privileged tools); give %s through a skill "+
			"(`baton profile set %s --skills NAME`, whose SKILL.md lists it under baton-tools) or a project "+
			"(`baton project tools SLUG --set ...`)", strings.Join(out, ", "), p.Name)
}

// skillNotes say which of the named skills the working directory lacks:
// their tools come only once the skill exists where the server runs.
func skillNotes(names []string) []string {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	snap := skills.For(wd).Snapshot()
	var notes []string
	for _, n := range names {
		if _, ok := snap.Get(n); !ok {
			notes = append(notes, fmt.Sprintf("note: no skill %s under %s/%s here: it adds tools only where it exists", n, wd, skills.Dir))
		}
	}
	return notes
}

// effectiveCount is the number of tools a scope holds.
func (a *App) effectiveCount(s *tool.Scope) int { return len(s.Names(a.Registry)) }
