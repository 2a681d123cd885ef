package tool_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// TestPoint1NoPrivilegedToolWithoutGrant (issue 12, point 1): a session
// that names no profile (`baton mcp --agent A`, `baton serve
// --insecure-local`, the CLI, a scheduler) neither lists nor calls a
// privileged tool; it has every other tool. A privileged tool comes only by
// an explicit grant (a profile's allowed tools, a project's bundle) or to
// the operator's web session.
func TestPoint1NoPrivilegedToolWithoutGrant(t *testing.T) {
	k := testkit.New(t)
	ctx := context.Background()
	const priv = "merkle_finalize"
	// A call that passes the scope fails on its argument instead: there
	// is no such audit session.
	args := map[string]any{"session_id": "A-0404"}

	// With the full preset (the CLI's default) the privileged tools are
	// the only ones missing; with the core preset they are missing too.
	for _, p := range []baton.Principal{
		{Agent: "A", Source: baton.SourceStdio, Preset: tool.PresetFull},
		{Agent: "anonymous", Source: baton.SourceHTTP, Preset: tool.PresetFull},
		{Agent: baton.User, Source: baton.SourceCLI},
		{Agent: "cron", Source: baton.SourceStdio, SchedulerMode: true, Preset: tool.PresetFull},
		{Agent: "A", Source: baton.SourceStdio, Project: testkit.Project, Preset: tool.PresetFull}, // a project without a bundle grants nothing
		{Agent: "A", Source: baton.SourceStdio},                                                    // core
	} {
		t.Run(string(p.Source)+"/"+p.Agent, func(t *testing.T) {
			s, err := k.Env.Scope(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			names := s.Names(k.Registry)
			if slices.Contains(names, priv) {
				t.Errorf("a session without a profile lists %s", priv)
			}
			// Every tool but the privileged ones (scheduler sessions lose
			// the scheduler-blocked ones too).
			for _, tl := range k.Registry.All() {
				sp := tl.Spec()
				want := !sp.Annotations.Privileged && !(p.SchedulerMode && sp.Annotations.SchedulerBlocked)
				if p.Preset == "" && p.Source == baton.SourceStdio {
					want = want && slices.Contains(tool.PresetTools(k.Registry, tool.PresetCore), sp.Name)
				}
				if s.Has(sp.Name) != want {
					t.Errorf("%s: in scope %v, want %v", sp.Name, s.Has(sp.Name), want)
				}
			}
			c := k.As(p.Agent)
			c.T, c.Principal = t, p
			e := c.FailEnvelope(priv, args, baton.ErrPermissionDenied)
			if e.Details["privileged"] != true || !strings.Contains(e.Hint, "baton profile allow") || !strings.Contains(e.Hint, "--agent-type") {
				t.Errorf("refusal %+v: want details.privileged and a hint naming the grant", e)
			}
		})
	}

	// The grants, and the operator.
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		if err := tx.PutProfile(ctx, &baton.Profile{Name: "auditor", Extends: "judge", AllowedTools: []string{"get_issue", "add_comment", priv}}); err != nil {
			return err
		}
		return tx.CreateProject(ctx, &baton.Project{Slug: "sealed", Prefix: "SEA"})
	}); err != nil {
		t.Fatal(err)
	}
	if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.SetProjectTools(ctx, "sealed", []string{priv}) }); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]baton.Principal{
		"profile grant (baton profile allow)": {Agent: "A", Profile: "auditor", AgentType: "auditor", Source: baton.SourceStdio},
		"the CLI naming the granted profile":  {Agent: baton.User, Profile: "auditor", AgentType: "auditor", Source: baton.SourceCLI},
		"project bundle, no profile":          {Agent: "A", Project: "sealed", Source: baton.SourceStdio},
		"web operator":                        {Agent: "operator", Source: baton.SourceWeb},
	} {
		t.Run(name, func(t *testing.T) {
			c := k.As(p.Agent)
			c.T, c.Principal = t, p
			c.FailEnvelope(priv, args, baton.ErrSessionNotFound)
		})
	}
}
