package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/skills"
)

// Scope is the set of tools one principal may list and call. It is
// enforced twice: tools/list shows only these tools, and a call to any
// other tool, registered or not, is ERR_PERMISSION_DENIED.
type Scope struct {
	all    bool
	except map[string]bool // with all: the tools all leaves out
	tools  map[string]bool
	hidden map[string]bool // aliases: callable, not listed
	// Rule says which rule decided: "web operator", "tool-scope file",
	// "profile worker", "no profile".
	Rule string
	// Warnings name what an operator should look at: a profile lacking a
	// tool its role needs, names that match no tool.
	Warnings []string
}

// Has reports whether the scope includes the tool.
func (s *Scope) Has(name string) bool { return (s.all && !s.except[name]) || s.tools[name] }

// Listed reports whether tools/list shows the tool: it is in the scope
// and is no alias of another.
func (s *Scope) Listed(name string) bool { return s.Has(name) && !s.hidden[name] }

// Names are the scope's listed tools among reg's, in registry order
// (aliases are callable but not named).
func (s *Scope) Names(reg *Registry) []string {
	var out []string
	for _, t := range reg.All() {
		if s.Listed(t.Spec().Name) {
			out = append(out, t.Spec().Name)
		}
	}
	return out
}

// ScopeInput is what decides a principal's tools besides the registry.
type ScopeInput struct {
	// File holds the names in the session's tool-scope file; nil when
	// there is none. When present it is the whole answer.
	File []string
	// Profile is the stored settings of the principal's profile; nil when
	// none are stored (a built-in profile then has its registry defaults).
	Profile *baton.Profile
	// Bundles are the tools the profile's skills and the session's
	// project add.
	Bundles []string
}

// Needs are the tools each built-in profile's role cannot do without: a
// profile whose scope lacks one of them gets a warning, not a refusal.
var Needs = map[string][]string{
	"worker":     {"get_issue", "update_issue_status", "add_finding"},
	"researcher": {"get_issue", "add_finding", "add_learning"},
	"judge":      {"get_issue", "add_comment"},
	"scanner":    {"record_coverage", "add_finding"},
	"architect":  {"get_issue", "add_finding"},
	"planner":    {"create_subtask", "move_issue"},
	"intake":     {"create_issue"},
}

