package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

func (a *App) toolsCmd() *cobra.Command {
	var markdown, scheduler, asJSON bool
	var profile string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List every registered tool, or a preset's or profile's tools with what their schemas cost",
		Long: "tools lists every registered tool with its toolset and purpose. With --preset it lists the tools an\n" +
			"agent's session of that preset gets (" + strings.Join(tool.PresetNames(), ", ") + "; core is what a session that\n" +
			"names nothing gets). With --profile it lists the tools a session of that profile gets (its stored\n" +
			"settings, skills and the --project bundle, within --preset when given; --scheduler for a scheduler\n" +
			"session). Both show what each schema costs a model's context: tools/list's JSON of the tool (name,\n" +
			"description, annotations, input and output schemas) in characters over four, an estimate.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !markdown { // the reference is baton's own tools; listings include plugins' (cli/plugins.go)
				if err := a.usePlugins(c.Context()); err != nil {
					return err
				}
			}
			switch {
			case markdown && (profile != "" || asJSON):
				return usageError("--markdown prints the whole reference: use it without --profile and --json")
			case scheduler && profile == "":
				return usageError("--scheduler needs --profile: it removes the scheduler-blocked tools from a profile's")
			case a.preset != "" && !tool.IsPreset(a.preset):
				return usageError("unknown preset %q: choose one of %s", a.preset, strings.Join(tool.PresetNames(), ", "))
			case markdown && a.preset != "":
				return usageError("--markdown prints the whole reference: use it without --preset")
			case markdown:
				_, err := io.WriteString(a.Stdout, ToolsMarkdown(a.Registry))
				return err
			case profile != "":
				scope, err := a.profileScope(c.Context(), profile, scheduler)
				if err != nil {
					return a.fail(err)
				}
				return a.writeToolCosts(scope, asJSON)
			case a.preset != "":
				// What an agent's session of the preset that names no
				// profile lists: no database needed.
				p := baton.Principal{Agent: "agent", Source: baton.SourceStdio, Preset: a.preset}
				return a.writeToolCosts(tool.ComputeScope(a.Registry, p, tool.ScopeInput{}), asJSON)
			}
			return a.writeToolCosts(nil, asJSON)
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the reference docs/tools.md is made of")
	cmd.Flags().StringVar(&profile, "profile", "", "list this profile's effective tools and their token cost")
	cmd.Flags().BoolVar(&scheduler, "scheduler", false, "with --profile: a scheduler session's tools")
	cmd.Flags().StringVar(&a.preset, "preset", "", "list this preset's tools and their token cost: "+strings.Join(tool.PresetNames(), ", "))
	a.jsonFlagVar(cmd, &asJSON, `{"tools": [{"name", "toolset", "tokens"}], "count": N, "tokens": N (≈ tokens of schema in all),
"estimate", and with --profile "rule" and "warnings": [...]}.`)
	return cmd
}

// toolCost is one line of `baton tools --json`.
type toolCost struct {
	Name    string `json:"name"`
	Toolset string `json:"toolset"`
	Tokens  int    `json:"tokens"`
}

