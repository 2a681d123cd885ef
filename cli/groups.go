package cli

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// Help groups: `baton --help` lists the commands by what they hold, each
// group's title saying so. Every command belongs to one (a test checks);
// a new top-level command needs a line in commandGroupOf.
const (
	groupSetup  = "setup"
	groupAccess = "access"
	groupWork   = "work"
	groupPeople = "people"
	groupAudit  = "audit"
	groupTools  = "tools"
)

// commandGroups are the groups in the order help shows them.
func commandGroups() []*cobra.Group {
	return []*cobra.Group{
		{ID: groupSetup, Title: "Set-up and servers (the database, MCP servers, client configuration, health, shell completion):"},
		{ID: groupAccess, Title: "Agents and access (bearer tokens, profiles, projects, and which tools each gets):"},
		{ID: groupWork, Title: "Work (the ready queue, live events, agent runs and memory):"},
		{ID: groupPeople, Title: "People and messages (your inbox, replies to agents, proposals to decide):"},
		{ID: groupAudit, Title: "Audit (verify, export and prove the tamper-evident trail; the audit tools):"},
		{ID: groupTools, Title: "Tool commands (one per toolset; `baton <toolset> <tool>` runs an MCP tool):"},
	}
}

// commandGroupOf is the help group of each top-level command that is not
// a toolset's; "" (no group) for one nobody placed, which a test catches.
var commandGroupOf = map[string]string{
	"init": groupSetup, "setup": groupSetup, "mcp": groupSetup, "serve": groupSetup, "doctor": groupSetup,
	"migrate": groupSetup, "backup": groupSetup, "restore": groupSetup, "export": groupSetup, "import": groupSetup, "version": groupSetup, "bench": groupSetup, "completion": groupSetup, "help": groupSetup,
	"agent": groupAccess, "profile": groupAccess, "project": groupAccess, "tools": groupAccess,
	"ready": groupWork, "watch": groupWork, "runs": groupWork, "memory": groupWork, "worktree": groupWork,
	"prs": groupWork, "pr": groupWork, "orchestrator": groupWork, "dispatch": groupWork, "hooks": groupWork, "knowledge": groupSetup,
	"inbox": groupPeople, "reply": groupPeople,
}

// commandGroup is the help group of a top-level command (see
// commandGroupOf).
func commandGroup(name string) string { return commandGroupOf[name] }

// placeToolset puts a toolset's command in its help group. Most go to the
// tool commands; a few hold the human's commands too and go where a
// person looks for them, with a summary that says so.
func placeToolset(c *cobra.Command) {
	switch c.Name() {
	case "audit":
		c.GroupID = groupAudit
		c.Short = "Verify and export the audit trail, check Merkle proofs offline, and the audit tools"
	case "proposals":
		c.GroupID = groupPeople
		c.Short = "Accept or dismiss agents' proposals, and the proposals tools"
	case "claims":
		c.GroupID = groupTools
		c.Short = "Claim work, and end a dead agent's claim (force-release)"
	case "capabilities":
		c.GroupID = groupAccess
	default:
		c.GroupID = groupTools
	}
}

// Shell completion (`baton completion bash|zsh|fish|powershell`): cobra
// completes commands and flags; the tool commands complete their enum
// flags from the schema (addFlag); addCompletions adds the names people
// type: profiles, projects, agents, tokens, proposals, threads, presets
// and toolsets, read from the database when there is one.

// completionTimeout bounds the database work of one completion: a shell
// must not hang on an unreachable PostgreSQL.
const completionTimeout = 2 * time.Second

