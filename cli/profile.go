package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// profileCmd is `baton profile`: the stored tool settings of agent
// profiles, shown with the tools they come to (tool.ComputeScope).
func (a *App) profileCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Show and edit agent profiles: which tools each one gets",
		Long: "An agent's profile decides its tools: the registry's defaults for the profile (see docs/profiles.md),\n" +
			"narrowed to its allowed tools when it lists any, minus its disallowed tools, plus the tools of its\n" +
			"skills and of the session's project. Privileged tools come only by naming them in allowed tools;\n" +
			"scheduler sessions lose the scheduler-blocked ones whatever was granted. Running servers see a\n" +
			"change within about a second and tell the sessions whose tools changed (tools/list_changed).",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
		// Plugin tools (baton.toml) count and can be granted like baton's
		// own, as `baton tools` lists them.
		PersistentPreRunE: func(c *cobra.Command, _ []string) error { return a.usePlugins(c.Context()) },
	}
	cmd.AddCommand(a.profileListCmd(), a.profileShowCmd(), a.profileCreateCmd(), a.profileAllowCmd(),
		a.profileDisallowCmd(), a.profileSetCmd(), a.profileResetCmd(), a.profileDeleteCmd())
	a.profileJSONFlags(cmd) // profile_json.go
	return cmd
}

// argsBetween refuses fewer than min or more than max positional
// arguments (max < 0: no limit) as a usage error.
func argsBetween(min, max int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return usageError("%s takes %s (see %s --help)", c.CommandPath(), what, c.CommandPath())
		}
		return nil
	}
}

// profileScope is the effective tools of a profile as a stdio session of
// it would have them: the stored settings, its skills' bundles and the
// bundle of --project. An unknown profile is ERR_NOT_FOUND.
func (a *App) profileScope(ctx context.Context, name string, scheduler bool) (*tool.Scope, error) {
	env, err := a.toolEnv(ctx, a.Registry, "FULL")
	if err != nil {
		return nil, err
	}
	if err := env.Store.View(ctx, func(tx baton.Tx) error {
		_, err := tx.Profile(ctx, name)
		return err
	}); err != nil {
		return nil, err
	}
	return env.Scope(ctx, baton.Principal{Profile: name, Project: a.project, Source: baton.SourceStdio, SchedulerMode: scheduler, Preset: a.preset})
}

// accessChanged records in tx that what decides agents' tools changed
// (change names the command), so that every running server on the
// database, in whatever process, recomputes its live sessions' tools and
// sends notifications/tools/list_changed to those whose tools changed.
func (a *App) accessChanged(ctx context.Context, tx baton.Tx, change, profile, project string, tokens ...string) error {
	return events.RecordAccess(ctx, tx, a.human().Agent,
		events.Access{Change: change, Profile: profile, Project: project, Tokens: tokens}, time.Time{})
}

// editProfile loads a profile (a built-in one without a row comes back
// bare), lets change edit it, stores it, and prints what the profile's
// sessions now get.
// The notes change returns are printed once the change is stored.
func (a *App) editProfile(c *cobra.Command, name string, change func(p *baton.Profile) (notes []string, err error)) error {
	ctx := c.Context()
	s, err := a.openStore(ctx)
	if err != nil {
		return a.fail(err)
	}
	var notes []string
	err = s.Update(ctx, func(tx baton.Tx) error {
		p, err := tx.Profile(ctx, name)
		if err != nil {
			return err
		}
		if notes, err = change(p); err != nil {
			return err
		}
		p.UpdatedAt = time.Time{} // the store stamps it with its clock
		if err := tx.PutProfile(ctx, p); err != nil {
			return err
		}
		return a.accessChanged(ctx, tx, "profile."+c.Name(), name, "")
	})
	if err != nil {
		return a.fail(err)
	}
	return a.printEffective(c, name, notes...)
}

// printEffective prints what a change says (notes), then the profile's
// effective tool count, what they cost, and the warnings about it: every
// change ends with this.
func (a *App) printEffective(c *cobra.Command, name string, notes ...string) error {
	scope, err := a.profileScope(c.Context(), name, false)
	if err != nil {
		return a.fail(err)
	}
	if wantJSON(c) {
		return a.printJSON(map[string]any{"profile": name, "notes": nonNil(notes), "tools": a.effectiveCount(scope), "rule": scope.Rule,
			"tokens": tool.ScopeTokens(a.Registry, scope), "estimate": tool.TokenEstimate, "warnings": nonNil(scope.Warnings)})
	}
	for _, n := range notes {
		fmt.Fprintln(a.Stdout, n)
	}
	fmt.Fprintf(a.Stdout, "%s now has %d tools (%s), ≈ %d tokens of schema (%s)\n", name, a.effectiveCount(scope),
		scope.Rule, tool.ScopeTokens(a.Registry, scope), tool.TokenEstimate)
	for _, w := range scope.Warnings {
		fmt.Fprintf(a.Stdout, "warning: %s\n", w)
	}
	return nil
}

