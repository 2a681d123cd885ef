package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// agentCmd is `baton agent`: the bearer tokens that admit agents to
// `baton serve`. A token fixes who its bearer is (agent, profile, project,
// scheduler mode); baton stores only its hash and shows it once.
func (a *App) agentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Issue, list and revoke the bearer tokens agents present to baton serve",
		Long: "baton serve admits an agent over HTTP only with a bearer token (Authorization: Bearer TOKEN).\n" +
			"The token decides who the agent is: its name, profile, default project and scheduler mode.\n" +
			"baton keeps only the token's SHA-256, so a token is printed once, when it is issued.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(a.agentCreateCmd(), a.agentTokenCmd(), a.agentListCmd(), a.agentRevokeCmd())
	return cmd
}

// agentNameRE is what an agent's name may look like in a token.
var agentNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

func checkAgentName(name string) error {
	if !agentNameRE().MatchString(name) {
		return usageError("agent name %q is not valid: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	if name == baton.User {
		// The user is the person at the CLI and the dashboard; a token in
		// that name would let an agent speak for them.
		return usageError("%q is the person running baton, not an agent: pick another name", name)
	}
	return nil
}

// tokenView is a token as `baton agent` prints it: never its hash.
type tokenView struct {
	ID        string `json:"id"`
	Agent     string `json:"agent"`
	Profile   string `json:"profile"`
	Project   string `json:"project"`
	Scheduler bool   `json:"scheduler"`
	Preset    string `json:"preset,omitempty"`
	CreatedAt string `json:"created_at"`
	RevokedAt string `json:"revoked_at,omitempty"`
	// Token is set only in the answer that issues it.
	Token string `json:"token,omitempty"`
}

func tokenViewOf(t *baton.AgentToken) tokenView {
	v := tokenView{ID: t.ID, Agent: t.Agent, Profile: t.Profile, Project: t.Project, Scheduler: t.Scheduler,
		Preset: t.Preset, CreatedAt: baton.Timestamp(t.CreatedAt)}
	if t.RevokedAt != nil {
		v.RevokedAt = baton.Timestamp(*t.RevokedAt)
	}
	return v
}

func (a *App) agentNow() time.Time {
	if a.Clock != nil {
		return a.Clock().UTC()
	}
	return time.Now().UTC()
}

func (a *App) agentCreateCmd() *cobra.Command {
	var profile string
	var scheduler, asJSON bool
	cmd := &cobra.Command{
		Use:   "create NAME (--profile P | --preset NAME) [--project S] [--scheduler]",
		Short: "Issue the first token of an agent (printed once)",
		Long: "create issues a bearer token for agent NAME with profile P (built in or created with baton profile)\n" +
			"and/or a tool preset (" + strings.Join(tool.PresetNames(), ", ") + "; with a profile, the preset narrows its tools).\n" +
			"--project sets the default project of the agent's sessions; --scheduler makes them scheduler sessions.",
		Args: agentArgs(1, "NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			if profile == "" && a.preset == "" {
				return usageError("--profile or --preset is required: a profile (%s, or a custom one) or a preset (%s)",
					strings.Join(baton.BuiltinProfiles, ", "), strings.Join(tool.PresetNames(), ", "))
			}
			return a.issueToken(c, args[0], profile, a.project, scheduler, asJSON, true)
		},
	}
	cmd.Flags().StringVar(&profile, "profile", "", "the agent's profile: "+strings.Join(baton.BuiltinProfiles, ", ")+" or a custom one (required)")
	cmd.Flags().BoolVar(&scheduler, "scheduler", false, "the agent's sessions run in scheduler mode (no scheduler-blocked tools, capped creations)")
	cmd.Flags().StringVar(&a.preset, "preset", "", "the agent's tool preset: "+strings.Join(tool.PresetNames(), ", ")+" (default: core without a profile, the profile's tools with one)")
	a.jsonFlagVar(cmd, &asJSON, `{"token": {"id", "agent", "profile", "preset", "project", "scheduler", "created_at", "token" (the secret,
shown this once)}, "note"}.`)
	return cmd
}

