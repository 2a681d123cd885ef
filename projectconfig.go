package baton

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Gate is a quality gate of a project: a command run in an issue's
// worktree before its PR may be approved. A required gate that fails
// blocks approval.
type Gate struct {
	Command  string `json:"command"`
	Label    string `json:"label"`
	Required bool   `json:"required"`
}

// RiskThresholds decide a PR's risk level from its size: more changed
// lines than HighLines or files than HighFiles is high; more than LowLines
// or LowFiles is medium; anything smaller is low. The JSON names are
// Symphony's (riskThresholds in its project config).
type RiskThresholds struct {
	LowLines  int `json:"lowLines"`
	HighLines int `json:"highLines"`
	LowFiles  int `json:"lowFiles"`
	HighFiles int `json:"highFiles"`
}

// DefaultRiskThresholds are Symphony's documented defaults.
var DefaultRiskThresholds = RiskThresholds{LowLines: 20, HighLines: 100, LowFiles: 3, HighFiles: 8}

// DefaultSensitivePaths are Symphony's default sensitive patterns: a PR
// touching one is high risk whatever its size.
func DefaultSensitivePaths() []string {
	return []string{"**/database/**", "**/migrate*", "**/*.config.*", "**/auth/**", "**/security/**", "**/.env*"}
}

// ProjectSettings are what configure_project sets. Their JSON form is how
// they are stored and shown.
type ProjectSettings struct {
	Gates              []Gate         `json:"gates"`
	SensitivePaths     []string       `json:"sensitive_paths"`
	RiskThresholds     RiskThresholds `json:"risk_thresholds"`
	WorkerInstructions string         `json:"worker_instructions"`
	JudgeInstructions  string         `json:"judge_instructions"`
}

// ProjectConfig is one version of a project's review and pipeline
// settings. Every change is a new version; earlier ones stay readable, so
// a PR's risk can be traced to the settings it was scored with.
type ProjectConfig struct {
	Project string
	// Version counts the project's configurations from 1; 0 is a project
	// never configured, which has the defaults.
	Version int64
	ProjectSettings
	UpdatedBy string
	UpdatedAt time.Time
}

// DefaultProjectConfig is the configuration of a project nobody has
// configured: no gates, Symphony's default sensitive paths and thresholds,
// no instructions.
func DefaultProjectConfig(project string) *ProjectConfig {
	return &ProjectConfig{Project: project, ProjectSettings: ProjectSettings{
		Gates: []Gate{}, SensitivePaths: DefaultSensitivePaths(), RiskThresholds: DefaultRiskThresholds,
	}}
}

// ProjectConfigPatch is one configure_project call: each field given
// replaces the stored value, a field left nil keeps it, and an empty list
// clears the list. Within RiskThresholds each number given replaces its
// own threshold.
type ProjectConfigPatch struct {
	Gates              *[]Gate
	SensitivePaths     *[]string
	RiskThresholds     *RiskThresholdsPatch
	WorkerInstructions *string
	JudgeInstructions  *string
}

// RiskThresholdsPatch is the thresholds a patch names.
type RiskThresholdsPatch struct {
	LowLines  *int `json:"lowLines,omitempty"`
	HighLines *int `json:"highLines,omitempty"`
	LowFiles  *int `json:"lowFiles,omitempty"`
	HighFiles *int `json:"highFiles,omitempty"`
}

// Empty reports whether the patch names nothing.
func (p ProjectConfigPatch) Empty() bool {
	return p.Gates == nil && p.SensitivePaths == nil && p.RiskThresholds == nil &&
		p.WorkerInstructions == nil && p.JudgeInstructions == nil
}

// Apply returns a copy of c with the patch applied; c is not changed.
func (c *ProjectConfig) Apply(p ProjectConfigPatch) *ProjectConfig {
	n := c.Clone()
	if p.Gates != nil {
		n.Gates = slices.Clone(*p.Gates)
	}
	if p.SensitivePaths != nil {
		n.SensitivePaths = slices.Clone(*p.SensitivePaths)
	}
	if t := p.RiskThresholds; t != nil {
		for _, f := range []struct {
			v   *int
			dst *int
		}{{t.LowLines, &n.RiskThresholds.LowLines}, {t.HighLines, &n.RiskThresholds.HighLines},
			{t.LowFiles, &n.RiskThresholds.LowFiles}, {t.HighFiles, &n.RiskThresholds.HighFiles}} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
	}
	if p.WorkerInstructions != nil {
		n.WorkerInstructions = *p.WorkerInstructions
	}
	if p.JudgeInstructions != nil {
		n.JudgeInstructions = *p.JudgeInstructions
	}
	return n
}