func (a *App) profileListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in and custom profiles with their effective tool counts",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var stored []*baton.Profile
			if err := s.View(ctx, func(tx baton.Tx) error {
				stored, err = tx.Profiles(ctx)
				return err
			}); err != nil {
				return a.fail(err)
			}
			byName := map[string]*baton.Profile{}
			names := slices.Clone(baton.BuiltinProfiles)
			for _, p := range stored {
				byName[p.Name] = p
				if !baton.IsBuiltinProfile(p.Name) {
					names = append(names, p.Name)
				}
			}
			rows := []profileRow{}
			for _, name := range names {
				scope, err := a.profileScope(ctx, name, false)
				if err != nil {
					return a.fail(err)
				}
				sched, err := a.profileScope(ctx, name, true)
				if err != nil {
					return a.fail(err)
				}
				row := profileRow{Name: name, Builtin: baton.IsBuiltinProfile(name), Tools: a.effectiveCount(scope),
					SchedulerTools: a.effectiveCount(sched), Tokens: tool.ScopeTokens(a.Registry, scope)}
				if p := byName[name]; p != nil {
					row.Stored, row.Extends, row.Description = true, p.Extends, p.Description
				}
				rows = append(rows, row)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"profiles": rows, "estimate": tool.TokenEstimate})
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "PROFILE\tEXTENDS\tTOOLS\tSCHEDULER\t≈TOKENS\tSETTINGS\tDESCRIPTION")
			for _, r := range rows {
				settings := "defaults"
				if r.Stored {
					settings = "stored"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\n", r.Name, orDash(r.Extends), r.Tools, r.SchedulerTools, r.Tokens,
					settings, cleanLine(r.Description))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "TOOLS: an interactive session's tools; SCHEDULER: a scheduler session's; ≈TOKENS: %s of their schemas\n", tool.TokenEstimate)
			return nil
		},
	}
}

func (a *App) profileShowCmd() *cobra.Command {
	var scheduler bool
	cmd := &cobra.Command{
		Use:   "show PROFILE",
		Short: "Show a profile's stored settings, its effective tools and warnings",
		Args:  argsBetween(1, 1, "one profile name"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var p *baton.Profile
			if err := s.View(ctx, func(tx baton.Tx) error {
				p, err = tx.Profile(ctx, args[0])
				return err
			}); err != nil {
				return a.fail(err)
			}
			scope, err := a.profileScope(ctx, p.Name, scheduler)
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(a.profileViewOf(p, scope, scheduler))
			}
			kind := "custom, extends " + p.Extends
			if baton.IsBuiltinProfile(p.Name) {
				kind = "built in"
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintf(tw, "profile:\t%s (%s)\n", p.Name, kind)
			if p.Description != "" {
				fmt.Fprintf(tw, "description:\t%s\n", cleanLine(p.Description))
			}
			fmt.Fprintf(tw, "allowed_tools:\t%s\n", listOr(p.AllowedTools, "(none: the default set of "+p.Base()+")"))
			fmt.Fprintf(tw, "disallowed_tools:\t%s\n", listOr(p.DisallowedTools, "(none)"))
			fmt.Fprintf(tw, "skills:\t%s\n", listOr(p.Skills, "(none)"))
			if p.UpdatedAt.IsZero() {
				fmt.Fprintf(tw, "stored:\tno: registry defaults\n")
			} else {
				fmt.Fprintf(tw, "stored:\tupdated %s\n", p.UpdatedAt.Format("2006-01-02 15:04"))
			}
			fmt.Fprintf(tw, "schema cost:\t≈ %d tokens (%s)\n", tool.ScopeTokens(a.Registry, scope), tool.TokenEstimate)
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprint(a.Stdout, "effective: ", tool.ScopeSummary(a.Registry, scope))
			return nil
		},
	}
	cmd.Flags().BoolVar(&scheduler, "scheduler", false, "show a scheduler session's tools (no scheduler-blocked ones)")
	return cmd
}

func listOr(names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	return strings.Join(names, ", ")
}

