package tool

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

type noIn struct{}
type noOut struct {
	OK bool `json:"ok"`
}

// scopeRegistry is a registry with one tool of each kind the rules treat
// differently.
func scopeRegistry() *Registry {
	mk := func(name string, profiles []string, ann Annotations) Tool {
		return New(Definition[noIn, noOut]{Name: name, Toolset: "t", Description: name, Profiles: profiles, Annotations: ann,
			Execute: func(context.Context, *Call, noIn) (noOut, error) { return noOut{}, nil }})
	}
	r := NewRegistry()
	r.Add(
		mk("common", Profiles, Annotations{}),
		mk("worker_only", []string{"worker"}, Annotations{}),
		mk("scanner_only", []string{"scanner"}, Annotations{}),
		mk("priv", Profiles, Annotations{Privileged: true}),
		mk("blocked", Profiles, Annotations{SchedulerBlocked: true}),
		mk("priv_blocked", Profiles, Annotations{Privileged: true, SchedulerBlocked: true}),
		mk("nobody", nil, Annotations{}),
	)
	return r
}

var everyScopeTool = []string{"common", "worker_only", "scanner_only", "priv", "blocked", "priv_blocked", "nobody"}

func names(reg *Registry, s *Scope) []string {
	out := s.Names(reg)
	if out == nil {
		out = []string{}
	}
	return out
}

// withTestCore makes the core preset, for the length of a test, a set of
// scopeRegistry's tools: common, scanner_only and the privileged priv.
func withTestCore(t *testing.T) {
	saved := presetTools[PresetCore]
	presetTools[PresetCore] = []string{"common", "scanner_only", "priv"}
	t.Cleanup(func() { presetTools[PresetCore] = saved })
}