// Clone returns a deep copy of c.
func (c *ProjectConfig) Clone() *ProjectConfig {
	n := *c
	n.Gates = slices.Clone(c.Gates)
	n.SensitivePaths = slices.Clone(c.SensitivePaths)
	n.normalize()
	return &n
}

// normalize makes absent lists empty, so equal settings compare equal and
// readers never meet null.
func (c *ProjectConfig) normalize() {
	if c.Gates == nil {
		c.Gates = []Gate{}
	}
	if c.SensitivePaths == nil {
		c.SensitivePaths = []string{}
	}
}

// SameSettings reports whether c and o hold the same settings, whatever
// their versions.
func (c *ProjectConfig) SameSettings(o *ProjectConfig) bool {
	a, b := c.Clone(), o.Clone()
	return reflect.DeepEqual(a.ProjectSettings, b.ProjectSettings)
}

// Validate checks what a schema cannot: the thresholds' order, gate labels
// unique, sensitive paths well-formed globs. Failures are
// ERR_CONFIG_INVALID naming the field.
func (c *ProjectConfig) Validate() error {
	t := c.RiskThresholds
	for _, f := range []struct {
		name string
		v    int
	}{{"lowLines", t.LowLines}, {"highLines", t.HighLines}, {"lowFiles", t.LowFiles}, {"highFiles", t.HighFiles}} {
		if f.v < 0 {
			return Errorf(ErrConfigInvalid, "risk_thresholds.%s must not be negative (got %d)", f.name, f.v).
				WithDetails("field", "risk_thresholds."+f.name, "constraint", "minimum", "value", f.v).
				WithHint("give a count of lines or files, 0 or more")
		}
	}
	if t.LowLines >= t.HighLines {
		return Errorf(ErrConfigInvalid, "risk_thresholds.lowLines (%d) must be below highLines (%d)", t.LowLines, t.HighLines).
			WithDetails("field", "risk_thresholds.lowLines", "constraint", "below_highLines", "lowLines", t.LowLines, "highLines", t.HighLines).
			WithHint("a PR above lowLines changed lines is medium risk and above highLines high: choose lowLines < highLines (defaults %d and %d)",
				DefaultRiskThresholds.LowLines, DefaultRiskThresholds.HighLines)
	}
	if t.LowFiles >= t.HighFiles {
		return Errorf(ErrConfigInvalid, "risk_thresholds.lowFiles (%d) must be below highFiles (%d)", t.LowFiles, t.HighFiles).
			WithDetails("field", "risk_thresholds.lowFiles", "constraint", "below_highFiles", "lowFiles", t.LowFiles, "highFiles", t.HighFiles).
			WithHint("a PR above lowFiles changed files is medium risk and above highFiles high: choose lowFiles < highFiles (defaults %d and %d)",
				DefaultRiskThresholds.LowFiles, DefaultRiskThresholds.HighFiles)
	}
	seen := map[string]int{}
	for i, g := range c.Gates {
		key := strings.ToLower(strings.TrimSpace(g.Label))
		if strings.TrimSpace(g.Command) == "" || key == "" {
			return Errorf(ErrConfigInvalid, "gates[%d] needs a command and a label", i).
				WithDetails("field", fmt.Sprintf("gates[%d]", i), "constraint", "required").
				WithHint(`give every gate {"command": "go test ./...", "label": "Tests", "required": true}`)
		}
		if j, dup := seen[key]; dup {
			return Errorf(ErrConfigInvalid, "gates[%d] and gates[%d] share the label %q", j, i, g.Label).
				WithDetails("field", fmt.Sprintf("gates[%d].label", i), "constraint", "unique", "label", g.Label).
				WithHint("give each gate its own label: gate results are reported by label")
		}
		seen[key] = i
	}
	for i, p := range c.SensitivePaths {
		if err := ValidGlob(p); err != nil {
			return Errorf(ErrConfigInvalid, "sensitive_paths[%d] %q is not a valid glob: %v", i, p, err).
				WithDetails("field", fmt.Sprintf("sensitive_paths[%d]", i), "constraint", "glob", "pattern", p).
				WithHint("use globs relative to the repository root: * within a path segment, ** across segments, [abc] classes, e.g. server/database/** or .env*")
		}
	}
	return nil
}