// ComputeScope applies baton's rules, in order:
//  1. the operator's web session gets every tool;
//  2. a tool-scope file is the whole answer;
//  3. without a profile every tool of the session's preset is there but
//     the privileged ones, plus the bundle of the session's project (a
//     grant like any bundle); direct calls from Go code (source test) get
//     every tool;
//  4. otherwise the profile's registry defaults within the preset
//     (privileged tools never among them), narrowed to its allowed tools
//     when it lists any, where naming a tool of the profile's defaults or
//     a privileged one grants it whatever the preset, minus its disallowed
//     tools, plus its skill and project bundles;
//  5. a scheduler session then loses every scheduler-blocked tool,
//     whatever was granted.
func ComputeScope(reg *Registry, p baton.Principal, in ScopeInput) *Scope {
	s := &Scope{tools: map[string]bool{}}
	known := func(names []string, what string) []string {
		var out []string
		for _, n := range names {
			if _, ok := reg.Get(n); ok {
				out = append(out, n)
			} else {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s names %q, which is not a tool here", what, n))
			}
		}
		return out
	}
	profile := p.Profile
	if profile == "" {
		profile = p.AgentType
	}
	preset := p.Preset
	if preset == "" {
		preset = DefaultPreset(p)
	}
	inPreset := map[string]bool{}
	for _, n := range PresetTools(reg, preset) {
		inPreset[n] = true
	}
	switch {
	case p.Source == baton.SourceWeb:
		s.all, s.Rule = true, "web operator"
	case in.File != nil:
		s.Rule = "tool-scope file"
		for _, n := range known(in.File, "the tool-scope file") {
			s.tools[n] = true
		}
	case profile == "" && p.Source == baton.SourceTest:
		// Go code calling the registry directly (tests, benchmarks) can
		// reach the store anyway; no transport yields this source.
		s.all, s.Rule = true, "no profile (direct call)"
	case profile == "" && preset == PresetFull:
		// Privileged tools come only by an explicit grant (a profile's
		// allowed tools, a skill or project bundle) or to the operator's
		// web session, never for naming nothing (issue 12).
		s.all, s.Rule, s.except = true, "no profile", map[string]bool{}
		for _, t := range reg.All() {
			if t.Spec().Annotations.Privileged {
				s.except[t.Spec().Name] = true
			}
		}
		for _, n := range known(in.Bundles, "the project's bundle") {
			s.tools[n] = true
		}
	case profile == "":
		s.Rule, s.except = "no profile, preset "+preset, map[string]bool{}
		for _, t := range reg.All() {
			switch sp := t.Spec(); {
			case sp.Annotations.Privileged:
				s.except[sp.Name] = true // for the refusal's hint
			case inPreset[sp.Name]:
				s.tools[sp.Name] = true
			}
		}
		for _, n := range known(in.Bundles, "the project's bundle") {
			s.tools[n] = true
		}
	default:
		s.Rule = "profile " + profile
		if preset != PresetFull {
			s.Rule += ", preset " + preset
		}
		settings := in.Profile
		if settings == nil {
			settings = &baton.Profile{Name: profile}
		}
		base := settings.Base()
		if !baton.IsBuiltinProfile(base) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("profile %q is neither built in nor stored: it has no tools", profile))
			break
		}
		for _, t := range reg.All() {
			sp := t.Spec()
			if slices.Contains(sp.Profiles, base) && !sp.Annotations.Privileged && inPreset[sp.Name] {
				s.tools[sp.Name] = true
			}
		}
		if allowed := known(settings.AllowedTools, "allowed_tools of "+profile); len(settings.AllowedTools) > 0 {
			narrowed := map[string]bool{}
			for _, n := range allowed {
				t, _ := reg.Get(n)
				if sp := t.Spec(); slices.Contains(sp.Profiles, base) || sp.Annotations.Privileged {
					narrowed[n] = true
				}
			}
			s.tools = narrowed
		}
		for _, n := range settings.DisallowedTools {
			delete(s.tools, n)
		}
		for _, n := range known(in.Bundles, "a bundle of "+profile) {
			s.tools[n] = true
		}
		if baton.IsBuiltinProfile(base) {
			for _, n := range Needs[base] {
				if _, ok := reg.Get(n); ok && !s.tools[n] {
					s.Warnings = append(s.Warnings, fmt.Sprintf("profile %s lacks %s, which a %s needs", profile, n, base))
				}
			}
		}
	}
	if p.SchedulerMode {
		if s.all {
			s.all = false
			for _, t := range reg.All() {
				if !s.except[t.Spec().Name] {
					s.tools[t.Spec().Name] = true
				}
			}
		}
		for _, t := range reg.All() {
			if t.Spec().Annotations.SchedulerBlocked {
				delete(s.tools, t.Spec().Name)
			}
		}
		s.Rule += ", scheduler mode"
	}
	s.aliases(reg)
	return s
}

// aliases gives each alias the standing of the tool it stands for, and
// hides it from lists.
func (s *Scope) aliases(reg *Registry) {
	for _, t := range reg.All() {
		sp := t.Spec()
		if sp.AliasOf == "" {
			continue
		}
		if s.hidden == nil {
			s.hidden = map[string]bool{}
		}
		s.hidden[sp.Name] = true
		on := s.Has(sp.AliasOf)
		switch {
		case s.all && on:
			delete(s.except, sp.Name)
		case s.all:
			if s.except == nil {
				s.except = map[string]bool{}
			}
			s.except[sp.Name] = true
		case on:
			s.tools[sp.Name] = true
		default:
			delete(s.tools, sp.Name)
		}
	}
}

// ReadScopeFile reads a tool-scope file: a JSON array of tool names.
func ReadScopeFile(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, baton.Errorf(baton.ErrConfigInvalid, "cannot read the tool-scope file: %v", err).
			WithDetails("file", path).WithHint("pass --tool-scope-file a readable JSON file, e.g. [\"get_issue\"]")
	}
	names := []string{}
	if err := json.Unmarshal(b, &names); err != nil {
		return nil, baton.Errorf(baton.ErrConfigInvalid, "the tool-scope file %s is not a JSON array of tool names: %v", path, err).
			WithDetails("file", path).WithHint(`write it as ["get_issue", "add_finding"]`)
	}
	return names, nil
}

// scopeTTL is how long a computed scope is reused: profiles edited with
// `baton profile` reach running servers within it.
const scopeTTL = 5 * time.Second

