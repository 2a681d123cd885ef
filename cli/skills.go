package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/baton-dev/baton/skills"
	"github.com/spf13/cobra"
)

// skillsCmd is `baton skills reload`. Its parent is named like the skills
// toolset's command group, so root() must fold it into that group with
// mergeCommands: a second top-level "skills" would never be reached, as
// cobra runs the first command of a name.
func (a *App) skillsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "The skill registry (.agents/skills/*/SKILL.md)", Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	reload := &cobra.Command{
		Use:   "reload",
		Short: "Parse every SKILL.md under the working directory again; print the skills and the malformed files",
		Long: "reload parses .agents/skills/*/SKILL.md under the working directory again, changed or not, and prints\n" +
			"one line per skill (name version: description) and one per malformed file (error: path: message).\n" +
			"Malformed files are skipped, not fatal: the exit status is 0 all the same.\n\n" +
			"A running server needs no reload: it notices added, changed and removed files on the next call.\n" +
			"This command reloads the registry of its own process, so it is also the way to check the files.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// The tools read skills under Env.Getwd, which for the CLI is
			// the process's working directory; reload the same root.
			root, err := os.Getwd()
			if err != nil {
				return a.fail(err)
			}
			snap := skills.For(root).Reload()
			if wantJSON(c) { // output.go
				return a.printJSON(skillsReport(snap))
			}
			for _, s := range snap.Skills {
				name := s.Name
				if s.Version != "" {
					name += " " + s.Version
				}
				fmt.Fprintf(a.Stdout, "%s: %s\n", name, oneLine(s.Description))
			}
			for _, p := range snap.Warnings {
				fmt.Fprintf(a.Stdout, "warning: %s: %s\n", p.Path, oneLine(p.Message))
			}
			for _, p := range snap.Errors {
				fmt.Fprintf(a.Stdout, "error: %s: %s\n", p.Path, oneLine(p.Message))
			}
			return nil
		},
	}
	a.jsonFlag(reload, `{"skills": [{"name", "version", "description", "path", "tools"}], "warnings": [{"path", "message"}],
"errors": [{"path", "message"}]}.`)
	cmd.AddCommand(reload)
	return cmd
}

// skillsReport is `baton skills reload --json`.
func skillsReport(snap skills.Snapshot) map[string]any {
	list := make([]map[string]any, len(snap.Skills))
	for i, s := range snap.Skills {
		list[i] = map[string]any{"name": s.Name, "version": s.Version, "description": s.Description, "path": s.Path, "tools": nonNil(s.Tools)}
	}
	problems := func(ps []skills.Problem) []map[string]string {
		out := make([]map[string]string, len(ps))
		for i, p := range ps {
			out[i] = map[string]string{"path": p.Path, "message": p.Message}
		}
		return out
	}
	return map[string]any{"skills": list, "warnings": problems(snap.Warnings), "errors": problems(snap.Errors)}
}

// oneLine keeps a description from a block scalar on its one line.
func oneLine(s string) string { return cleanLine(strings.Join(strings.Fields(s), " ")) }

// mergeCommands returns cmds with extra folded in: the subcommands of an
// extra command named like one of cmds move under that command, and any
// other extra command is appended. It lets a hand-written command share a
// name with a toolset's generated group.
func mergeCommands(cmds []*cobra.Command, extra ...*cobra.Command) []*cobra.Command {
	for _, x := range extra {
		i := slices.IndexFunc(cmds, func(c *cobra.Command) bool { return c.Name() == x.Name() })
		if i < 0 {
			cmds = append(cmds, x)
			continue
		}
		for _, sub := range x.Commands() {
			x.RemoveCommand(sub)
			cmds[i].AddCommand(sub)
		}
	}
	return cmds
}