func (a *App) profileCreateCmd() *cobra.Command {
	var extends, description string
	cmd := &cobra.Command{
		Use:   "create NAME --extends BUILTIN",
		Short: "Create a custom profile that starts from a built-in profile's defaults",
		Args:  argsBetween(1, 1, "one profile name"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			name := args[0]
			if baton.IsBuiltinProfile(name) {
				return a.fail(baton.Errorf(baton.ErrInvalidInput, "%s is a built-in profile: it exists already", name).
					WithDetails("profile", name).
					WithHint("edit it with `baton profile allow|disallow|set %s`, or create a profile with another name", name))
			}
			p := &baton.Profile{Name: name, Extends: extends, Description: description}
			if err := p.Validate(); err != nil {
				return a.fail(err)
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			err = s.Update(ctx, func(tx baton.Tx) error {
				if _, err := tx.Profile(ctx, name); err == nil {
					return baton.Errorf(baton.ErrConflict, "profile %s exists already", name).WithType("duplicate").
						WithDetails("profile", name).
						WithHint("edit it with `baton profile set %s`, or delete it first with `baton profile delete %s`", name, name)
				}
				if err := tx.PutProfile(ctx, p); err != nil {
					return err
				}
				return a.accessChanged(ctx, tx, "profile.create", name, "")
			})
			if err != nil {
				return a.fail(err)
			}
			return a.printEffective(c, name, fmt.Sprintf("created profile %s (extends %s)", name, extends))
		},
	}
	cmd.Flags().StringVar(&extends, "extends", "", "the built-in profile whose defaults it starts from (required)")
	cmd.Flags().StringVar(&description, "description", "", "what the profile is for")
	return cmd
}

func (a *App) profileAllowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "allow PROFILE TOOL...",
		Short: "Add tools to a profile's allowed tools; naming a privileged tool grants it",
		Long: "allow adds tools to the profile's allowed_tools and takes them off its disallowed_tools. Naming a\n" +
			"privileged tool is the explicit grant it needs. An allowed list narrows the defaults, so granting\n" +
			"a privileged tool to a profile that lists none writes its whole default set into the list first.\n" +
			"A tool that is neither among the profile's defaults nor privileged cannot be allowed: give it\n" +
			"through a skill (`baton profile set P --skills ...`) or the project (`baton project tools`).",
		Args: argsBetween(2, -1, "a profile name and one or more tools"),
		RunE: func(c *cobra.Command, args []string) error {
			name, names := args[0], args[1:]
			if err := a.checkTools(names); err != nil {
				return a.fail(err)
			}
			return a.editProfile(c, name, func(p *baton.Profile) ([]string, error) {
				if err := a.checkAllowable(p, names); err != nil {
					return nil, err
				}
				var notes []string
				if len(p.AllowedTools) == 0 && slices.ContainsFunc(names, a.privileged) {
					p.AllowedTools = a.defaults(p.Base())
					notes = append(notes, fmt.Sprintf("allowed_tools of %s now lists its %d default tools too: an allowed list narrows the defaults", name, len(p.AllowedTools)))
				}
				for _, n := range names {
					if len(p.AllowedTools) > 0 && !slices.Contains(p.AllowedTools, n) {
						p.AllowedTools = append(p.AllowedTools, n)
					}
					p.DisallowedTools = slices.DeleteFunc(p.DisallowedTools, func(d string) bool { return d == n })
					notes = append(notes, a.toolNotes(name, n)...)
				}
				return notes, nil
			})
		},
	}
}

// toolNotes say what a named tool's annotations mean for who gets it.
func (a *App) toolNotes(who, name string) []string {
	var notes []string
	t, _ := a.Registry.Get(name)
	if t.Spec().Annotations.Privileged {
		notes = append(notes, fmt.Sprintf("%s is privileged: %s now has it by explicit grant", name, who))
	}
	if t.Spec().Annotations.SchedulerBlocked {
		notes = append(notes, fmt.Sprintf("%s is scheduler-blocked: scheduler sessions of %s still lack it", name, who))
	}
	return notes
}

func (a *App) profileDisallowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "disallow PROFILE TOOL...",
		Short: "Add tools to a profile's disallowed tools",
		Args:  argsBetween(2, -1, "a profile name and one or more tools"),
		RunE: func(c *cobra.Command, args []string) error {
			name, names := args[0], args[1:]
			if err := a.checkTools(names); err != nil {
				return a.fail(err)
			}
			return a.editProfile(c, name, func(p *baton.Profile) ([]string, error) {
				for _, n := range names {
					if !slices.Contains(p.DisallowedTools, n) {
						p.DisallowedTools = append(p.DisallowedTools, n)
					}
				}
				return nil, nil
			})
		},
	}
}