// TestScopeRules: one row per rule, with the exact tools expected.
func TestScopeRules(t *testing.T) {
	withTestCore(t)
	reg := scopeRegistry()
	worker := baton.Principal{Agent: "a", Profile: "worker", Source: baton.SourceStdio}
	with := func(p baton.Principal, f func(*baton.Principal)) baton.Principal { f(&p); return p }
	for _, tc := range []struct {
		name string
		p    baton.Principal
		in   ScopeInput
		want []string
		rule string
		warn string // a substring of one warning; "" = none expected
	}{
		{"no profile, preset full: everything but the privileged tools", baton.Principal{Source: baton.SourceStdio, Preset: PresetFull}, ScopeInput{},
			[]string{"common", "worker_only", "scanner_only", "blocked", "nobody"}, "no profile", ""},
		{"no profile over HTTP or the CLI: the same", baton.Principal{Agent: "user", Source: baton.SourceCLI}, ScopeInput{},
			[]string{"common", "worker_only", "scanner_only", "blocked", "nobody"}, "no profile", ""},
		{"no profile, direct call from Go code: everything", baton.Principal{Agent: "a", Source: baton.SourceTest}, ScopeInput{},
			everyScopeTool, "no profile (direct call)", ""},
		{"direct call with a profile: the profile's rules", with(worker, func(p *baton.Principal) { p.Source = baton.SourceTest }), ScopeInput{},
			[]string{"common", "worker_only", "blocked"}, "profile worker", ""},
		{"no profile: the project's bundle grants a privileged tool", baton.Principal{Source: baton.SourceHTTP, Preset: PresetFull}, ScopeInput{Bundles: []string{"priv"}},
			[]string{"common", "worker_only", "scanner_only", "priv", "blocked", "nobody"}, "no profile", ""},
		{"no profile over stdio, nothing named: the core preset", baton.Principal{Source: baton.SourceStdio}, ScopeInput{},
			[]string{"common", "scanner_only"}, "no profile, preset core", ""},
		{"no profile over HTTP: core, and a bundle still grants", baton.Principal{Source: baton.SourceHTTP}, ScopeInput{Bundles: []string{"priv", "nobody"}},
			[]string{"common", "scanner_only", "priv", "nobody"}, "no profile, preset core", ""},
		{"a named preset narrows a profile's defaults", with(worker, func(p *baton.Principal) { p.Preset = PresetCore }), ScopeInput{},
			[]string{"common"}, "profile worker, preset core", ""},
		{"naming a default tool in allowed grants it outside the preset", with(worker, func(p *baton.Principal) { p.Preset = PresetCore }),
			ScopeInput{Profile: &baton.Profile{Name: "worker", AllowedTools: []string{"worker_only", "scanner_only"}}},
			[]string{"worker_only"}, "profile worker, preset core", ""},
		{"a scope file ignores the preset", baton.Principal{Source: baton.SourceStdio, Preset: PresetCore}, ScopeInput{File: []string{"nobody"}},
			[]string{"nobody"}, "tool-scope file", ""},
		{"agent type stands for the profile", baton.Principal{AgentType: "scanner", Source: baton.SourceStdio}, ScopeInput{},
			[]string{"common", "scanner_only", "blocked"}, "profile scanner", ""},
		{"built-in defaults, never privileged", worker, ScopeInput{},
			[]string{"common", "worker_only", "blocked"}, "profile worker", ""},
		{"allowed narrows the defaults", worker, ScopeInput{Profile: &baton.Profile{Name: "worker", AllowedTools: []string{"worker_only"}}},
			[]string{"worker_only"}, "profile worker", ""},
		{"allowed cannot add a non-default tool", worker, ScopeInput{Profile: &baton.Profile{Name: "worker", AllowedTools: []string{"common", "scanner_only"}}},
			[]string{"common"}, "profile worker", ""},
		{"allowed naming a privileged tool grants it", worker, ScopeInput{Profile: &baton.Profile{Name: "worker", AllowedTools: []string{"common", "priv"}}},
			[]string{"common", "priv"}, "profile worker", ""},
		{"empty allowed is the default set", worker, ScopeInput{Profile: &baton.Profile{Name: "worker", AllowedTools: []string{}}},
			[]string{"common", "worker_only", "blocked"}, "profile worker", ""},
		{"disallowed removes", worker, ScopeInput{Profile: &baton.Profile{Name: "worker", DisallowedTools: []string{"common", "blocked"}}},
			[]string{"worker_only"}, "profile worker", ""},
		{"disallowed wins over allowed", worker, ScopeInput{Profile: &baton.Profile{Name: "worker", AllowedTools: []string{"common", "priv"}, DisallowedTools: []string{"priv"}}},
			[]string{"common"}, "profile worker", ""},
		{"bundles add, even tools no profile gets", worker, ScopeInput{Bundles: []string{"nobody", "scanner_only"}},
			[]string{"common", "worker_only", "scanner_only", "blocked", "nobody"}, "profile worker", ""},
		{"bundles add after disallowed", worker, ScopeInput{Profile: &baton.Profile{Name: "worker", DisallowedTools: []string{"common"}}, Bundles: []string{"common"}},
			[]string{"common", "worker_only", "blocked"}, "profile worker", ""},
		{"custom profile starts from its base", baton.Principal{Profile: "auditor", Source: baton.SourceStdio},
			ScopeInput{Profile: &baton.Profile{Name: "auditor", Extends: "scanner", AllowedTools: []string{"scanner_only", "priv"}}},
			[]string{"scanner_only", "priv"}, "profile auditor", ""},
		{"unknown profile has nothing", baton.Principal{Profile: "ghost", Source: baton.SourceStdio}, ScopeInput{Bundles: []string{"common"}},
			[]string{}, "profile ghost", "neither built in nor stored"},
		{"scope file is the whole answer", worker, ScopeInput{File: []string{"scanner_only", "priv"}, Profile: &baton.Profile{Name: "worker", DisallowedTools: []string{"priv"}}, Bundles: []string{"nobody"}},
			[]string{"scanner_only", "priv"}, "tool-scope file", ""},
		{"empty scope file: nothing", worker, ScopeInput{File: []string{}},
			[]string{}, "tool-scope file", ""},
		{"scope file names an unknown tool", worker, ScopeInput{File: []string{"common", "ghost"}},
			[]string{"common"}, "tool-scope file", `"ghost"`},
		{"web operator gets everything", with(worker, func(p *baton.Principal) { p.Source = baton.SourceWeb }),
			ScopeInput{File: []string{"common"}, Profile: &baton.Profile{Name: "worker", DisallowedTools: []string{"common"}}},
			everyScopeTool, "web operator", ""},
		{"scheduler removes blocked from defaults", with(worker, func(p *baton.Principal) { p.SchedulerMode = true }), ScopeInput{},
			[]string{"common", "worker_only"}, "profile worker, scheduler mode", ""},
		{"scheduler removes blocked whatever was granted", with(worker, func(p *baton.Principal) { p.SchedulerMode = true }),
			ScopeInput{Profile: &baton.Profile{Name: "worker", AllowedTools: []string{"priv_blocked", "blocked", "common"}}, Bundles: []string{"blocked"}},
			[]string{"common"}, "profile worker, scheduler mode", ""},
		{"scheduler applies to a scope file", with(worker, func(p *baton.Principal) { p.SchedulerMode = true }), ScopeInput{File: []string{"blocked", "priv"}},
			[]string{"priv"}, "tool-scope file, scheduler mode", ""},
		{"scheduler applies without a profile", baton.Principal{Source: baton.SourceStdio, SchedulerMode: true, Preset: PresetFull}, ScopeInput{},
			[]string{"common", "worker_only", "scanner_only", "nobody"}, "no profile, scheduler mode", ""},
		{"scheduler without a profile: granted, not blocked", baton.Principal{Source: baton.SourceStdio, SchedulerMode: true, Preset: PresetFull},
			ScopeInput{Bundles: []string{"priv", "priv_blocked"}},
			[]string{"common", "worker_only", "scanner_only", "priv", "nobody"}, "no profile, scheduler mode", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ComputeScope(reg, tc.p, tc.in)
			if got := names(reg, s); !slices.Equal(got, tc.want) {
				t.Errorf("tools = %v, want %v", got, tc.want)
			}
			if s.Rule != tc.rule {
				t.Errorf("rule = %q, want %q", s.Rule, tc.rule)
			}
			found := tc.warn == ""
			for _, w := range s.Warnings {
				found = found || strings.Contains(w, tc.warn)
			}
			if !found {
				t.Errorf("warnings %q, want one containing %q", s.Warnings, tc.warn)
			}
			if tc.warn == "" && len(s.Warnings) > 0 && !strings.Contains(s.Warnings[0], "lacks") {
				t.Errorf("unexpected warnings %q", s.Warnings)
			}
		})
	}
}

