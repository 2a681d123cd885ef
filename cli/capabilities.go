package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tools/capabilities"
	"github.com/spf13/cobra"
)

// capabilitiesCmd makes `baton capabilities` Botholomew's `botholomew
// capabilities`: it writes the summary capabilities_refresh writes (for a
// profile's tools, or every tool) and prints it. group is the capabilities
// toolset's command when the registry has one (its capabilities-refresh
// subcommand stays); nil makes a command of its own.
func (a *App) capabilitiesCmd(group *cobra.Command) *cobra.Command {
	cmd := group
	if cmd == nil {
		cmd = &cobra.Command{Use: capabilities.Toolset}
	}
	var profile string
	var noMCP, asJSON bool
	cmd.Short = "Write and print the summary of a profile's tools, one line per theme"
	cmd.Long = "capabilities writes what a session's tools let an agent do, one line per theme and no tool names, to\n" +
		"prompts/<profile>/capabilities.md in baton's data directory (.baton/), for agent prompts to include,\n" +
		"and prints it. It is capabilities_refresh from the command line: --profile for a profile's tools\n" +
		"(its stored settings and the --project bundle), every tool without."
	cmd.Args = noArgs
	cmd.RunE = func(c *cobra.Command, _ []string) error {
		ctx := c.Context()
		if !noMCP {
			if err := a.usePlugins(ctx); err != nil { // plugin tools are external capabilities
				return err
			}
		}
		env, err := a.toolEnv(ctx, a.Registry, "FULL")
		if err != nil {
			return &ExitError{Code: ExitTool, Err: err}
		}
		p := a.principal(baton.SourceCLI, "user")
		if profile != "" {
			if err := env.Store.View(ctx, func(tx baton.Tx) error {
				_, err := tx.Profile(ctx, profile)
				return err
			}); err != nil {
				return a.fail(err)
			}
			// As a session of the profile sees it, as `baton tools --profile`.
			p = baton.Principal{Agent: p.Agent, Profile: profile, AgentType: profile, Project: a.project, Source: baton.SourceStdio}
		}
		now := time.Now()
		if a.Clock != nil {
			now = a.Clock()
		}
		s, err := capabilities.Refresh(ctx, env, p, !noMCP, now.UTC())
		if err != nil {
			return a.fail(err)
		}
		if asJSON {
			enc := json.NewEncoder(a.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"path": s.Path, "internal_tool_count": s.InternalTools,
				"mcp_tool_count": s.ExternalTools, "created_file": s.Created, "message": capabilities.Message(s), "is_error": false})
		}
		fmt.Fprint(a.Stdout, s.Markdown)
		fmt.Fprintf(a.Stderr, "baton: %s: %s\n", s.Path, capabilities.Message(s))
		return nil
	}
	cmd.Flags().StringVar(&profile, "profile", "", "summarise this profile's tools (default: every tool)")
	cmd.Flags().BoolVar(&noMCP, "no-mcp", false, "leave the plugins' (external MCP servers') tools out")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print capabilities_refresh's output instead of the summary")
	return cmd
}