// writeToolCosts prints a scope's tools with their schema cost, or, for
// a nil scope, every tool with its purpose and the cost of them all.
func (a *App) writeToolCosts(scope *tool.Scope, asJSON bool) error {
	var list []toolCost
	total := 0
	for _, t := range a.Registry.All() {
		s := t.Spec()
		if scope != nil && !scope.Listed(s.Name) {
			continue
		}
		n := tool.SchemaTokens(s)
		total += n
		list = append(list, toolCost{s.Name, s.Toolset, n})
	}
	if asJSON {
		out := map[string]any{"tools": list, "count": len(list), "tokens": total, "estimate": tool.TokenEstimate}
		if scope != nil {
			out["rule"], out["warnings"] = scope.Rule, append([]string{}, scope.Warnings...)
		}
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
	if scope == nil {
		fmt.Fprintln(tw, "TOOL\tTOOLSET\tDESCRIPTION")
		for _, t := range a.Registry.All() {
			s := t.Spec()
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Toolset, firstSentence(s.Description))
		}
	} else {
		fmt.Fprintln(tw, "TOOL\tTOOLSET\t≈TOKENS")
		for _, c := range list {
			fmt.Fprintf(tw, "%s\t%s\t%d\n", c.Name, c.Toolset, c.Tokens)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	rule := "every registered tool"
	if scope != nil {
		rule = scope.Rule
	}
	fmt.Fprintf(a.Stdout, "%d tools (%s): ≈ %d tokens of schema in tools/list (estimated as %s)\n", len(list), rule, total, tool.TokenEstimate)
	if scope != nil {
		for _, w := range scope.Warnings {
			fmt.Fprintf(a.Stdout, "warning: %s\n", w)
		}
	}
	return nil
}

// serverMode is what server_health reports for a server's tool selection.
func serverMode(readOnly bool) string {
	if readOnly {
		return "READONLY"
	}
	return "FULL"
}

// selectTools is the registry a server offers: the tools of the named
// toolsets ("all", the default, for every one), and with readOnly only
// the read-only ones. Tools left out are not registered at all, as in
// github-mcp-server: tools/list never shows them and a call names an
// unknown tool. An unknown toolset is a usage error listing the known ones.
func selectTools(reg *tool.Registry, toolsets []string, readOnly bool) (*tool.Registry, error) {
	known := reg.Toolsets()
	hint := "pass --toolsets all, or a comma-separated list of: " + strings.Join(known, ", ")
	on := map[string]bool{}
	for _, name := range toolsets {
		name = strings.TrimSpace(name)
		switch {
		case name == "all":
			for _, k := range known {
				on[k] = true
			}
		case slices.Contains(known, name):
			on[name] = true
		default:
			return nil, baton.Errorf(baton.ErrInvalidInput, "unknown toolset %q", name).
				WithDetails("flag", "toolsets", "toolset", name, "allowed", append([]string{"all"}, known...)).WithHint("%s", hint)
		}
	}
	if len(on) == 0 {
		return nil, baton.Errorf(baton.ErrInvalidInput, "--toolsets names no toolset").
			WithDetails("flag", "toolsets", "allowed", append([]string{"all"}, known...)).WithHint("%s", hint)
	}
	out := reg.Filter(func(s *tool.Spec) bool { return on[s.Toolset] && (!readOnly || s.Annotations.ReadOnly) })
	if out.Len() == 0 {
		return nil, baton.Errorf(baton.ErrInvalidInput, "--toolsets %s with --read-only leaves no tool", strings.Join(toolsets, ",")).
			WithDetails("flag", "toolsets").WithHint("add a toolset with read-only tools, e.g. tasks, or drop --read-only")
	}
	return out, nil
}

// ToolsMarkdown renders the tool reference from the registry; docs/tools.md
// is this text, and a test fails when the file is stale.
func ToolsMarkdown(reg *tool.Registry) string {
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("Generated from the registry by `baton tools --markdown > docs/tools.md`; do not edit by hand.\n")
	b.WriteString("Every tool is also a CLI command: `baton <toolset> <tool> --flag ...` (flags are the kebab-case\n")
	b.WriteString("input fields; `--input '{json}'` for raw input; `--json` for the structured output).\n\n")
	b.WriteString("Failures are results with `isError: true` and `structuredContent` of the form\n")
	b.WriteString("`{\"error\": {\"code\", \"type\", \"message\", \"details\", \"next_action_hint\"}}`. Codes: ")
	b.WriteString("`" + strings.Join(baton.ErrorCodes, "`, `") + "`.\n\n")
	b.WriteString(limitsMarkdown())
	b.WriteString("| tool | toolset | annotations | description |\n|---|---|---|---|\n")
	for _, t := range reg.All() {
		s := t.Spec()
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", s.Name, s.Name, s.Toolset, annotations(s.Annotations), firstSentence(s.Description))
	}
	for _, t := range reg.All() {
		s := t.Spec()
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\nCLI: `baton %s %s`\n\n", s.Name, s.Description, s.Toolset, s.Name)
		writeFields(&b, "Input", s)
		in, _ := json.MarshalIndent(s.InputSchema(), "", "  ")
		out, _ := json.MarshalIndent(s.OutputSchema(), "", "  ")
		fmt.Fprintf(&b, "<details><summary>Input schema</summary>\n\n```json\n%s\n```\n</details>\n\n", in)
		fmt.Fprintf(&b, "<details><summary>Output schema</summary>\n\n```json\n%s\n```\n</details>\n", out)
	}
	return b.String()
}

// limitsMarkdown states the limits every input obeys; each field's own
// limit is in its row of the tool's field table.
func limitsMarkdown() string {
	return "## Input limits\n\n" +
		"Every input field is bounded; a value past its limit is refused with `ERR_INVALID_INPUT`, whose\n" +
		"`details` name the `field`, the `constraint` and (in `violations`) the `limit`. Each field's limit is in\n" +
		"its row below and in the input schema. Where a tool sets none, these defaults apply:\n\n" +
		"| what | limit |\n|---|---|\n" +
		fmt.Sprintf("| the whole arguments object | %s of JSON (`maxBytes`), checked before anything else |\n", tool.Bytes(tool.MaxArguments)) +
		fmt.Sprintf("| a string | %d characters (`maxLength`); a date-time %d |\n", tool.DefaultMaxString, tool.DefaultMaxDateTime) +
		fmt.Sprintf("| an array | %d items (`maxItems`) |\n", tool.DefaultMaxItems) +
		fmt.Sprintf("| a free-form object (e.g. `metadata`) | %s of compact JSON (`maxBytes`), stated in its description as \"At most … as JSON.\" |\n", tool.Bytes(tool.DefaultMaxObjectBytes)) +
		"| an integer | what a 64-bit signed integer holds, besides the field's own minimum and maximum |\n" +
		"| a number | a finite double |\n" +
		"| any string, object key included | no NUL character (U+0000), which PostgreSQL cannot store (`constraint` `nul`) |\n\n"
}

func writeFields(b *strings.Builder, title string, s *tool.Spec) {
	in := s.InputSchema()
	if len(in.PropertyOrder) == 0 {
		fmt.Fprintf(b, "%s: none.\n\n", title)
		return
	}
	fmt.Fprintf(b, "| %s field | type | rules |\n|---|---|---|\n", strings.ToLower(title))
	for _, name := range in.PropertyOrder {
		p := in.Properties[name]
		typ := p.Type
		if p.Items != nil {
			typ += " of " + p.Items.Type
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", name, typ, strings.ReplaceAll(usageText(p, slices.Contains(in.Required, name)), "|", "\\|"))
	}
	b.WriteString("\n")
}

func annotations(a tool.Annotations) string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{{a.ReadOnly, "read-only"}, {a.Destructive, "destructive"}, {a.Idempotent, "idempotent"},
		{a.Terminal, "terminal"}, {a.Privileged, "privileged"}, {a.SchedulerBlocked, "scheduler-blocked"}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	return strings.Join(out, ", ")
}

func (a *App) projectCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "project", Short: "List the projects, show and configure one (gates, risk, instructions, phase contracts), set its tool bundle", Args: noArgs}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the projects in the database",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := a.openStore(c.Context())
			if err != nil {
				return a.fail(err)
			}
			var ps []*baton.Project
			if err := s.View(c.Context(), func(tx baton.Tx) error {
				var err error
				ps, err = tx.Projects(c.Context())
				return err
			}); err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				out := make([]map[string]any, len(ps))
				for i, p := range ps {
					out[i] = map[string]any{"slug": p.Slug, "prefix": p.Prefix, "name": p.Name, "tools": nonNil(p.Tools),
						"created_at": baton.Timestamp(p.CreatedAt)}
				}
				return a.printJSON(map[string]any{"projects": out})
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "PROJECT\tPREFIX\tNAME\tCREATED")
			for _, p := range ps {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Slug, p.Prefix, cleanLine(p.Name), p.CreatedAt.Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		},
	}
	a.jsonFlag(list, `{"projects": [{"slug", "prefix", "name", "tools" (the project's tool bundle), "created_at"}]}.`)
	cmd.AddCommand(list)
	cmd.AddCommand(a.projectToolsCmd())
	cmd.AddCommand(a.projectShowCmd(), a.projectConfigureCmd(), a.projectPhasesCmd()) // project_config.go
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	return cmd
}

