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
	var markdown bool
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List every registered tool with its toolset and purpose",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if markdown {
				_, err := io.WriteString(a.Stdout, ToolsMarkdown(a.Registry))
				return err
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tTOOLSET\tDESCRIPTION")
			for _, t := range a.Registry.All() {
				s := t.Spec()
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Toolset, firstSentence(s.Description))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the reference docs/tools.md is made of")
	return cmd
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
	b.WriteString("| tool | toolset | annotations | description |\n|---|---|---|---|\n")
	for _, t := range reg.All() {
		s := t.Spec()
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", s.Name, s.Name, s.Toolset, annotations(s.Annotations), firstSentence(s.Description))
	}
	for _, t := range reg.All() {
		s := t.Spec()
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\nCLI: `baton %s %s`\n\n", s.Name, s.Description, s.Toolset, s.Name)
		writeFields(&b, "Input", s)
		in, _ := json.MarshalIndent(s.InputSchema, "", "  ")
		out, _ := json.MarshalIndent(s.OutputSchema, "", "  ")
		fmt.Fprintf(&b, "<details><summary>Input schema</summary>\n\n```json\n%s\n```\n</details>\n\n", in)
		fmt.Fprintf(&b, "<details><summary>Output schema</summary>\n\n```json\n%s\n```\n</details>\n", out)
	}
	return b.String()
}

func writeFields(b *strings.Builder, title string, s *tool.Spec) {
	in := s.InputSchema
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
	cmd := &cobra.Command{Use: "project", Short: "List projects", Args: noArgs}
	cmd.AddCommand(&cobra.Command{
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
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "PROJECT\tPREFIX\tNAME\tCREATED")
			for _, p := range ps {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Slug, p.Prefix, p.Name, p.CreatedAt.Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		},
	})
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	return cmd
}