// SensitiveMatches returns the sensitive patterns that file matches.
func (c *ProjectConfig) SensitiveMatches(file string) []string {
	var out []string
	for _, p := range c.SensitivePaths {
		if MatchGlob(p, file) {
			out = append(out, p)
		}
	}
	return out
}

// ValidGlob reports whether pattern is a glob MatchGlob can use: relative,
// no "..", and every segment a valid path.Match pattern.
func ValidGlob(pattern string) error {
	p := strings.TrimSpace(pattern)
	if p == "" {
		return fmt.Errorf("empty pattern")
	}
	if p != pattern {
		return fmt.Errorf("leading or trailing spaces")
	}
	if strings.Contains(p, "\\") {
		return fmt.Errorf(`use "/" between path segments, not "\"`)
	}
	for _, seg := range globSegments(p) {
		if seg == ".." {
			return fmt.Errorf(`".." leaves the repository`)
		}
		if seg == "**" {
			continue
		}
		if strings.Contains(seg, "**") {
			return fmt.Errorf("** must be a whole path segment (a/**/b), not part of %q", seg)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("segment %q is malformed", seg)
		}
	}
	return nil
}

// globSegments splits a pattern into path segments: a leading "/" or "./"
// anchors at the repository root (as patterns are anyway), and a trailing
// "/" names a directory, meaning everything inside it.
func globSegments(pattern string) []string {
	p := strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "/")
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// MatchGlob reports whether the repository path name (slash-separated,
// relative to the root) matches pattern. Patterns are doublestar globs
// anchored at the root: * and ? and [..] within a segment, ** for any
// number of segments. A pattern without "/" matches a file or directory of
// that name at any depth (as in .gitignore: ".env*"; a leading "/"
// anchors it at the root), and a pattern that
// matches a directory covers everything inside it.
func MatchGlob(pattern, name string) bool {
	if ValidGlob(pattern) != nil {
		return false
	}
	segs := globSegments(pattern)
	if bare := strings.TrimSuffix(pattern, "/"); !strings.Contains(bare, "/") && bare != "**" {
		segs = append([]string{"**"}, segs...) // a bare name: at any depth
	}
	parts := strings.Split(strings.Trim(path.Clean("/"+strings.ReplaceAll(name, "\\", "/")), "/"), "/")
	for n := len(parts); n > 0; n-- { // the path itself, then each directory holding it
		if matchSegments(segs, parts[:n]) {
			return true
		}
	}
	return false
}

func matchSegments(p, n []string) bool {
	for len(p) > 0 {
		if p[0] == "**" {
			for len(p) > 1 && p[1] == "**" {
				p = p[1:]
			}
			for i := 0; i <= len(n); i++ {
				if matchSegments(p[1:], n[i:]) {
					return true
				}
			}
			return false
		}
		if len(n) == 0 {
			return false
		}
		if ok, err := path.Match(p[0], n[0]); err != nil || !ok {
			return false
		}
		p, n = p[1:], n[1:]
	}
	return len(n) == 0
}

// ProjectConfigTx reads and writes projects' configurations.
type ProjectConfigTx interface {
	// ProjectConfig returns the project's latest configuration, or
	// DefaultProjectConfig (version 0) when it was never configured;
	// ERR_PROJECT_NOT_FOUND for an unknown project.
	ProjectConfig(ctx context.Context, project string) (*ProjectConfig, error)
	// PutProjectConfig validates c and stores it as the project's next
	// version, setting c.Version (and c.UpdatedAt when zero).
	PutProjectConfig(ctx context.Context, c *ProjectConfig) error
	// ProjectConfigHistory returns every stored version, newest first
	// (empty for a project never configured).
	ProjectConfigHistory(ctx context.Context, project string) ([]*ProjectConfig, error)
}