func (a *App) agentTokenCmd() *cobra.Command {
	var profile string
	var scheduler, asJSON bool
	cmd := &cobra.Command{
		Use:   "token NAME [--profile P]",
		Short: "Issue another token for an agent (printed once)",
		Long: "token issues one more bearer token for agent NAME, e.g. to rotate: issue, switch the agent over, then\n" +
			"baton agent revoke OLD_TOKEN_ID. Profile, project and scheduler mode default to the agent's newest token's.",
		Args: agentArgs(1, "NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var newest *baton.AgentToken
			err = s.View(ctx, func(tx baton.Tx) error {
				toks, err := tx.Tokens(ctx)
				for _, t := range toks {
					if t.Agent == args[0] {
						newest = t // oldest first: the last one is the newest
					}
				}
				return err
			})
			if err != nil {
				return a.fail(err)
			}
			project := a.project
			if newest != nil {
				if profile == "" {
					profile = newest.Profile
				}
				if !c.Flags().Changed("project") && a.Getenv("BATON_PROJECT") == "" {
					project = newest.Project
				}
				if !c.Flags().Changed("scheduler") {
					scheduler = newest.Scheduler
				}
				if !c.Flags().Changed("preset") {
					a.preset = newest.Preset
				}
			} else if profile == "" && a.preset == "" {
				return usageError("agent %s has no token to take a profile from: pass --profile, or use baton agent create %s --profile P", args[0], args[0])
			}
			return a.issueToken(c, args[0], profile, project, scheduler, asJSON, false)
		},
	}
	cmd.Flags().StringVar(&profile, "profile", "", "the token's profile (default: the agent's newest token's)")
	cmd.Flags().StringVar(&a.preset, "preset", "", "the token's tool preset (default: the agent's newest token's)")
	cmd.Flags().BoolVar(&scheduler, "scheduler", false, "the token's sessions run in scheduler mode (default: as the newest token)")
	a.jsonFlagVar(cmd, &asJSON, `{"token": {"id", "agent", "profile", "preset", "project", "scheduler", "created_at", "token" (the secret,
shown this once)}, "note"}.`)
	return cmd
}

// issueToken stores a new token for agent and prints it, once. A fresh
// agent (baton agent create) must not have had a token before: two
// programs given one name would be one agent to baton.
func (a *App) issueToken(c *cobra.Command, agent, profile, project string, scheduler, asJSON, fresh bool) error {
	if err := checkAgentName(agent); err != nil {
		return err
	}
	ctx := c.Context()
	s, err := a.openStore(ctx)
	if err != nil {
		return a.fail(err)
	}
	if a.preset != "" && !tool.IsPreset(a.preset) {
		return usageError("unknown preset %q: choose one of %s", a.preset, strings.Join(tool.PresetNames(), ", "))
	}
	token, tok := mcpserver.NewToken(agent, profile, project, scheduler)
	tok.Preset = a.preset
	tok.CreatedAt = a.agentNow()
	err = s.Update(ctx, func(tx baton.Tx) error {
		if fresh {
			toks, err := tx.Tokens(ctx)
			if err != nil {
				return err
			}
			for _, t := range toks {
				if t.Agent == agent {
					return baton.Errorf(baton.ErrConflict, "agent %s already has tokens", agent).WithType("duplicate").
						WithDetails("agent", agent).
						WithHint("issue it another with `baton agent token %s`, or pick a new name", agent)
				}
			}
		}
		if profile != "" { // a token with only a preset has no profile to check
			if _, err := tx.Profile(ctx, profile); err != nil {
				return err
			}
		}
		if project != "" {
			if _, err := tx.Project(ctx, project); err != nil {
				return err
			}
		}
		if err := tx.CreateToken(ctx, tok); err != nil {
			return err
		}
		return auditAccess(ctx, tx, "agent_token_issue", a.human().Agent,
			map[string]any{"agent": agent, "profile": profile, "project": project, "scheduler": scheduler, "preset": tok.Preset},
			map[string]any{"id": tok.ID}, tok.CreatedAt)
	})
	if e := baton.AsError(err); e != nil && e.Code == baton.ErrNotFound && e.Details["profile"] != nil {
		return usageError("profile %q does not exist: use one of the built-in profiles (%s) or create it first with `baton profile create %s --extends worker`",
			profile, strings.Join(baton.BuiltinProfiles, ", "), profile)
	}
	if err != nil {
		return a.fail(err)
	}
	v := tokenViewOf(tok)
	v.Token = token
	if asJSON {
		return printAgentJSON(a, map[string]any{"token": v, "note": "this token will not be shown again"})
	}
	where := ""
	if project != "" {
		where = ", project " + project
	}
	if scheduler {
		where += ", scheduler mode"
	}
	fmt.Fprintf(a.Stdout, "issued %s for %s (profile %s%s)\n%s\n", tok.ID, agent, profile, where, token)
	fmt.Fprintln(a.Stdout, "This token will not be shown again: baton keeps only its hash. Give it to the agent as `Authorization: Bearer TOKEN`.")
	return nil
}