// projectToolsCmd shows or replaces a project's tool bundle: tools every
// session of the project gets besides its profile's.
func (a *App) projectToolsCmd() *cobra.Command {
	var set []string
	cmd := &cobra.Command{
		Use:   "tools SLUG [--set a,b]",
		Short: "Show or replace the project's tool bundle (tools its sessions get besides their profile's)",
		Args:  argsBetween(1, 1, "one project slug"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx, slug := c.Context(), args[0]
			if err := a.usePlugins(ctx); err != nil { // plugin tools may be bundled too
				return err
			}
			changing := c.Flags().Changed("set")
			set = compact(set)
			if changing {
				if err := a.checkTools(set); err != nil {
					return a.fail(err)
				}
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var bundle []string
			err = s.Update(ctx, func(tx baton.Tx) error {
				if changing {
					if err := tx.SetProjectTools(ctx, slug, set); err != nil {
						return err
					}
					if err := a.accessChanged(ctx, tx, "project.tools", "", slug); err != nil {
						return err
					}
				}
				p, err := tx.Project(ctx, slug)
				if err == nil {
					bundle = p.Tools
				}
				return err
			})
			if err != nil {
				return a.fail(err)
			}
			notes := []string{}
			if changing {
				for _, n := range bundle {
					notes = append(notes, a.toolNotes("every session of "+slug, n)...)
				}
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"project": slug, "tools": nonNil(bundle), "changed": changing, "notes": notes})
			}
			for _, note := range notes {
				fmt.Fprintln(a.Stdout, note)
			}
			fmt.Fprintf(a.Stdout, "project %s bundle: %s\n", slug, listOr(bundle, "(none)"))
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&set, "set", nil, "replace the bundle with these tools (an empty value clears it)")
	a.jsonFlag(cmd, `{"project", "tools": [the bundle], "changed": true with --set, "notes": [...]}.`)
	return cmd
}

// toolsetsUsage documents --toolsets of baton mcp and baton serve.
const toolsetsUsage = "toolsets to offer, comma-separated (e.g. issues,claims), or all; tools outside them are not registered"