// addCompletions registers the name completions on the command tree.
func (a *App) addCompletions(root *cobra.Command) {
	names := func(list func(ctx context.Context, tx baton.Tx) ([]string, error), extra ...string) cobra.CompletionFunc {
		return func(c *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return a.completeFrom(c, list, extra...), cobra.ShellCompDirectiveNoFileComp
		}
	}
	profiles := names(func(ctx context.Context, tx baton.Tx) ([]string, error) {
		ps, err := tx.Profiles(ctx)
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out, err
	}, baton.BuiltinProfiles...)
	projects := names(func(ctx context.Context, tx baton.Tx) ([]string, error) {
		ps, err := tx.Projects(ctx)
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Slug)
		}
		return out, err
	})
	agentList := func(ctx context.Context, tx baton.Tx) ([]string, error) {
		out := []string{}
		toks, err := tx.Tokens(ctx)
		for _, t := range toks {
			out = append(out, t.Agent)
		}
		if err != nil {
			return out, err
		}
		states, err := tx.Agents(ctx)
		for _, s := range states {
			if s.Name != baton.User {
				out = append(out, s.Name)
			}
		}
		return out, err
	}
	agents := names(agentList)
	tokensAndAgents := names(func(ctx context.Context, tx baton.Tx) ([]string, error) {
		out, err := agentList(ctx, tx)
		toks, terr := tx.Tokens(ctx)
		for _, t := range toks {
			if t.Active() {
				out = append(out, t.ID)
			}
		}
		return out, errors2(err, terr)
	})
	proposals := names(func(ctx context.Context, tx baton.Tx) ([]string, error) {
		ps, err := tx.Proposals(ctx, "", "pending", "")
		out := []string{}
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out, err
	})
	threads := names(func(ctx context.Context, tx baton.Tx) ([]string, error) {
		ths, err := tx.Threads(ctx, "", "")
		out := []string{}
		for _, th := range ths {
			out = append(out, th.ThreadID)
		}
		return out, err
	})
	fixed := func(values ...string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
	}
	firstArg := func(f cobra.CompletionFunc) cobra.CompletionFunc {
		return func(c *cobra.Command, args []string, s string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return f(c, args, s)
		}
	}
	// A profile, then tools: profile allow|disallow PROFILE TOOL...
	profileThenTools := func(c *cobra.Command, args []string, s string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return profiles(c, args, s)
		}
		return a.toolNames(), cobra.ShellCompDirectiveNoFileComp
	}
	byPath := map[string]cobra.CompletionFunc{
		"profile show": firstArg(profiles), "profile set": firstArg(profiles), "profile reset": firstArg(profiles),
		"profile delete": firstArg(profiles), "profile allow": profileThenTools, "profile disallow": profileThenTools,
		"agent list": firstArg(agents), "agent token": firstArg(agents), "agent revoke": firstArg(tokensAndAgents),
		"reply": firstArg(agents), "proposals accept": firstArg(proposals), "proposals dismiss": firstArg(proposals),
		"project tools": firstArg(projects),
	}
	toolsets := fixed(append([]string{"all"}, a.Registry.Toolsets()...)...)
	byFlag := map[string]cobra.CompletionFunc{
		"profile": profiles, "agent-type": profiles, "preset": fixed(tool.PresetNames()...), "toolsets": toolsets,
		"thread": threads, "project": projects, "project-slug": projects,
	}
	register := func(c *cobra.Command, flag string, f cobra.CompletionFunc) {
		if c.Flags().Lookup(flag) == nil && c.PersistentFlags().Lookup(flag) == nil {
			return
		}
		if _, ok := c.GetFlagCompletionFunc(flag); ok {
			return // the schema's enum, or registered already
		}
		_ = c.RegisterFlagCompletionFunc(flag, f)
	}
	// The root's own flags: --project, --agent-type, --agent for every command.
	register(root, "project", projects)
	register(root, "agent-type", profiles)
	register(root, "agent", agents)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
		if f, ok := byPath[path]; ok && c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 {
			c.ValidArgsFunction = f
		}
		if a.isToolCmd(c) {
			register(c, "project", projects) // a tool's own --project field
		} else if c != root {
			for flag, f := range byFlag {
				register(c, flag, f)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeFrom runs list on the database (if one is found) and returns
// extra plus what it lists, unique and sorted, leaving out names a shell
// could not take as they are (spaces, control characters).
func (a *App) completeFrom(c *cobra.Command, list func(ctx context.Context, tx baton.Tx) ([]string, error), extra ...string) []string {
	out := slices.Clone(extra)
	ctx, cancel := context.WithTimeout(c.Context(), completionTimeout)
	defer cancel()
	if s, err := a.openStore(ctx); err == nil {
		_ = s.View(ctx, func(tx baton.Tx) error {
			got, _ := list(ctx, tx)
			out = append(out, got...)
			return nil
		})
	}
	out = slices.DeleteFunc(out, func(s string) bool {
		return s == "" || cleanLine(s) != s || strings.ContainsAny(s, " '\"\\$`")
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// isToolCmd reports whether c is a tool's command, baton <toolset> <tool>.
func (a *App) isToolCmd(c *cobra.Command) bool {
	parent := c.Parent()
	if parent == nil || parent.Parent() == nil || parent.Parent().Parent() != nil {
		return false
	}
	t, ok := a.Registry.Get(c.Name())
	return ok && t.Spec().Toolset == parent.Name()
}

// errors2 is the first of two errors.
func errors2(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