type scopeEntry struct {
	scope *Scope
	at    time.Time
}

// scopes caches computed scopes per principal.
type scopes struct {
	mu  sync.Mutex
	m   map[baton.Principal]scopeEntry
	gen uint64 // bumped by ForgetScopes: a scope computed before is not kept
}

// Scope is p's tools, computed from the registry, the stored profile, the
// tool-scope file and the bundles, and reused for a few seconds.
func (e *Env) Scope(ctx context.Context, p baton.Principal) (*Scope, error) {
	e.scopes.mu.Lock()
	if c, ok := e.scopes.m[p]; ok && time.Since(c.at) < scopeTTL {
		e.scopes.mu.Unlock()
		return c.scope, nil
	}
	gen := e.scopes.gen
	e.scopes.mu.Unlock()
	in, err := e.scopeInput(ctx, p)
	if err != nil {
		return nil, err
	}
	reg := e.Registry
	if reg == nil {
		reg = NewRegistry()
	}
	s := ComputeScope(reg, p, in)
	e.scopes.mu.Lock()
	if e.scopes.m == nil {
		e.scopes.m = map[baton.Principal]scopeEntry{}
	}
	if e.scopes.gen == gen { // else it may predate the change that emptied the cache
		e.scopes.m[p] = scopeEntry{scope: s, at: time.Now()}
	}
	e.scopes.mu.Unlock()
	return s, nil
}

// ForgetScopes drops every cached scope, so the next Scope of each
// principal reads the store again: servers call it when they learn that
// a profile, a project's bundle or a token changed.
func (e *Env) ForgetScopes() {
	e.scopes.mu.Lock()
	clear(e.scopes.m)
	e.scopes.gen++
	e.scopes.mu.Unlock()
}

func (e *Env) scopeInput(ctx context.Context, p baton.Principal) (ScopeInput, error) {
	var in ScopeInput
	if p.Source == baton.SourceWeb {
		return in, nil
	}
	if p.ScopeFile != "" {
		names, err := ReadScopeFile(p.ScopeFile)
		in.File = names
		return in, err
	}
	profile := p.Profile
	if profile == "" {
		profile = p.AgentType
	}
	if e.Store == nil {
		return in, nil
	}
	if profile == "" {
		// Without a profile only the project's bundle can grant more.
		if p.Project == "" {
			return in, nil
		}
		err := e.Store.View(ctx, func(tx baton.Tx) error {
			if proj, err := tx.Project(ctx, p.Project); err == nil {
				in.Bundles = append(in.Bundles, proj.Tools...)
			}
			return nil
		})
		return in, err
	}
	err := e.Store.View(ctx, func(tx baton.Tx) error {
		prof, err := tx.Profile(ctx, profile)
		if e := baton.AsError(err); e != nil && e.Code == baton.ErrNotFound {
			// A profile nobody created has no tools: ComputeScope says so
			// in a warning, and every call is refused.
			return nil
		}
		if err != nil {
			return err
		}
		in.Profile = prof
		if p.Project != "" {
			if proj, err := tx.Project(ctx, p.Project); err == nil {
				in.Bundles = append(in.Bundles, proj.Tools...)
			}
		}
		return nil
	})
	if err != nil {
		return in, err
	}
	if in.Profile != nil && len(in.Profile.Skills) > 0 {
		root, err := e.Getwd()
		if err != nil {
			return in, err
		}
		snap := skills.For(root).Snapshot()
		for _, name := range in.Profile.Skills {
			if sk, ok := snap.Get(name); ok {
				in.Bundles = append(in.Bundles, sk.Tools...)
			}
		}
	}
	return in, nil
}

// permit refuses a call to a tool outside p's scope and not granted by
// the call's context (WithGrant).
func (e *Env) permit(ctx context.Context, p baton.Principal, name string) error {
	s, err := e.Scope(ctx, p)
	if err != nil {
		return err
	}
	if s.Has(name) || e.granted(ctx, p, name) {
		return nil
	}
	return PermissionDenied(name, p, s)
}

type grantKey struct{}

// WithGrant returns ctx granting the tools named to the calls made with
// it, whatever the caller's scope: an explicit grant for one command, not
// for a session. It is how a command that exists for the operator (`baton
// proposals accept`) calls, as the user, the privileged tool it stands in
// front of, while the same principal calling that tool by its name
// (`baton proposals decide_proposal`) is still refused (issue 12). No
// transport sets it: only Go code, which could reach the store anyway.
// A scheduler session still loses the scheduler-blocked tools.
func WithGrant(ctx context.Context, names ...string) context.Context {
	prev, _ := ctx.Value(grantKey{}).([]string)
	return context.WithValue(ctx, grantKey{}, append(slices.Clip(prev), names...))
}