// TestScopePrecedenceExhaustive walks every combination of the inputs
// the rules read and checks the result against the rules stated plainly.
func TestScopePrecedenceExhaustive(t *testing.T) {
	withTestCore(t)
	reg := scopeRegistry()
	sources := []baton.Source{baton.SourceStdio, baton.SourceHTTP, baton.SourceCLI, baton.SourceTest, baton.SourceWeb}
	files := [][]string{nil, {}, {"worker_only", "priv", "blocked", "ghost"}}
	profiles := []string{"", "worker", "scanner", "auditor", "ghost"}
	alloweds := [][]string{nil, {}, {"common", "priv", "scanner_only", "ghost"}}
	disalloweds := [][]string{nil, {"common", "priv"}}
	bundleSets := [][]string{nil, {"nobody", "blocked", "priv"}}
	n := 0
	for _, src := range sources {
		for _, file := range files {
			for _, prof := range profiles {
				for _, allowed := range alloweds {
					for _, disallowed := range disalloweds {
						for _, bundles := range bundleSets {
							for _, sched := range []bool{false, true} {
								for _, preset := range []string{"", PresetFull, PresetCore} {
									n++
									p := baton.Principal{Agent: "a", Profile: prof, Source: src, SchedulerMode: sched, Preset: preset}
									var stored *baton.Profile
									switch prof {
									case "worker", "scanner":
										stored = &baton.Profile{Name: prof, AllowedTools: allowed, DisallowedTools: disallowed}
									case "auditor":
										stored = &baton.Profile{Name: prof, Extends: "scanner", AllowedTools: allowed, DisallowedTools: disallowed}
									}
									in := ScopeInput{File: file, Profile: stored, Bundles: bundles}
									got := names(reg, ComputeScope(reg, p, in))
									want := oracle(reg, p, in)
									if !slices.Equal(got, want) {
										t.Fatalf("source=%s file=%v profile=%q allowed=%v disallowed=%v bundles=%v scheduler=%v preset=%q:\n got %v\nwant %v",
											src, file, prof, allowed, disallowed, bundles, sched, preset, got, want)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if n != 5*3*5*3*2*2*2*3 {
		t.Fatalf("walked %d combinations", n)
	}
}

// oracle states the rules of DESIGN.md one by one, independently of
// ComputeScope's structure.
func oracle(reg *Registry, p baton.Principal, in ScopeInput) []string {
	spec := func(n string) *Spec { t, _ := reg.Get(n); return t.Spec() }
	has := func(list []string, n string) bool { return slices.Contains(list, n) }
	// A session's preset: the one it names, else core for an agent over
	// stdio or HTTP that names no profile, else everything.
	preset := p.Preset
	if preset == "" {
		preset = PresetFull
		if p.Profile == "" && (p.Source == baton.SourceStdio || p.Source == baton.SourceHTTP) {
			preset = PresetCore
		}
	}
	inPreset := func(n string) bool { return preset == PresetFull || has(presetTools[preset], n) }
	var out []string
	for _, n := range everyScopeTool {
		sp := spec(n)
		var ok bool
		switch {
		case p.Source == baton.SourceWeb:
			ok = true
		case in.File != nil:
			ok = has(in.File, n)
		case p.Profile == "" && p.Source == baton.SourceTest:
			ok = true
		case p.Profile == "":
			// The preset but privileged tools; a bundle grants any tool.
			ok = (!sp.Annotations.Privileged && inPreset(n)) || has(in.Bundles, n)
		case in.Profile == nil && !baton.IsBuiltinProfile(p.Profile):
			ok = false
		default:
			base := p.Profile
			if in.Profile != nil {
				base = in.Profile.Base()
			}
			def := has(sp.Profiles, base) && !sp.Annotations.Privileged && inPreset(n)
			if in.Profile != nil && len(in.Profile.AllowedTools) > 0 {
				// Naming a tool is a grant: any of the profile's defaults
				// or a privileged one, whatever the preset.
				def = (has(sp.Profiles, base) || sp.Annotations.Privileged) && has(in.Profile.AllowedTools, n)
			}
			if in.Profile != nil && has(in.Profile.DisallowedTools, n) {
				def = false
			}
			ok = def || has(in.Bundles, n)
		}
		if p.SchedulerMode && sp.Annotations.SchedulerBlocked {
			ok = false
		}
		if ok {
			out = append(out, n)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// TestScopeNeedsWarnings: a built-in profile missing a tool its role
// needs is warned about, by name.
func TestScopeNeedsWarnings(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"get_issue", "update_issue_status", "add_finding"} {
		r.Add(New(Definition[noIn, noOut]{Name: n, Toolset: "t", Description: n, Profiles: Profiles,
			Execute: func(context.Context, *Call, noIn) (noOut, error) { return noOut{}, nil }}))
	}
	p := baton.Principal{Profile: "worker", Source: baton.SourceStdio}
	if s := ComputeScope(r, p, ScopeInput{}); len(s.Warnings) != 0 {
		t.Fatalf("full worker warned: %q", s.Warnings)
	}
	s := ComputeScope(r, p, ScopeInput{Profile: &baton.Profile{Name: "worker", DisallowedTools: []string{"add_finding"}}})
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "lacks add_finding") {
		t.Fatalf("warnings = %q, want one about add_finding", s.Warnings)
	}
	// A warning does not block: the other tools stay.
	if !s.Has("get_issue") || s.Has("add_finding") {
		t.Fatalf("scope = %v", s.Names(r))
	}
}

// TestSchedulerCaps: a scheduler session gets each cap's number of calls;
// failed calls give theirs back; another session starts afresh; calls
// outside scheduler mode are not counted.
func TestSchedulerCaps(t *testing.T) {
	var calls int
	fail := false
	r := NewRegistry()
	r.Add(New(Definition[noIn, noOut]{Name: "make", Toolset: "t", Description: "d", Profiles: Profiles, SchedulerCap: CapIssues,
		Transaction: TxNone, Execute: func(context.Context, *Call, noIn) (noOut, error) {
			calls++
			if fail {
				return noOut{}, baton.Errorf(baton.ErrConflict, "no")
			}
			return noOut{}, nil
		}}))
	env := &Env{Registry: r}
	sched := baton.Principal{Agent: "cron", Source: baton.SourceHTTP, SchedulerMode: true, Preset: PresetFull}
	s1 := WithSession(context.Background(), &Session{})
	call := func(ctx context.Context, p baton.Principal) *baton.Error {
		return r.Call(ctx, env, p, "make", nil).Err
	}
	fail = true
	if e := call(s1, sched); e == nil || e.Code != baton.ErrConflict {
		t.Fatalf("failing call = %v", e)
	}
	fail = false
	for i := range SchedulerCaps[CapIssues] {
		if e := call(s1, sched); e != nil {
			t.Fatalf("call %d: %v (a failed call must not use the cap)", i+1, e)
		}
	}
	e := call(s1, sched)
	if e == nil || e.Code != baton.ErrPermissionDenied || e.Type != "scheduler_cap" || e.Hint == "" {
		t.Fatalf("call over the cap = %+v, want ERR_PERMISSION_DENIED scheduler_cap with a hint", e)
	}
	if fmt.Sprint(e.Details["limit"]) != "3" || e.Details["cap"] != CapIssues {
		t.Errorf("details = %v", e.Details)
	}
	before := calls
	_ = call(s1, sched)
	if calls != before {
		t.Error("a call over the cap ran")
	}
	if e := call(WithSession(context.Background(), &Session{}), sched); e != nil {
		t.Fatalf("a new session is capped too: %v", e)
	}
	for range 5 {
		if e := call(s1, baton.Principal{Agent: "human", Source: baton.SourceHTTP, Preset: PresetFull}); e != nil {
			t.Fatalf("an interactive call was capped: %v", e)
		}
	}
}

// TestWithGrant: a context grant lets the calls made with it reach exactly
// the tools it names, privileged ones included, whatever the caller's
// scope; the same principal without it is refused, tools/list does not
// change, and a scheduler session still loses the scheduler-blocked tools.
func TestWithGrant(t *testing.T) {
	reg := scopeRegistry()
	env := &Env{Registry: reg} // no store: a call that passes the scope fails on that
	human := baton.Principal{Agent: baton.User, Source: baton.SourceCLI}
	scanner := baton.Principal{Agent: baton.User, Source: baton.SourceCLI, Profile: "scanner"}
	sched := baton.Principal{Agent: "cron", Source: baton.SourceStdio, SchedulerMode: true, Preset: PresetFull}
	plain := context.Background()
	granted := WithGrant(plain, "priv", "priv_blocked")
	cases := []struct {
		name string
		ctx  context.Context
		p    baton.Principal
		tool string
		want string // ERR_INIT_FAILED: the scope let the call through
	}{
		{"no grant", plain, human, "priv", baton.ErrPermissionDenied},
		{"granted", granted, human, "priv", baton.ErrInitFailed},
		{"granted in a later context", WithGrant(granted, "other"), human, "priv", baton.ErrInitFailed},
		{"not named", granted, scanner, "worker_only", baton.ErrPermissionDenied},
		{"granted beside a profile", granted, scanner, "priv", baton.ErrInitFailed},
		{"scheduler, granted", granted, sched, "priv", baton.ErrInitFailed},
		{"scheduler, granted but blocked", granted, sched, "priv_blocked", baton.ErrPermissionDenied},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if e := reg.Call(c.ctx, env, c.p, c.tool, nil).Err; e == nil || e.Code != c.want {
				t.Errorf("%s as %s: %+v, want %s", c.tool, c.p.Agent, e, c.want)
			}
		})
	}
	s, err := env.Scope(granted, human)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.Names(reg), "priv") {
		t.Error("a grant for one call changed what the principal lists")
	}
}