func (a *App) profileSetCmd() *cobra.Command {
	var allowed, disallowed, skillNames []string
	var description string
	cmd := &cobra.Command{
		Use:   "set PROFILE [--allowed a,b] [--disallowed c] [--skills s1,s2] [--description D]",
		Short: "Replace a profile's lists; an empty value clears one",
		Args:  argsBetween(1, 1, "one profile name"),
		RunE: func(c *cobra.Command, args []string) error {
			f := c.Flags()
			if !f.Changed("allowed") && !f.Changed("disallowed") && !f.Changed("skills") && !f.Changed("description") {
				return a.fail(baton.Errorf(baton.ErrInvalidInput, "set changes nothing without a flag").
					WithHint("pass --allowed, --disallowed, --skills or --description (an empty value clears a list)"))
			}
			allowed, disallowed, skillNames = compact(allowed), compact(disallowed), compact(skillNames)
			if err := a.checkTools(append(slices.Clone(allowed), disallowed...)); err != nil {
				return a.fail(err)
			}
			return a.editProfile(c, args[0], func(p *baton.Profile) ([]string, error) {
				var notes []string
				if f.Changed("allowed") {
					if err := a.checkAllowable(p, allowed); err != nil {
						return nil, err
					}
					p.AllowedTools = allowed
					for _, n := range allowed {
						notes = append(notes, a.toolNotes(p.Name, n)...)
					}
				}
				if f.Changed("disallowed") {
					p.DisallowedTools = disallowed
				}
				if f.Changed("skills") {
					p.Skills = skillNames
					notes = append(notes, skillNotes(skillNames)...)
				}
				if f.Changed("description") {
					p.Description = description
				}
				return notes, nil
			})
		},
	}
	cmd.Flags().StringSliceVar(&allowed, "allowed", nil, "the allowed tools (narrow the defaults; privileged ones are granted)")
	cmd.Flags().StringSliceVar(&disallowed, "disallowed", nil, "the disallowed tools")
	cmd.Flags().StringSliceVar(&skillNames, "skills", nil, "skills whose baton-tools the profile gets")
	cmd.Flags().StringVar(&description, "description", "", "what the profile is for")
	return cmd
}

// compact drops empty names, so --allowed ” clears a list, and repeats.
func compact(names []string) []string {
	out := []string{}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func (a *App) profileResetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reset PROFILE",
		Short: "Return a profile to its defaults: a built-in one to the registry's, a custom one to its base's",
		Args:  argsBetween(1, 1, "one profile name"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx, name := c.Context(), args[0]
			if !baton.IsBuiltinProfile(name) {
				// A custom profile keeps what it is (extends, description)
				// and loses its lists.
				return a.editProfile(c, name, func(p *baton.Profile) ([]string, error) {
					p.AllowedTools, p.DisallowedTools, p.Skills = nil, nil, nil
					return nil, nil
				})
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			err = s.Update(ctx, func(tx baton.Tx) error {
				if err := tx.DeleteProfile(ctx, name); err != nil {
					return err
				}
				return a.accessChanged(ctx, tx, "profile.reset", name, "")
			})
			var notes []string
			if e := baton.AsError(err); e != nil && e.Code == baton.ErrNotFound {
				notes = append(notes, name+" has no stored settings: it has its registry defaults already")
			} else if err != nil {
				return a.fail(err)
			}
			return a.printEffective(c, name, notes...)
		},
	}
}

func (a *App) profileDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete PROFILE",
		Short: "Delete a custom profile",
		Args:  argsBetween(1, 1, "one profile name"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx, name := c.Context(), args[0]
			if baton.IsBuiltinProfile(name) {
				return a.fail(baton.Errorf(baton.ErrInvalidInput, "%s is a built-in profile and cannot be deleted", name).
					WithDetails("profile", name).
					WithHint("`baton profile reset %s` returns it to its registry defaults", name))
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var holders int
			err = s.Update(ctx, func(tx baton.Tx) error {
				if err := tx.DeleteProfile(ctx, name); err != nil {
					return err
				}
				if err := a.accessChanged(ctx, tx, "profile.delete", name, ""); err != nil {
					return err
				}
				toks, err := tx.Tokens(ctx)
				for _, t := range toks {
					if t.Active() && t.Profile == name {
						holders++
					}
				}
				return err
			})
			if err != nil {
				return a.fail(err)
			}
			var warnings []string
			if holders > 0 {
				warnings = append(warnings, fmt.Sprintf("%d active agent tokens name profile %s: their sessions now have no tools; revoke them or create the profile again", holders, name))
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"deleted": name, "active_tokens": holders, "warnings": nonNil(warnings)})
			}
			fmt.Fprintf(a.Stdout, "deleted profile %s\n", name)
			for _, w := range warnings {
				fmt.Fprintf(a.Stdout, "warning: %s\n", w)
			}
			return nil
		},
	}
}
