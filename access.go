package baton

import (
	"context"
	"regexp"
	"slices"
	"sync"
	"time"
)

// BuiltinProfiles are the agent profiles baton knows without being told:
// each tool names the ones that get it by default.
var BuiltinProfiles = []string{"worker", "researcher", "judge", "scanner", "architect", "planner", "intake"}

// IsBuiltinProfile reports whether name is one of BuiltinProfiles.
func IsBuiltinProfile(name string) bool { return slices.Contains(BuiltinProfiles, name) }

// Profile is an agent profile's stored tool settings. A built-in profile
// needs no row: without one it has its registry defaults. A custom profile
// starts from the defaults of the built-in profile it extends.
type Profile struct {
	Name    string
	Extends string // the built-in profile a custom one starts from; "" for built-ins
	// AllowedTools narrows the default set to these tools (nil or empty:
	// the default set); a privileged tool named here is granted.
	AllowedTools []string
	// DisallowedTools are removed from the set (nil or empty: none).
	DisallowedTools []string
	// Skills are skill bundles: each adds the tools its SKILL.md lists.
	Skills      []string
	Description string
	UpdatedAt   time.Time
}

var profileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]{0,39}$`) })

// Validate checks the name and that a custom profile extends a built-in.
func (p *Profile) Validate() error {
	if !profileRE().MatchString(p.Name) {
		return Errorf(ErrInvalidInput, "profile name %q is not valid", p.Name).
			WithDetails("field", "name", "rule", "pattern", "pattern", profileRE().String()).
			WithHint("use 1-40 lowercase letters, digits, '-' or '_', starting with a letter")
	}
	switch {
	case IsBuiltinProfile(p.Name) && p.Extends != "":
		return Errorf(ErrInvalidInput, "built-in profile %s cannot extend another", p.Name).
			WithDetails("field", "extends").WithHint("leave extends empty for %s", p.Name)
	case !IsBuiltinProfile(p.Name) && !IsBuiltinProfile(p.Extends):
		return Errorf(ErrInvalidInput, "custom profile %s must extend a built-in profile, not %q", p.Name, p.Extends).
			WithDetails("field", "extends", "allowed", BuiltinProfiles).
			WithHint("pass --extends with one of the built-in profiles")
	}
	return nil
}

// Base is the built-in profile whose registry defaults p starts from.
func (p *Profile) Base() string {
	if p.Extends != "" {
		return p.Extends
	}
	return p.Name
}

// ProfileNotFound is the error for an unknown profile.
func ProfileNotFound(name string) *Error {
	return Errorf(ErrNotFound, "profile %q does not exist", name).
		WithDetails("profile", name, "builtin", BuiltinProfiles).
		WithHint("use a built-in profile or create it with `baton profile create %s --extends worker`", name)
}

// AgentToken is a bearer credential for the HTTP transport. Only its hash
// is stored; whoever presents the token acts as Agent with Profile.
type AgentToken struct {
	ID        string // public handle, e.g. tok_3f2a..., for listing and revoking
	Agent     string
	Profile   string
	Project   string // default project of the agent's sessions; may be ""
	Scheduler bool   // sessions run in scheduler mode
	Preset    string // tool preset of the agent's sessions; "" for the default
	Hash      string // hex SHA-256 of the token
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Active reports whether the token may still be used.
func (t *AgentToken) Active() bool { return t.RevokedAt == nil }

// AccessTx stores profiles, tokens and project tool bundles.
type AccessTx interface {
	// Profile returns the stored settings of name: ERR_NOT_FOUND when a
	// custom profile does not exist; a built-in profile without a row
	// comes back with its name and nothing else set.
	Profile(ctx context.Context, name string) (*Profile, error)
	// Profiles are every stored profile, by name.
	Profiles(ctx context.Context) ([]*Profile, error)
	// PutProfile creates or replaces p.
	PutProfile(ctx context.Context, p *Profile) error
	// DeleteProfile removes a stored profile (a built-in one returns to its
	// defaults); an absent one is ERR_NOT_FOUND.
	DeleteProfile(ctx context.Context, name string) error

	// CreateToken stores t (with its hash, never the token).
	CreateToken(ctx context.Context, t *AgentToken) error
	// TokenByHash finds an active or revoked token, or ERR_NOT_FOUND.
	TokenByHash(ctx context.Context, hash string) (*AgentToken, error)
	// Tokens lists every token, oldest first.
	Tokens(ctx context.Context) ([]*AgentToken, error)
	// RevokeTokens revokes the active tokens whose ID or Agent is who,
	// reporting how many.
	RevokeTokens(ctx context.Context, who string, at time.Time) (int, error)

	// SetProjectTools replaces the project's tool bundle: tools every
	// session of the project gets besides its profile's.
	SetProjectTools(ctx context.Context, slug string, tools []string) error
}