// granted reports whether ctx grants the tool to p (WithGrant).
func (e *Env) granted(ctx context.Context, p baton.Principal, name string) bool {
	names, _ := ctx.Value(grantKey{}).([]string)
	if !slices.Contains(names, name) {
		return false
	}
	if !p.SchedulerMode {
		return true
	}
	if e.Registry == nil {
		return false // nothing says the tool is not scheduler-blocked
	}
	t, ok := e.Registry.Get(name)
	return ok && !t.Spec().Annotations.SchedulerBlocked
}

// PermissionDenied is the error for a tool outside the caller's scope.
func PermissionDenied(name string, p baton.Principal, s *Scope) *baton.Error {
	profile := p.Profile
	if profile == "" {
		profile = p.AgentType
	}
	hint := "call one of the tools tools/list shows you"
	switch {
	case profile != "" && p.ScopeFile == "":
		hint += fmt.Sprintf("; an operator can grant it with `baton profile allow %s %s`", profile, name)
	case s.except[name]:
		// A session without a profile lacks only privileged tools.
		hint += fmt.Sprintf("; %s is privileged and comes only by an explicit grant: an operator grants it to a profile "+
			"(`baton profile allow PROFILE %s`) that the session then names (--agent-type PROFILE), or uses the dashboard", name, name)
	}
	e := baton.Errorf(baton.ErrPermissionDenied, "%s is not among your tools (%s)", name, s.Rule).
		WithType("out_of_scope").WithDetails("tool", name, "profile", profile, "rule", s.Rule).WithHint("%s", hint)
	if s.except[name] {
		e.WithDetails("privileged", true)
	}
	return e
}

// SchedulerCaps are the most calls of each kind one scheduler session may
// make; a tool's Definition says which cap its calls count against.
var SchedulerCaps = map[string]int{CapIssues: 3, CapPRs: 3, CapComments: 5, CapMessages: 3}

// Scheduler cap kinds.
const (
	CapIssues   = "issues"   // created work items, in any vocabulary
	CapPRs      = "prs"      // pull requests (create_pr; plugin tools may count too)
	CapComments = "comments" // comments on work items
	CapMessages = "messages" // messages to agents
)

// Session is what baton keeps about one MCP session: what its scheduler
// caps have used. Transports attach it to the context of every call.
type Session struct {
	mu   sync.Mutex
	used map[string]int
	// parked are the session's large results (parking.go), lastID the
	// number of the latest.
	parked []parked
	lastID int
}

type sessionKey struct{}

// WithSession returns ctx carrying s.
func WithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// Used reports how many calls of a cap kind the session has made.
func (s *Session) Used(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used[kind]
}

// reserve takes one call of kind from a scheduler session's cap, or says
// the cap is used up. release gives it back when the call fails.
func (e *Env) reserve(ctx context.Context, p baton.Principal, spec *Spec) (release func(), err error) {
	kind := spec.SchedulerCap
	if !p.SchedulerMode || kind == "" {
		return func() {}, nil
	}
	s, _ := ctx.Value(sessionKey{}).(*Session)
	if s == nil {
		s = &e.session // one process, one session: the CLI
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used == nil {
		s.used = map[string]int{}
	}
	limit := SchedulerCaps[kind]
	if s.used[kind] >= limit {
		return nil, baton.Errorf(baton.ErrPermissionDenied, "a scheduler session may make %d calls that create %s; this one has", limit, kind).
			WithType("scheduler_cap").WithDetails("tool", spec.Name, "cap", kind, "limit", limit).
			WithHint("leave the rest to an interactive session, or start a new scheduler session")
	}
	s.used[kind]++
	return func() {
		s.mu.Lock()
		s.used[kind]--
		s.mu.Unlock()
	}, nil
}

// ScopeSummary lists a scope's tools and warnings for people (baton
// profile show, baton tools --profile).
func ScopeSummary(reg *Registry, s *Scope) string {
	names := s.Names(reg)
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%d tools (%s): %s\n", len(names), s.Rule, strings.Join(names, ", "))
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}