func (a *App) agentListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [NAME]",
		Short: "List the tokens issued (all, or one agent's), oldest first; never their secrets",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			var toks []*baton.AgentToken
			if err := s.View(ctx, func(tx baton.Tx) (err error) { toks, err = tx.Tokens(ctx); return err }); err != nil {
				return a.fail(err)
			}
			views := []tokenView{}
			for _, t := range toks {
				if len(args) == 0 || t.Agent == args[0] {
					views = append(views, tokenViewOf(t))
				}
			}
			if asJSON {
				return printAgentJSON(a, map[string]any{"tokens": views})
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tAGENT\tPROFILE\tPROJECT\tSCHEDULER\tCREATED\tREVOKED")
			for _, v := range views {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%t\t%s\t%s\n", v.ID, v.Agent, v.Profile, orDash(v.Project), v.Scheduler, v.CreatedAt, orDash(v.RevokedAt))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "%d tokens\n", len(views))
			return nil
		},
	}
	a.jsonFlagVar(cmd, &asJSON, `{"tokens": [{"id", "agent", "profile", "preset", "project", "scheduler", "created_at", "revoked_at"}]}, oldest first.`)
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (a *App) agentRevokeCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "revoke NAME|TOKEN_ID",
		Short: "Revoke one token (by id) or every token of an agent (by name)",
		Long: "revoke ends the tokens at once: running servers refuse them within " + mcpserver.MaxTokenTTL.String() + "\n" +
			"(the time they may reuse a token they looked up).",
		Args: agentArgs(1, "NAME|TOKEN_ID"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			who, now := args[0], a.agentNow()
			var n, known int
			err = s.Update(ctx, func(tx baton.Tx) error {
				toks, err := tx.Tokens(ctx)
				if err != nil {
					return err
				}
				if who, err = resolveToken(toks, who); err != nil { // a name, an id, or a unique start of an id
					return err
				}
				var active []string // the tokens this revokes
				for _, t := range toks {
					if t.ID == who || t.Agent == who {
						known++
						if t.Active() {
							active = append(active, t.ID)
						}
					}
				}
				if known == 0 {
					return baton.Errorf(baton.ErrNotFound, "no token has id or agent %q", who).
						WithDetails("who", who).WithHint("see the tokens with `baton agent list`")
				}
				if n, err = tx.RevokeTokens(ctx, who, now); err != nil {
					return err
				}
				if n > 0 {
					if err := a.accessChanged(ctx, tx, "token.revoke", "", "", active...); err != nil {
						return err
					}
				}
				return auditAccess(ctx, tx, "agent_token_revoke", a.human().Agent, map[string]any{"who": who},
					map[string]any{"revoked": n}, now)
			})
			if err != nil {
				return a.fail(err)
			}
			if asJSON {
				return printAgentJSON(a, map[string]any{"revoked": n, "who": who})
			}
			fmt.Fprintf(a.Stdout, "revoked %d tokens of %s", n, who)
			if n < known {
				fmt.Fprintf(a.Stdout, " (%d already revoked)", known-n)
			}
			fmt.Fprintln(a.Stdout)
			return nil
		},
	}
	a.jsonFlagVar(cmd, &asJSON, `{"revoked": N (tokens revoked now), "who": the agent name or the whole token id}.`)
	return cmd
}

// auditAccess appends a change to the tokens to the action log: who did
// it and digests of what, never a token or its hash.
func auditAccess(ctx context.Context, tx baton.Tx, tool, agent string, in, out any, at time.Time) error {
	return audit.Record(ctx, tx, audit.Change{Agent: agent, Source: string(baton.SourceCLI), Tool: tool, In: in, Out: out, At: at})
}

func printAgentJSON(a *App, v any) error {
	enc := json.NewEncoder(a.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// exactArgs is cobra.ExactArgs with baton's usage error, naming what is
// missing.
func agentArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("%s takes %s (see %s --help)", c.CommandPath(), what, c.CommandPath())
		}
		return nil
	}
}

// rateLimitOf reads --rate-limit of baton mcp and baton serve.
func rateLimitOf(c *cobra.Command) (float64, error) {
	n, err := c.Flags().GetFloat64("rate-limit")
	if err != nil || n < 0 {
		return 0, usageError("--rate-limit must be 0 (no limit) or more tool calls per second per agent, not %v", n)
	}
	return n, nil
}

// rateLimitUsage documents --rate-limit.
const rateLimitUsage = "tool calls per second each agent may make on average, in bursts of 4 seconds' worth (0: no limit)"

// isLoopback reports whether addr (host:port) listens only on this
// machine: --insecure-local serves without tokens, so nowhere else.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
